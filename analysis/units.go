package analysis

import "github.com/sessionls/sessionls/analysis/line"

// node is the little the unit grouping needs to know about one message. The
// engine keeps one per valid message (24 bytes), so that a stream of a
// gigabyte can be grouped without holding its Messages.
type node struct {
	line  int
	cost  int64
	owner int32 // tool result: index of its nearest earlier declaring assistant, else -1
	role  line.Role
}

// BuildUnits groups messages exactly as trimContext does, in linear time.
// Units are returned oldest first with Chars and FromNewest filled in.
func BuildUnits(msgs []Message) []Unit {
	var l linker
	nodes := make([]node, len(msgs))
	for i := range msgs {
		nodes[i] = l.add(&msgs[i])
	}
	return buildUnits(nodes)
}

// buildUnits groups nodes whose owners are known.
//
// trimContext scans from the newest message: a tool result with an owner
// takes everything from its owner through itself as one unit and the scan
// resumes before the owner; any other message is a unit of its own. Every
// message is visited once, so this is linear (the runtime's backward search
// for the owner, and its unshift, are what make it quadratic).
func buildUnits(nodes []node) []Unit {
	if len(nodes) == 0 {
		return nil
	}
	units := make([]Unit, 0, len(nodes)/2+1)
	for i := len(nodes) - 1; i >= 0; {
		first := i
		if nodes[i].role == line.RoleTool && nodes[i].owner >= 0 {
			first = int(nodes[i].owner)
		}
		var chars int64
		for j := first; j <= i; j++ {
			chars += nodes[j].cost
		}
		units = append(units, Unit{
			First: first, Last: i,
			StartLine: nodes[first].line, EndLine: nodes[i].line,
			Chars: chars,
		})
		i = first - 1
	}
	// Collected newest first; the API gives them oldest first.
	for l, r := 0, len(units)-1; l < r; l, r = l+1, r-1 {
		units[l], units[r] = units[r], units[l]
	}
	var sum int64
	for k := len(units) - 1; k >= 0; k-- {
		sum += units[k].Chars
		units[k].FromNewest = sum
	}
	return units
}

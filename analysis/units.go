package analysis

import (
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/blocklist"
)

// node is the little the unit grouping needs to know about one message. The
// engine keeps one per valid message (24 bytes), so that a stream of a
// gigabyte can be grouped without holding its Messages.
type node struct {
	line  int
	cost  int64
	owner int32 // tool result: index of its nearest earlier declaring assistant, else -1 (Report.AnsweredCall)
	role  line.Role
}

// nodeList holds nodes in blocks (never copied to grow), and their
// messages' token counts beside them, in blocks made only once a message
// has tokens, so that a run that counts none pays nothing for them.
type nodeList struct {
	nodes  blocklist.List[node]
	tokens blocklist.Sparse[int64]
}

func (l *nodeList) add(nd node, tokens int64) {
	l.tokens.Set(l.nodes.Len(), tokens)
	l.nodes.Append(nd)
}

func (l *nodeList) at(i int) *node { return l.nodes.At(i) }

// tokensAt is node i's message's token count (0 when none was counted).
func (l *nodeList) tokensAt(i int) int64 { return l.tokens.At(i) }

func (l *nodeList) len() int { return l.nodes.Len() }

// BuildUnits groups messages exactly as trimContext does, in linear time.
// Units are returned oldest first with Chars and FromNewest filled in.
func BuildUnits(msgs []Message) []Unit {
	var l linker
	var nodes nodeList
	for i := range msgs {
		nodes.add(l.add(&msgs[i]), msgs[i].Tokens)
	}
	return buildUnits(&nodes)
}

// buildUnits groups nodes whose owners are known.
//
// trimContext scans from the newest message: a tool result with an owner
// takes everything from its owner through itself as one unit and the scan
// resumes before the owner; any other message is a unit of its own. Every
// message is visited once, so this is linear (the runtime's backward search
// for the owner, and its unshift, are what make it quadratic). A first scan
// counts the units so that the second fills an array of the exact size,
// newest last.
func buildUnits(nodes *nodeList) []Unit {
	start := func(i int) int {
		if nd := nodes.at(i); nd.role == line.RoleTool && nd.owner >= 0 {
			return int(nd.owner)
		}
		return i
	}
	count := 0
	for i := nodes.len() - 1; i >= 0; i = start(i) - 1 {
		count++
	}
	if count == 0 {
		return nil
	}
	units := make([]Unit, count)
	var sum, tsum int64
	k := count - 1
	for i := nodes.len() - 1; i >= 0; k-- {
		first := start(i)
		var chars, toks int64
		for j := first; j <= i; j++ {
			chars += nodes.at(j).cost
			toks += nodes.tokensAt(j)
		}
		sum += chars
		tsum += toks
		units[k] = Unit{
			First: first, Last: i,
			StartLine: nodes.at(first).line, EndLine: nodes.at(i).line,
			Chars: chars, FromNewest: sum,
			Tokens: toks, TokensFromNewest: tsum,
		}
		i = first - 1
	}
	return units
}

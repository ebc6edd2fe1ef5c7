package fix

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/analysis"
)

// The candidates of an ambiguity must be told apart by a person choosing
// one: each title says which pieces it joins into which record, by line
// and piece (a piece is one 524,288-byte write of node's appendFile; a
// line's pieces are counted from 1 at its first byte), and what it keeps
// and loses. Two ways of pairing differ in at least one record's pieces,
// and a record's description names exactly its pieces, so the titles of
// two candidates differ.

// candidateTitle is the title of candidate n (1-based) of ways ways: the
// way h of pairing the lines ls[first..last].
func (s *solver) candidateTitle(ls []fileLine, first, last int, h *hist, n, ways int, lost Loss) string {
	var joins []string
	records := 0
	var recs [][]int32
	for ; h != nil; h = h.prev {
		if h.act.close != nil {
			recs = append(recs, h.act.close)
		}
	}
	// In the file's order of their first pieces.
	slices.SortFunc(recs, func(a, b []int32) int { return int(a[0] - b[0]) })
	for _, rec := range recs {
		records++
		if d, joined := s.describeRecord(ls, rec); joined {
			joins = append(joins, d)
		}
	}
	var b strings.Builder
	b.WriteString("Candidate ")
	b.WriteString(strconv.Itoa(n))
	b.WriteString(" of ")
	b.WriteString(waysText(ways))
	b.WriteString(" (unsafe, never chosen automatically): ")
	if len(joins) == 0 {
		b.WriteString("keep the lines' records as they are")
	} else {
		b.WriteString("join ")
		b.WriteString(strings.Join(joins, ", "))
	}
	where := "line " + strconv.Itoa(ls[first].ln)
	if last > first {
		where = "lines " + strconv.Itoa(ls[first].ln) + "–" + strconv.Itoa(ls[last].ln)
	}
	b.WriteString("; keeps ")
	b.WriteString(plural(records, "record", "records"))
	b.WriteString(" on ")
	b.WriteString(where)
	if lost.Bytes == 0 {
		b.WriteString(", loses no byte")
	} else {
		b.WriteString(", deletes ")
		b.WriteString(plural(int(lost.Bytes), "byte", "bytes"))
		b.WriteString(" (")
		b.WriteString(plural(lost.Records, "record", "records"))
		b.WriteString(", whole or partial)")
	}
	return b.String()
}

// describeRecord names the pieces of the record rec ("line 3's start with
// line 7's rest"), and whether they are anything but one whole line as it
// stands (a record left in place needs no word).
func (s *solver) describeRecord(ls []fileLine, rec []int32) (string, bool) {
	type seg struct{ line, from, to int } // pieces from..to (1-based) of ls[line]
	var segs []seg
	for _, c := range rec {
		ch := s.chunks[c]
		k := (ch.start-ls[ch.line].start)/analysis.ChunkSize + 1
		if n := len(segs); n > 0 && segs[n-1].line == ch.line && segs[n-1].to == k-1 {
			segs[n-1].to = k
			continue
		}
		segs = append(segs, seg{ch.line, k, k})
	}
	pieces := func(l fileLine) int { return max(1, (l.end-l.start+analysis.ChunkSize-1)/analysis.ChunkSize) }
	if len(segs) == 1 && segs[0].from == 1 && segs[0].to == pieces(ls[segs[0].line]) {
		return "", false
	}
	parts := make([]string, len(segs))
	for i, sg := range segs {
		l := ls[sg.line]
		name := "line " + strconv.Itoa(l.ln)
		n := pieces(l)
		switch {
		case sg.from == 1 && sg.to == n:
			parts[i] = name
		case sg.from == 1 && sg.to == 1:
			parts[i] = name + "'s start"
		case sg.from == 1:
			parts[i] = name + "'s first " + strconv.Itoa(sg.to) + " pieces"
		case sg.from == 2 && sg.to == n:
			parts[i] = name + "'s rest"
		case sg.from == sg.to:
			parts[i] = name + "'s piece " + strconv.Itoa(sg.from)
		default:
			parts[i] = name + "'s pieces " + strconv.Itoa(sg.from) + "–" + strconv.Itoa(sg.to)
		}
	}
	if len(parts) == 1 {
		return parts[0] + " alone", true // the rest of a line whose start went elsewhere
	}
	return strings.Join(parts, " with "), true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ApplyChosen applies chosen, candidates of res's ambiguities that a
// person picked (at most one per ambiguity), to res.Data, then fixes the
// result again with fixAll (FixAllContext with the options and safety res
// was made with, or a dialect's), and returns what both did: Data,
// Report, Ambiguities and HeldOrphans of the last step; Fixed and Lost
// summed; Origin in terms of the input res was made from.
func ApplyChosen(ctx context.Context, res Result, chosen []Fix, fixAll func(context.Context, []byte) (Result, error)) (Result, error) {
	if len(chosen) == 0 {
		return res, nil
	}
	chosen = slices.Clone(chosen)
	slices.SortFunc(chosen, func(a, b Fix) int { return a.Line - b.Line })
	origin := origins(res.Data, chosen, res.Origin)
	data := Apply(res.Data, chosen)
	next, err := fixAll(ctx, data)
	if err != nil {
		return Result{}, err
	}
	if next.Origin != nil {
		for i, o := range next.Origin {
			if o > 0 {
				next.Origin[i] = origin[o-1]
			}
		}
	} else {
		next.Origin = origin
	}
	next.Fixed += res.Fixed + len(chosen)
	next.Lost = next.Lost.Add(res.Lost)
	for _, c := range chosen {
		next.Lost = next.Lost.Add(c.Lost)
	}
	return next, nil
}

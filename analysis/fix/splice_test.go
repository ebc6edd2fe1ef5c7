package fix_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// piece names one write of node's appendFile: record rec's write k
// (524,288 bytes each, the last holding the record's "\n").
type piece struct{ rec, k int }

// layOut writes the records' pieces in the order given (each lands whole,
// as under O_APPEND) and returns the file and, in the order their last
// pieces land, the records: the lines a rejoining must make of them.
func layOut(t *testing.T, recs []string, order []piece) (data string, want []string) {
	t.Helper()
	var b strings.Builder
	for _, p := range order {
		ps := pieces(recs[p.rec])
		b.WriteString(ps[p.k])
		if p.k == len(ps)-1 {
			want = append(want, recs[p.rec])
		}
	}
	if len(want) != len(recs) {
		t.Fatalf("the order writes %d records whole, want %d", len(want), len(recs))
	}
	return b.String(), want
}

// spliceTool is a large tool result whose content is fill repeated, with
// end placed so that it ends the record's first 524,288-byte write and
// next so that it begins the second, and about rest bytes after that.
func spliceTool(id, fill, end, next string, rest int) string {
	head := `{"role":"tool","content":"`
	return head + strings.Repeat(fill, C-len(head)-len(end)) + end + next + strings.Repeat(fill, rest) +
		`","toolCallId":"` + id + `","isError":false}`
}

// TestSpliceLine: three writers' pieces can make a line that parses out
// of two records, one's first 524,288 bytes and another's last write,
// with the pieces it lacks refused on the lines around it. The pairing
// questions that line: when only one way makes every piece part of a
// whole record, it takes the line apart and rejoins every record byte for
// byte; when several do, it reports the run ambiguous, names the line as
// questioned, and leaves it as it was.
func TestSpliceLine(t *testing.T) {
	const asst = `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}},{"id":"b","name":"ls","input":{}},{"id":"c","name":"ls","input":{}}]}`
	small := `{"role":"user","content":"r"}`
	tests := []struct {
		name      string
		recs      []string
		order     []piece // recs[0], the assistant, first
		splice    int     // the line (1-based) that parses but is no record
		ambiguous bool
		// the lines an ambiguity questions (default: splice)
		questioned []int
		run        [2]int // the ambiguous run, when set
	}{
		{
			// a's first write ends inside the escape \n; c's first write
			// and a's last make line 3, which parses ("…cccn…"); only
			// a's last write completes a's head.
			name: "a's head ends in an escape: the line's tail is a's",
			recs: []string{asst, spliceTool("a", "x", `\`, "n", 300000), small, spliceTool("b", "c", "", "", 600000)},
			// a0 r | b0 a1 | b1 b2
			order:  []piece{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {1, 1}, {3, 1}, {3, 2}},
			splice: 3,
		},
		{
			// As the runtime reads a broken UTF-8 sequence as U+FFFD,
			// line 3 parses; the writer wrote valid UTF-8, so é's first
			// byte at the end of a's head takes a's last write only.
			name:   "a's head ends inside a character",
			recs:   []string{asst, spliceTool("a", "x", "\xc3", "\xa9", 300000), small, spliceTool("b", "c", "", "", 600000)},
			order:  []piece{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {1, 1}, {3, 1}, {3, 2}},
			splice: 3,
		},
		{
			// b0 c0 b1 | a0 c1 | a1: line 3 is a's head and c's tail.
			// c's head ends in a backslash that only c's tail, "n…",
			// completes (\q and \a are no escapes; \b would be), so b's
			// head takes b1 and a's head the last line.
			name: "the line's head is one record's, its tail another's",
			recs: []string{asst, spliceTool("a", "a", "", "", 300000), spliceTool("b", "q", "", "", 200000), spliceTool("c", "x", `\`, "n", 250000)},
			order: []piece{
				{0, 0},
				{2, 0}, {3, 0}, {2, 1},
				{1, 0}, {3, 1},
				{1, 1},
			},
			splice: 3,
		},
		{
			// Plain ASCII: a's head fits b's tail as well as its own.
			name:      "ASCII: ambiguous",
			recs:      []string{asst, spliceTool("a", "x", "", "", 300000), small, spliceTool("b", "c", "", "", 600000)},
			order:     []piece{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {1, 1}, {3, 1}, {3, 2}},
			splice:    3,
			ambiguous: true,
		},
		{
			// A record of two writes whole on line 4, inside the run (lines
			// 2-5): its head ends inside a character only its own tail
			// completes, so no candidate takes it apart and it is not
			// questioned.
			name: "ASCII: ambiguous, a whole record of several writes in the run",
			recs: []string{asst, spliceTool("a", "x", "", "", 300000), small, spliceTool("b", "c", "", "", 600000),
				spliceTool("c", "y", "\xc3", "\xa9", 100000)},
			order:      []piece{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {1, 1}, {4, 0}, {4, 1}, {3, 1}, {3, 2}},
			splice:     3,
			ambiguous:  true,
			questioned: []int{3},
			run:        [2]int{2, 5},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, want := layOut(t, tc.recs, tc.order)
			wantOut := strings.Join(want, "\n") + "\n"
			lines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
			sp := lines[tc.splice-1]
			if slices.Contains(tc.recs, sp) || !analysis.Analyze([]byte(sp), analysis.Options{}).Loads() {
				t.Fatalf("line %d (%d bytes) is not a splice the runtime loads", tc.splice, len(sp))
			}
			for _, unsafe := range []bool{false, true} {
				res := fix.FixAll([]byte(in), analysis.Options{}, unsafe)
				if res.Lost != (fix.Loss{}) {
					t.Errorf("unsafe=%v: lost %+v", unsafe, res.Lost)
				}
				if !tc.ambiguous {
					if string(res.Data) != wantOut {
						t.Errorf("unsafe=%v: the lines are not the writers' records:\n%s", unsafe, describe(res.Data, tc.recs))
					}
					if len(res.Ambiguities) > 0 {
						t.Errorf("unsafe=%v: %d ambiguities, want none: %s", unsafe, len(res.Ambiguities), res.Ambiguities[0].Message())
					}
					continue
				}
				// Ambiguous: nothing changes, the run holds the splice and
				// names it, and one candidate is the writers' records.
				if string(res.Data) != in {
					t.Errorf("unsafe=%v: an ambiguous file was changed:\n%s", unsafe, describe(res.Data, tc.recs))
				}
				if len(res.Ambiguities) != 1 {
					t.Fatalf("unsafe=%v: %d ambiguities, want 1", unsafe, len(res.Ambiguities))
				}
				a := res.Ambiguities[0]
				if tc.run != ([2]int{}) && (a.Line != tc.run[0] || a.EndLine != tc.run[1]) {
					t.Errorf("the ambiguous run is lines %d-%d, want %d-%d", a.Line, a.EndLine, tc.run[0], tc.run[1])
				}
				if tc.splice < a.Line || tc.splice > a.EndLine {
					t.Errorf("the ambiguous run is lines %d-%d, without the splice on line %d", a.Line, a.EndLine, tc.splice)
				}
				wantQ := tc.questioned
				if wantQ == nil {
					wantQ = []int{tc.splice}
				}
				if !slices.Equal(a.Questioned, wantQ) {
					t.Errorf("questioned lines %v, want %v", a.Questioned, wantQ)
				}
				if m := a.Message(); !strings.Contains(m, "line "+strconv.Itoa(tc.splice)+" parses, but a candidate takes it apart") {
					t.Errorf("the message does not question line %d: %s", tc.splice, m)
				}
				writers, keeps := false, false
				for _, c := range a.Candidates {
					out := string(fix.Apply(res.Data, []fix.Fix{c}))
					writers = writers || out == wantOut
					keeps = keeps || slices.Contains(strings.Split(out, "\n"), sp)
				}
				if !writers || !keeps {
					t.Errorf("candidates: one is the writers' records %v, one keeps the splice %v; want both", writers, keeps)
				}
			}
		})
	}
}

// describe lists data's lines: their size and whether each is one of recs.
func describe(data []byte, recs []string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		b.WriteString("line " + strconv.Itoa(i+1) + ": " + strconv.Itoa(len(l)) + " bytes, a record: " + strconv.FormatBool(slices.Contains(recs, l)) + "\n")
	}
	return b.String()
}

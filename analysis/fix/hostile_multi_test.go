package fix

import (
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// TestPlanHostileInterleaving: lines that look like interleaved heads
// whose pieces never complete a record, and continuations that fit any of
// them, do not make the pairing blow up: it stays within its parse budget
// (about sixteen times the lines' bytes) and its bound on open ways.
func TestPlanHostileInterleaving(t *testing.T) {
	head := `{"role":"tool","content":"` + strings.Repeat("x", analysis.ChunkSize-26)
	var b strings.Builder
	for range 12 {
		b.WriteString(head + `{"role":"user","content":"` + strings.Repeat("y", 1000) + "\n") // a head, another append cut short
		b.WriteString(strings.Repeat("z", 5000) + "\n")                                       // the rest of something
	}
	data := []byte(b.String())
	var ls []fileLine
	ForEachLine(data, func(ln, start, end int, nl bool) bool {
		ls = append(ls, fileLine{ln: ln, start: start, end: end, nl: nl})
		return true
	})
	fixes, ambs, _, parsed := solveCounting(data, ls, line.Parse)
	if limit := 16*len(data) + 64<<20 + 4*analysis.ChunkSize; parsed > limit {
		t.Errorf("parsed %d bytes for %d bytes of lines (limit %d)", parsed, len(data), limit)
	}
	t.Logf("%d fixes, %d ambiguities, %d bytes parsed for %d", len(fixes), len(ambs), parsed, len(data))
	// And the whole repair of such a file ends, keeping no line that loads
	// but was not in the input.
	res := FixAll(data, analysis.Options{}, true)
	in := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		in[l] = true
	}
	for _, l := range strings.Split(string(res.Data), "\n") {
		if l != "" && !in[l] && analysis.Analyze([]byte(l), analysis.Options{}).Loads() {
			t.Errorf("kept a line no input line holds: %.80q", l)
		}
	}
}

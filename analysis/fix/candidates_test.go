package fix_test

import (
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// TestAmbiguityCandidateTitles: two large ASCII appends interleaved pair
// either way; each candidate's title names exactly the pieces it joins
// (so the two titles differ), and applying it gives that pairing, the
// file loads, and the line outside the run is kept byte for byte.
func TestAmbiguityCandidateTitles(t *testing.T) {
	aa := bigTool("a", "", "a", 900000)
	bb := bigTool("b", "", "b", 800000)
	paa, pbb := pieces(aa), pieces(bb)
	in := []byte(dAsstAB + "\n" + paa[0] + pbb[0] + paa[1] + pbb[1])
	trim := func(s string) string { return strings.TrimSuffix(s, "\n") }
	// Line 2 holds pieces paa0 pbb0 paa1, line 3 pbb1. The two pairings,
	// as the lines 2 and 3 they leave, and how their titles name them.
	ways := []struct {
		line2, line3 string
		join         string
	}{
		{aa, bb, "join line 2's start with line 2's piece 3, line 2's piece 2 with line 3;"},
		{trim(pbb[0] + paa[1]), trim(paa[0] + pbb[1]), "join line 2's start with line 3, line 2's rest alone;"},
	}
	res := fix.FixAll(in, analysis.Options{}, true)
	if len(res.Ambiguities) != 1 {
		t.Fatalf("%d ambiguities, want 1", len(res.Ambiguities))
	}
	a := res.Ambiguities[0]
	if a.Line != 2 || a.EndLine != 3 || a.Ways != 2 || len(a.Candidates) != 2 {
		t.Fatalf("ambiguity lines %d–%d, %d ways, %d candidates; want 2–3, 2, 2", a.Line, a.EndLine, a.Ways, len(a.Candidates))
	}
	seen := map[string]bool{}
	for i, c := range a.Candidates {
		if seen[c.Title] {
			t.Errorf("candidate %d has the title of another: %q", i+1, c.Title)
		}
		seen[c.Title] = true
		if c.Safety != fix.Unsafe {
			t.Errorf("candidate %d is %v, want unsafe", i+1, c.Safety)
		}
		if !strings.Contains(c.Title, "keeps 2 records on lines 2–3, loses no byte") {
			t.Errorf("candidate %d title %q does not say what it keeps and loses", i+1, c.Title)
		}
		out := fix.Apply(res.Data, []fix.Fix{c})
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != 3 || lines[0] != dAsstAB {
			t.Fatalf("candidate %d: %d lines, first %.60q", i+1, len(lines), lines[0])
		}
		matched := false
		for _, w := range ways {
			if lines[1] == w.line2 && lines[2] == w.line3 {
				matched = true
				if !strings.Contains(c.Title, w.join) {
					t.Errorf("candidate %d title %q, want it to say %q", i+1, c.Title, w.join)
				}
			}
		}
		if !matched {
			t.Errorf("candidate %d gives neither pairing", i+1)
		}
		if !analysis.Analyze(out, analysis.Options{}).Loads() {
			t.Errorf("candidate %d leaves a file that does not load", i+1)
		}
	}
}

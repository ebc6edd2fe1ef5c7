package analysis

import "testing"

func TestUsageFill(t *testing.T) {
	tests := []struct {
		u    Usage
		want int64
		ok   bool
	}{
		{Usage{ContextTokens: 45_210, ContextWindow: 200_000}, 23, true},
		{Usage{ContextTokens: 44_999, ContextWindow: 200_000}, 22, true},
		{Usage{ContextTokens: 1_000_000, ContextWindow: 1_000_000}, 100, true},
		{Usage{ContextTokens: 9_332}, 0, false},
	}
	for _, tc := range tests {
		if got, ok := tc.u.Fill(); got != tc.want || ok != tc.ok {
			t.Errorf("%+v.Fill() = %d, %v; want %d, %v", tc.u, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCompactionSummary(t *testing.T) {
	tests := []struct {
		c    Compaction
		want string
	}{
		{Compaction{Line: 23, Replaced: 13, Chars: 2_340}, "13 messages replaced by a 2,340-char summary"},
		{Compaction{Line: 2, Replaced: 1, Chars: 5}, "1 message replaced by a 5-char summary"},
		{Compaction{Line: 21, Chars: 225}, "the history before it replaced by a 225-char summary"},
	}
	for _, tc := range tests {
		if got := tc.c.Summary(); got != tc.want {
			t.Errorf("%+v.Summary() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestResume: what a resume sends is read from the units, from the first
// one the last compaction did not replace (its Replaced messages precede
// it); nothing for a history never compacted or a file that does not load.
func TestResume(t *testing.T) {
	// Five messages in four units (lines 2, 4-5, 7, 9); a codex-like
	// compaction at line 7 replaces the first three.
	units := []Unit{
		{First: 0, Last: 0, StartLine: 2, EndLine: 2, Chars: 10, FromNewest: 100, Tokens: 3, TokensFromNewest: 30},
		{First: 1, Last: 2, StartLine: 4, EndLine: 5, Chars: 40, FromNewest: 90, Tokens: 12, TokensFromNewest: 27},
		{First: 3, Last: 3, StartLine: 7, EndLine: 7, Chars: 20, FromNewest: 50, Tokens: 6, TokensFromNewest: 15},
		{First: 4, Last: 4, StartLine: 9, EndLine: 9, Chars: 30, FromNewest: 30, Tokens: 9, TokensFromNewest: 9},
	}
	tests := []struct {
		name string
		rep  Report
		want Resume
		ok   bool
		text string
	}{
		{"never compacted", Report{Units: units}, Resume{}, false, ""},
		{"does not load", Report{Units: units, FirstInvalidLine: 3, Compactions: []Compaction{{Line: 7, Replaced: 3}}}, Resume{}, false, ""},
		{"replaced", Report{Units: units, Compactions: []Compaction{{Line: 7, Replaced: 3}}},
			Resume{StartLine: 7, EndLine: 9, Messages: 2, Chars: 50, Tokens: 15}, true, "a resume sends lines 7–9: 2 messages, 50 chars"},
		{"the last compaction counts", Report{Units: units, Compactions: []Compaction{{Line: 4, Replaced: 1}, {Line: 9, Replaced: 4}}},
			Resume{StartLine: 9, EndLine: 9, Messages: 1, Chars: 30, Tokens: 9}, true, "a resume sends line 9: 1 message, 30 chars"},
		{"resumed from the boundary (Replaced 0)", Report{Units: units, Compactions: []Compaction{{Line: 1}}},
			Resume{StartLine: 2, EndLine: 9, Messages: 5, Chars: 100, Tokens: 30}, true, "a resume sends lines 2–9: 5 messages, 100 chars"},
		{"nothing after it", Report{Units: units[:2], Compactions: []Compaction{{Line: 7, Replaced: 3}}},
			Resume{StartLine: 7, EndLine: 7}, true, "a resume sends no message"},
	}
	for _, tc := range tests {
		rs, ok := tc.rep.Resume()
		if rs != tc.want || ok != tc.ok {
			t.Errorf("%s: Resume() = %+v, %v; want %+v, %v", tc.name, rs, ok, tc.want, tc.ok)
		}
		if ok && rs.Summary(false) != tc.text {
			t.Errorf("%s: Summary(false) = %q, want %q", tc.name, rs.Summary(false), tc.text)
		}
	}
	rs := Resume{StartLine: 23, EndLine: 40, Messages: 11, Chars: 2_118, Tokens: 1_590}
	if got, want := rs.Summary(true), "a resume sends lines 23–40: 11 messages, 2,118 chars, 1,590 tokens"; got != want {
		t.Errorf("Summary(true) = %q, want %q", got, want)
	}
}

// TestResumeSeed: a seed session records no compaction, so it has no
// resume fact.
func TestResumeSeed(t *testing.T) {
	rep := Analyze([]byte(`{"role":"user","content":"hi"}`+"\n"+`{"role":"assistant","content":"hello"}`+"\n"), Options{})
	if rs, ok := rep.Resume(); ok || len(rep.Units) == 0 {
		t.Errorf("seed: Resume() = %+v, %v with %d units", rs, ok, len(rep.Units))
	}
}

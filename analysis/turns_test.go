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

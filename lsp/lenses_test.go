package lsp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPreview(t *testing.T) {
	require.Equal(t, "(empty)", preview(" \n\t", 40))
	require.Equal(t, "a b c", preview("a\n b\t\tc", 40))
	require.Equal(t, "🙏é…", preview("🙏éx", 2))
	require.Equal(t, "abc", preview("abc", 3))
}

func TestGlob(t *testing.T) {
	roots := []string{"/work"}
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"**/*.jsonl", "/work/a.jsonl", true},
		{"**/*.jsonl", "/elsewhere/deep/x/a.jsonl", true},
		{"**/*.jsonl", "/work/a.json", false},
		{"logs/*.txt", "/work/logs/b.txt", true},
		{"logs/*.txt", "/work/x/logs/b.txt", false},
		{"logs/*.txt", "/other/logs/b.txt", true},
		{"/abs/**/s-*.log", "/abs/1/2/s-3.log", true},
		{"/abs/**/s-*.log", "/x/abs/1/s-3.log", false},
		{"**", "/anything/at/all", true},
		{"**/*.{jsonl,log}", "/work/a.log", true},
		{"**/*.{jsonl,log}", "/work/a.txt", false},
		{"**/{a,b{c,d}}.x", "/work/bd.x", true},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, matchGlob(tt.glob, tt.path, roots), "%s %s", tt.glob, tt.path)
	}
	require.Error(t, checkGlob("["))
	require.Error(t, checkGlob(" "))
	require.NoError(t, checkGlob("**/*.{jsonl}"))

	// Exponential for the brace-expanding matcher this replaced (2^24
	// patterns; ten "**" backtracking over a deep path): linear now, so
	// these return at once (internal/glob counts the steps).
	braces := "**/*" + strings.Repeat("{a,b}", 24)
	require.True(t, matchGlob(braces, "/work/x/"+strings.Repeat("ab", 12), roots))
	require.False(t, matchGlob(braces, "/work/x/"+strings.Repeat("ab", 12)+"c", roots))
	require.False(t, matchGlob(strings.Repeat("**/", 10)+"x", "/"+strings.Repeat("d/", 300)+"y", nil))
	// Past the bounds: refused with a reason, never matched slowly.
	require.ErrorContains(t, checkGlob("**/*"+strings.Repeat("{a,b}", 33)), "more than 32")
	require.ErrorContains(t, checkGlobs(make([]string, 129)), "at most 128")
	_, errs := parseSettings(map[string]any{"files": []any{"**/*" + strings.Repeat("{a,b}", 40)}})
	require.Len(t, errs, 1)
	require.ErrorContains(t, errs[0], "sessionls.files: glob")
}

func TestParseBudget(t *testing.T) {
	ok := map[any]int64{float64(8000): 8000, "8000": 8000, "8,000": 8000, " 42 ": 42, float64(1e3): 1000}
	for in, want := range ok {
		got, err := parseBudget(in, false)
		require.NoError(t, err, "%v", in)
		require.Equal(t, want, got)
	}
	for _, in := range []any{float64(0), float64(-1), 2.5, "x", "", nil, true, []any{1}, map[string]any{}, float64(1e300)} {
		_, err := parseBudget(in, false)
		require.Error(t, err, "%v", in)
	}
	got, err := parseBudget(float64(0), true)
	require.NoError(t, err)
	require.Zero(t, got)
}

func TestSettingsSection(t *testing.T) {
	sec, ok := sessionlsSection(map[string]any{"sessionls": map[string]any{"budget": 5.0}})
	require.True(t, ok)
	require.Equal(t, 5.0, sec["budget"])
	_, ok = sessionlsSection(nil)
	require.False(t, ok)
	_, ok = sessionlsSection(map[string]any{"other": 1.0})
	require.False(t, ok)
	_, ok = sessionlsSection(map[string]any{"budget": 1.0})
	require.True(t, ok)

	p, errs := parseSettings(map[string]any{"budget": 10.0, "checks": []any{"swept-message", "nope"}, "files": []any{"*.x"}})
	require.Len(t, errs, 1)
	require.Equal(t, int64(10), *p.budget)
	require.Equal(t, map[string]bool{"swept-message": true}, p.disabled)
	require.Equal(t, []string{"*.x"}, p.files)
	_, errs = parseSettings(map[string]any{"checks": "swept-message", "files": []any{"["}})
	require.Len(t, errs, 2)
}

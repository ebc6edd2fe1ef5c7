package glob

import (
	"strings"
	"testing"
)

// BenchmarkWorstCase: a pattern at the length bound made of "**" segments
// and brace groups, against a deep path that never matches.
func BenchmarkWorstCase(b *testing.B) {
	g := strings.Repeat("**/", 200) + "*" + strings.Repeat("{a,b}", MaxBraceGroups) + "x"
	if len(g) > MaxPatternLen {
		g = g[len(g)-MaxPatternLen:]
		g = g[strings.IndexByte(g, '*'):]
	}
	p, err := Compile(g)
	if err != nil {
		b.Fatal(err)
	}
	path := "/" + strings.Repeat("ab/", 1000) + "abab"
	b.SetBytes(int64(len(path)))
	for b.Loop() {
		if p.Match(path, nil) {
			b.Fatal("matched")
		}
	}
}

// BenchmarkTypical: the server's default glob against a workspace path.
func BenchmarkTypical(b *testing.B) {
	p, err := Compile("**/*.{jsonl,log}")
	if err != nil {
		b.Fatal(err)
	}
	path := "/home/user/project/sessions/2026/11/a-session.jsonl"
	for b.Loop() {
		if !p.Match(path, []string{"/home/user/project"}) {
			b.Fatal("no match")
		}
	}
}

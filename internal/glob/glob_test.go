package glob

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, g string) *Pattern {
	t.Helper()
	p, err := Compile(g)
	if err != nil {
		t.Fatalf("%s: %v", g, err)
	}
	return p
}

// TestServerCases are the language server's glob cases (its files setting;
// lsp's matchGlob is Compile and Match).
func TestServerCases(t *testing.T) {
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
		if got, want := mustCompile(t, tt.glob).Match(tt.path, roots), tt.want; got != want {
			t.Fatalf("%s %s: mustCompile(t, tt.glob).Match(tt.path, roots) = %v, want %v", tt.glob, tt.path, got, want)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		// "**" is any number of whole segments, none included.
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"a/**", "ab", false},
		{"**/a", "a", true},
		{"**/**/a", "a", true},
		{"**/**/a", "x/y/a", true},
		{"**", "", true},
		// Not a whole segment: "**" is "*".
		{"a**", "abc", true},
		{"a**", "a/bc", false},
		{"**b", "x/ab", false},
		{"***", "abc", true},
		{"***", "a/b", false},
		{"*", "", false},
		// One segment at a time.
		{"*.jsonl", "a.jsonl", true},
		{"*.jsonl", "d/a.jsonl", false},
		{"?", "é", true},
		{"?", "", false},
		{"a?c", "a/c", false},
		{"[a-c]x", "bx", true},
		{"[^a-c]x", "dx", true},
		{"[^a-c]x", "bx", false},
		{"[\\]]", "]", true},
		{"\\*", "*", true},
		{"\\*", "a", false},
		// Braces span segments, nest, may be empty.
		{"{logs,data/old}/*.jsonl", "data/old/a.jsonl", true},
		{"{logs,data/old}/*.jsonl", "data/a.jsonl", false},
		{"a{,b}c", "ac", true},
		{"a{,b}c", "abc", true},
		{"{**/x,y}", "p/q/x", true},
		{"{a,**}/z", "p/q/z", true},
		{"x{a,**}", "x/y", false},
		{"[{,}]", ",", true},
		{"{[a,b],c}", "b", true},
		// Repeated slashes match repeated slashes; edges do not matter.
		{"a//b", "a//b", true},
		{"a//b", "a/b", false},
		{"a/**/b", "a//b", true},
		{"logs/", "logs", true},
		{"/logs", "/logs/", true},
		// Bytes that are not UTF-8: "?" takes one, a literal never equals one.
		{"a?b", "a\xffb", true},
		{"a\uFFFDb", "a\xffb", false},
	}
	for _, tt := range tests {
		p := mustCompile(t, tt.glob)
		if got, want := p.MatchWhole(tt.path), tt.want; got != want {
			t.Fatalf("%s %q: p.MatchWhole(tt.path) = %v, want %v", tt.glob, tt.path, got, want)
		}
	}
}

func TestMatchTail(t *testing.T) {
	p := mustCompile(t, "*.jsonl")
	if !p.MatchTail("a/b/c.jsonl") {
		t.Fatal(`p.MatchTail("a/b/c.jsonl") = false, want true`)
	}
	if p.MatchWhole("a/b/c.jsonl") {
		t.Fatal(`p.MatchWhole("a/b/c.jsonl") = true, want false`)
	}
	if p.MatchTail("a/b.jsonl/c") {
		t.Fatal(`p.MatchTail("a/b.jsonl/c") = true, want false`)
	}
	p = mustCompile(t, "b/*.jsonl")
	if !p.MatchTail("a/b/c.jsonl") {
		t.Fatal(`p.MatchTail("a/b/c.jsonl") = false, want true`)
	}
	if p.MatchTail("a/xb/c.jsonl") {
		t.Fatal(`p.MatchTail("a/xb/c.jsonl") = true, want false`)
	}
	abs := mustCompile(t, "/b/*.jsonl")
	if abs.MatchTail("a/b/c.jsonl") {
		t.Fatal(`abs.MatchTail("a/b/c.jsonl") = true, want false`)
	}
	if !abs.MatchTail("b/c.jsonl") {
		t.Fatal(`abs.MatchTail("b/c.jsonl") = false, want true`)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		glob, msg string
		offset    int
	}{
		{"", "empty pattern", -1},
		{"  ", "empty pattern", -1},
		{"[", "unclosed '['", 0},
		{"a[]", "must be escaped", 2},
		{"[a-]", "must be escaped", 3},
		{"[/]", "'/' cannot be in", 1},
		{"a\\", "escapes nothing", 1},
		{"a\\/b", "cannot be escaped", 1},
		{"{a,b", "unclosed '{'", 0},
		{"a}b", "unmatched '}'", 1},
		{"{,}", "makes the pattern empty", -1},
		{"{a,*}*", "can join to another '*'", 3},
		{"{a,}**", "whole segment in some", 4},
		{"x/{,a}**", "whole segment in some", 6},
		{"a/{,b}", "start or end of the pattern", 1},
		{"{/a,b}", "start or end of the pattern", 1},
		{"a\xff", "not valid UTF-8", -1},
		{strings.Repeat("a", MaxPatternLen+1), "longer than", -1},
		{strings.Repeat("{a,b}", MaxBraceGroups+1), "more than 32 {…} groups", 5 * MaxBraceGroups},
		{strings.Repeat("{", MaxBraceDepth+1) + strings.Repeat("}", MaxBraceDepth+1), "nested more than", MaxBraceDepth},
	}
	for _, tt := range tests {
		_, err := Compile(tt.glob)
		if err == nil {
			t.Fatalf("%q: got no error, want one", tt.glob)
		}
		var ge *Error
		if !errors.As(err, &ge) {
			t.Fatalf("%q: errors.As(err, &ge) = false, want true", tt.glob)
		}
		if !strings.Contains(ge.Msg, tt.msg) {
			t.Fatalf("%q: got %q, want it to contain %q", tt.glob, ge.Msg, tt.msg)
		}
		if got, want := ge.Offset, tt.offset; got != want {
			t.Fatalf("%q: %v: ge.Offset = %v, want %v", tt.glob, err, got, want)
		}
	}
}

func TestCompileList(t *testing.T) {
	l, err := CompileList([]string{"*.log", "**/*.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Len(); got != 2 {
		t.Fatalf("l.Len() = %v, want %v", got, 2)
	}
	if !l.Match("/w/x/a.jsonl", []string{"/w"}) {
		t.Fatal(`l.Match("/w/x/a.jsonl", []string{"/w"}) = false, want true`)
	}
	if l.Match("/w/x/a.txt", []string{"/w"}) {
		t.Fatal(`l.Match("/w/x/a.txt", []string{"/w"}) = true, want false`)
	}
	var nilList *List
	if nilList.Match("/a", nil) {
		t.Fatal(`nilList.Match("/a", nil) = true, want false`)
	}

	_, err = CompileList(make([]string, MaxPatterns+1))
	if err == nil || !strings.Contains(err.Error(), "at most 128") {
		t.Fatalf("got error %v, want one containing %q", err, "at most 128")
	}
	_, err = CompileList([]string{strings.Repeat("a", 1000), strings.Repeat("b", 1000), strings.Repeat("c", 1000),
		strings.Repeat("d", 1000), strings.Repeat("e", 1000), strings.Repeat("f", 1000), strings.Repeat("g", 1000),
		strings.Repeat("h", 1000), strings.Repeat("i", 1000)})
	if err == nil || !strings.Contains(err.Error(), "bytes in all") {
		t.Fatalf("got error %v, want one containing %q", err, "bytes in all")
	}
	_, err = CompileList([]string{"ok", "["})
	var le *ListError
	if !errors.As(err, &le) {
		t.Fatal("errors.As(err, &le) = false, want true")
	}
	if got := le.Index; got != 1 {
		t.Fatalf("le.Index = %v, want %v", got, 1)
	}
}

// stepBound is the most steps a linear simulation may take: every state
// visited and tested a few times per path character.
func stepBound(p *Pattern, path string) int {
	ranges := 0
	for _, c := range p.classes {
		ranges += len(c.ranges)
	}
	return (4*len(p.states) + ranges) * (len(path) + 3)
}

// TestLinearBraces: k brace groups cost the old matcher 2^k expansions; here
// the work grows with k, not 2^k.
func TestLinearBraces(t *testing.T) {
	build := func(k int) string { return "**/*" + strings.Repeat("{a,b}", k) }
	path := "/work/" + strings.Repeat("x/", 20) + strings.Repeat("ab", 12) + "c"

	var steps [2]int
	for i, k := range []int{12, 24} {
		p := mustCompile(t, build(k))
		ok, n := p.match(path, []string{"/work"})
		if ok {
			t.Fatal("ok = true, want false")
		}
		if got := n; got > stepBound(p, path) {
			t.Fatalf("k=%d: n = %v, want <= %v", k, got, stepBound(p, path))
		}
		steps[i] = n
	}
	// Doubling the groups at most doubles the work (plus slack for the
	// fixed part); the old matcher's expansions alone went from 4,096 to
	// 16,777,216.
	if got := steps[1]; got > 2*steps[0]+200 {
		t.Fatalf("steps[1] = %v, want <= %v", got, 2*steps[0]+200)
	}

	// The same shape, small enough for the reference: the answers agree and
	// the reference's work is exponential.
	ref := &refMatcher{}
	small := build(10)
	okPath := "/work/d/" + strings.Repeat("ab", 5)
	if !ref.match(small, okPath, []string{"/work"}) {
		t.Fatal(`ref.match(small, okPath, []string{"/work"}) = false, want true`)
	}
	if !(mustCompile(t, small).Match(okPath, []string{"/work"})) {
		t.Fatal(`mustCompile(t, small).Match(okPath, []string{"/work"}) = false, want true`)
	}
	if got := ref.steps; got <= 1<<10 {
		t.Fatalf("ref.steps = %v, want > %v", got, 1<<10)
	}
}

// TestLinearGlobstars: ten "**" segments against a deep path cost the old
// matcher path^10 backtracking; here work is linear in pattern × path.
func TestLinearGlobstars(t *testing.T) {
	g := strings.Repeat("**/", 10) + "x"
	deep := strings.Repeat("d/", 200) + "y"
	p := mustCompile(t, g)
	ok, n := p.match(deep, nil)
	if ok {
		t.Fatal("ok = true, want false")
	}
	if got := n; got > stepBound(p, deep) {
		t.Fatalf("n = %v, want <= %v", got, stepBound(p, deep))
	}

	// Doubling the path about doubles the work.
	_, n2 := p.match(deep+"/"+deep, nil)
	if got := n2; got > 2*n+4*len(p.states)*4 {
		t.Fatalf("n2 = %v, want <= %v", got, 2*n+4*len(p.states)*4)
	}

	// The reference on a much smaller instance already does far more.
	ref := &refMatcher{}
	small := strings.Repeat("**/", 6) + "x"
	smallPath := strings.Repeat("d/", 20) + "y"
	if ref.match(small, smallPath, nil) {
		t.Fatal("ref.match(small, smallPath, nil) = true, want false")
	}
	_, nSmall := mustCompile(t, small).match(smallPath, nil)
	if got := ref.steps; got <= 50*nSmall {
		t.Fatalf("ref.steps = %v, want > %v", got, 50*nSmall)
	}
}

// TestAgainstReference compares with the old matcher on random patterns
// from a small alphabet, wherever both accept the pattern. The alphabet
// leaves out "\" and "[" next to braces: the old matcher expanded braces
// before it read escapes and classes, so "\{" or "{[a,b]}" meant something
// else there (documented in Compile's behaviour: escapes and classes bind
// tighter than braces, as in VS Code).
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	patAlpha := []string{"a", "b", "/", "*", "**", "?", "{", "}", ",", "[ab]", "[^a]"}
	pathAlpha := []string{"a", "b", "/", "ab", "ba"}
	roots := [][]string{nil, {"/a"}, {"/b/a", "/a"}}
	compared, matched := 0, 0
	for range 20000 {
		var gb strings.Builder
		for range 1 + rng.IntN(9) {
			gb.WriteString(patAlpha[rng.IntN(len(patAlpha))])
		}
		g := gb.String()
		if rng.IntN(4) == 0 {
			g = "/" + g
		}
		p, err := Compile(g)
		if err != nil || refCheck(g) != nil {
			continue
		}
		if strings.Contains(g, "[") && strings.Contains(g, "{") {
			continue
		}
		for range 8 {
			var pb strings.Builder
			pb.WriteString("/")
			for range rng.IntN(6) {
				pb.WriteString(pathAlpha[rng.IntN(len(pathAlpha))])
			}
			path := pb.String()
			rs := roots[rng.IntN(len(roots))]
			ref := &refMatcher{}
			want := ref.match(g, path, rs)
			got, n := p.match(path, rs)
			if got != want {
				t.Fatalf("glob %q path %q roots %q: got %v, want %v", g, path, rs, got, want)
			}
			if m := p.Match(path, rs); m != got {
				t.Fatalf("DFA: glob %q path %q roots %q: p.Match(path, rs) = %v, want %v", g, path, rs, m, got)
			}
			if got, want := p.MatchTailOrParent(path), parentsMatch(p, path); got != want {
				t.Fatalf("glob %q path %q: p.MatchTailOrParent(path) = %v, want %v", g, path, got, want)
			}
			if got {
				matched++
			}
			if got := n; got > stepBound(p, path) {
				t.Fatalf("n = %v, want <= %v", got, stepBound(p, path))
			}
			compared++
		}
	}
	if got := compared; got <= 20000 {
		t.Fatalf("too few patterns compared: the generator or the filters are off: compared = %v, want > %v", got, 20000)
	}
	if got := matched; got <= compared/20 {
		t.Fatalf("too few matches: the comparison says little: matched = %v, want > %v", got, compared/20)
	}
	t.Logf("%d comparisons, %d matches", compared, matched)
}

func FuzzCompileMatch(f *testing.F) {
	for _, s := range []string{"**/*.jsonl", "{a,b{c,d}}/**/x?[a-z]", "a/{,b}", "[", "\\", "{**,a}/b", "**/*" + strings.Repeat("{a,b}", 24)} {
		f.Add(s, "/work/a/b.jsonl")
	}
	f.Fuzz(func(t *testing.T, g, path string) {
		p, err := Compile(g)
		if err != nil {
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatal("errors.As(err, &ge) = false, want true")
			}
			return
		}
		for _, roots := range [][]string{nil, {"/work"}} {
			_, n := p.match(path, roots)
			if got := n; got > stepBound(p, path) {
				t.Fatalf("n = %v, want <= %v", got, stepBound(p, path))
			}
		}
		ok, n := p.run(p.anchored, strings.Trim(path, "/"))
		if got := n; got > stepBound(p, path) {
			t.Fatalf("n = %v, want <= %v", got, stepBound(p, path))
		}
		if got, want := p.MatchWhole(path), ok; got != want {
			t.Fatalf("p.MatchWhole(path) = %v, want %v", got, want)
		}
		if got, want := p.MatchTailOrParent(path), parentsMatch(p, path); got != want {
			t.Fatalf("p.MatchTailOrParent(path) = %v, want %v", got, want)
		}
	})
}

// parentsMatch is MatchTailOrParent the slow way: MatchTail of the path,
// then of each parent, on the NFA.
func parentsMatch(p *Pattern, path string) bool {
	start := p.anywhere
	if p.absolute {
		start = p.anchored
	}
	for q := strings.Trim(path, "/"); ; {
		if ok, _ := p.run(start, q); ok {
			return true
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return false
		}
		q = strings.TrimRight(q[:i], "/")
	}
}

// TestDeepTreeLinear: every directory of a deep tree asked about in turn
// (as a search does) costs the simulation about one path's work in all:
// the DFA remembers the states of the shared directories. Matching each
// path on the NFA cost depth × path, and asking about each parent of each
// path (how exclude was checked) depth² × path: 1 KiB globs over a tree
// 400 deep took more than 2 minutes. And one path costs few steps per
// character: a live "**" loop prunes the threads of the "**"s before it
// (354,007 steps for this path before, a thread per "**" reached).
func TestDeepTreeLinear(t *testing.T) {
	p := mustCompile(t, strings.Repeat("**/a/", 100)+"zz")
	const depth = 300
	path := strings.TrimSuffix(strings.Repeat("a/", depth), "/")
	_, one := p.run(p.anywhere, path)
	nfa := 0
	for d := 1; d <= depth; d++ {
		q := path[:2*d-1]
		if p.MatchTailOrParent(q) {
			t.Fatal("p.MatchTailOrParent(q) = true, want false")
		}
		_, n := p.run(p.anywhere, q)
		nfa += n
	}
	dfaSteps := p.dfa.m.steps
	t.Logf("one path: %d steps; every directory: NFA %d, DFA %d", one, nfa, dfaSteps)
	if got := dfaSteps; got > 2*one {
		t.Fatalf("dfaSteps = %v, want <= %v", got, 2*one)
	}
	if got := one; got > 40*len(path) {
		t.Fatalf("steps per character of one path: one = %v, want <= %v", got, 40*len(path))
	}
	if got := nfa; got <= 100*one/2 {
		t.Fatalf("the NFA alone is quadratic here: the test shows nothing: nfa = %v, want > %v", got, 100*one/2)
	}
}

// TestDFABudget: a cache at its bound stops growing and the simulation
// goes on without it; the answers do not change.
func TestDFABudget(t *testing.T) {
	p := mustCompile(t, "**/*x")
	for i := range 3 * p.dfaBudget() {
		r := rune(0x4e00 + i%20000)
		path := "d/" + string(r) + "x"
		if !p.MatchTail(path) {
			t.Fatalf("%q: p.MatchTail(path) = false, want true", path)
		}
		if p.MatchTail(path + "y") {
			t.Fatalf(`%q: p.MatchTail(path+"y") = true, want false`, path)
		}
		if got := p.dfa.size; got > p.dfaBudget()+1 {
			t.Fatalf("p.dfa.size = %v, want <= %v", got, p.dfaBudget()+1)
		}
	}
}

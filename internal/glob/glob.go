// Package glob matches slash-separated paths against VS Code style globs:
// "*" (any run of characters within one path segment), "?" (one character
// within a segment), "[...]" (one character of a class, "^" negates, as
// path.Match has it), "\x" (x literally), "{a,b}" (alternatives, nested, may
// span segments) and "**" as a whole segment (any number of segments,
// including none).
//
// Matching is linear in pattern × path: a pattern compiles once to a
// Thompson NFA whose alternatives share states, and a match simulates all of
// its states in one pass over the path. Nothing is expanded into the 2^k
// patterns that k brace groups stand for, and "**" does not backtrack. The
// size of a pattern, of its brace groups and of a list of patterns is
// bounded (Max*), and anything past a bound is refused with an error, so a
// hostile configuration cannot make one match expensive.
package glob

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds on what Compile and CompileList accept.
const (
	// MaxPatternLen is the longest pattern, in bytes.
	MaxPatternLen = 1024
	// MaxBraceGroups is the number of {…} groups one pattern may have.
	MaxBraceGroups = 32
	// MaxBraceDepth is how deeply {…} groups may nest.
	MaxBraceDepth = 8
	// MaxPatterns is the number of patterns in one list.
	MaxPatterns = 128
	// MaxListLen bounds the total bytes of a list's patterns: matching a
	// path against a list costs at most about MaxListLen × the path's length.
	MaxListLen = 4096
)

// Error is a pattern that cannot be compiled.
type Error struct {
	Pattern string
	// Offset is the byte offset in Pattern the problem was found at, or -1
	// when the problem is the pattern as a whole.
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("glob %q: %s", e.Pattern, e.Msg)
	}
	return fmt.Sprintf("glob %q: %s (at byte %d)", e.Pattern, e.Msg, e.Offset+1)
}

// Pattern is a compiled glob. It is immutable and safe for concurrent use.
type Pattern struct {
	src      string
	absolute bool
	states   []state
	classes  []class
	anchored int32 // start state for a match of the whole path
	anywhere int32 // start state for a match of any trailing part
	dfa      dfa   // transitions computed so far (see dfa.go)
}

// String returns the pattern as it was given.
func (p *Pattern) String() string { return p.src }

// Absolute reports whether the pattern starts with "/": it then always
// matches the whole path.
func (p *Pattern) Absolute() bool { return p.absolute }

// Compile parses a glob. A leading "/" makes it absolute; slashes at
// either end say nothing more ("logs/" is "logs"); "a//b" matches only
// "a//b" (an empty segment, as the path has it).
//
// Escapes and [...] classes bind tighter than braces ("{[a,b],c}" is a
// class or c; "\{" is a literal brace), as in VS Code.
//
// Patterns whose meaning would depend on how brace alternatives are glued
// together (a "**" or "*" that touches another "*" across a brace, a "/"
// that an empty alternative can move to the pattern's edge, a pattern that
// can expand to nothing) are refused rather than guessed at.
func Compile(pattern string) (*Pattern, error) {
	if len(pattern) > MaxPatternLen {
		return nil, &Error{Pattern: truncate(pattern), Offset: -1,
			Msg: fmt.Sprintf("longer than %d bytes", MaxPatternLen)}
	}
	if strings.TrimSpace(pattern) == "" {
		return nil, &Error{Pattern: pattern, Offset: -1, Msg: "empty pattern"}
	}
	if !utf8.ValidString(pattern) {
		return nil, &Error{Pattern: pattern, Offset: -1, Msg: "not valid UTF-8"}
	}
	p := &Pattern{src: pattern, absolute: strings.HasPrefix(pattern, "/")}
	// Slashes at the ends say nothing ("logs/" is "logs"); the offsets in
	// errors stay those of the pattern as given.
	lead := len(pattern) - len(strings.TrimLeft(pattern, "/"))
	body := strings.TrimRight(pattern[lead:], "/")
	ps := &parser{src: pattern, pos: lead, end: lead + len(body)}
	seq, err := ps.parseSeq(0)
	if err != nil {
		return nil, err
	}
	// Wrap in slashes so that every segment, the first and the last too,
	// has a "/" on either side: a "**" segment then always sits between two
	// slashes and the path is wrapped the same way (see wrap).
	wrapped := []node{{kind: nEdge}}
	if body != "" {
		wrapped = append(wrapped, seq...)
		wrapped = append(wrapped, node{kind: nEdge, end: true})
	}
	if body != "" && nullable(seq) {
		return nil, &Error{Pattern: pattern, Offset: -1, Msg: "some {…} alternative makes the pattern empty"}
	}
	c := &compiler{p: p}
	c.context(wrapped)
	if c.err != nil {
		return nil, c.err
	}
	matchState := c.add(state{op: opMatch})
	p.anchored = c.seq(wrapped, matchState)
	// Anywhere: "/" "**" then the pattern, so "**" may skip any leading
	// segments (the pattern starts with its own "/").
	loop := c.add(state{op: opGlobLoop, out: p.anchored})
	g := c.add(state{op: opGlob, out: p.anchored, out1: loop})
	p.anywhere = c.add(state{op: opLit, r: '/', out: g})
	p.classes = c.classes
	return p, nil
}

func truncate(s string) string {
	if len(s) <= 64 {
		return s
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Match reports whether the slash-separated path matches, with the
// language server's rule for relative patterns: an absolute pattern must
// match the whole path; a relative one matches the path relative to the
// first of roots that contains it, or, when the path is under none of them,
// any trailing part of the path (so "sessions/*.jsonl" finds
// /x/sessions/a.jsonl).
func (p *Pattern) Match(path string, roots []string) bool {
	start, t, ok := p.target(path, roots)
	return ok && p.exec(start, t, false)
}

// match is Match on the NFA alone, with the steps it took (tests hold
// them to the linear bound).
func (p *Pattern) match(path string, roots []string) (bool, int) {
	start, t, ok := p.target(path, roots)
	if !ok {
		return false, 0
	}
	return p.run(start, t)
}

// target is where Match starts and the path it reads; ok is false when
// nothing can match.
func (p *Pattern) target(path string, roots []string) (int32, string, bool) {
	if p.absolute {
		return p.anchored, strings.Trim(path, "/"), true
	}
	for _, root := range roots {
		if rel, ok := under(path, root); ok {
			return p.anchored, rel, true
		}
	}
	t := strings.Trim(path, "/")
	if t == "" {
		return 0, "", false // the empty path has no trailing part to match
	}
	return p.anywhere, t, true
}

// MatchWhole reports whether the pattern matches the whole path (leading
// and trailing slashes of the path are ignored).
func (p *Pattern) MatchWhole(path string) bool {
	return p.exec(p.anchored, strings.Trim(path, "/"), false)
}

// MatchTail reports whether the pattern matches the path or a trailing part
// of it made of whole segments ("b/c.jsonl" and "c.jsonl" of "a/b/c.jsonl").
// An absolute pattern matches the whole path only.
func (p *Pattern) MatchTail(path string) bool {
	if p.absolute {
		return p.MatchWhole(path)
	}
	return p.exec(p.anywhere, strings.Trim(path, "/"), false)
}

// MatchTailOrParent reports whether MatchTail matches the path or one of
// its parents ("a/b/c", "a/b" or "a" of "a/b/c"), as an exclude glob that
// names a directory excludes what is under it. One pass over the path
// answers for all of them: asking MatchTail of each parent in turn costs
// depth × length, which for a deep tree's every file and directory made
// exclusion cubic in the tree's depth.
func (p *Pattern) MatchTailOrParent(path string) bool {
	t := strings.Trim(path, "/")
	start := p.anywhere
	if p.absolute {
		start = p.anchored
	}
	return p.exec(start, t, true)
}

// MatchWholeOrParent is MatchTailOrParent for MatchWhole.
func (p *Pattern) MatchWholeOrParent(path string) bool {
	return p.exec(p.anchored, strings.Trim(path, "/"), true)
}

// under returns path relative to root when root's segments are a prefix of
// path's: the segments after root's, joined by "/" (the first may be empty:
// "/r//x" under "/r" is "/x", an empty segment then "x").
func under(path, root string) (string, bool) {
	p := strings.Trim(path, "/")
	r := strings.Trim(root, "/")
	if r == "" {
		return p, true
	}
	if p == r {
		return "", true
	}
	if strings.HasPrefix(p, r) && p[len(r)] == '/' {
		return p[len(r)+1:], true
	}
	return "", false
}

// List is a compiled list of patterns; a path matches the list when it
// matches one of them.
type List struct {
	pats []*Pattern
}

// CompileList compiles patterns, refusing more than MaxPatterns of them or
// more than MaxListLen bytes in all. The error names the first bad pattern
// and its index.
func CompileList(patterns []string) (*List, error) {
	if len(patterns) > MaxPatterns {
		return nil, fmt.Errorf("%d globs: at most %d are allowed", len(patterns), MaxPatterns)
	}
	total := 0
	for _, g := range patterns {
		total += len(g)
	}
	if total > MaxListLen {
		return nil, fmt.Errorf("the globs have %d bytes in all: at most %d are allowed", total, MaxListLen)
	}
	l := &List{pats: make([]*Pattern, 0, len(patterns))}
	for i, g := range patterns {
		p, err := Compile(g)
		if err != nil {
			return nil, &ListError{Index: i, Err: err}
		}
		l.pats = append(l.pats, p)
	}
	return l, nil
}

// ListError is the error of one pattern of a list.
type ListError struct {
	Index int
	Err   error
}

func (e *ListError) Error() string { return e.Err.Error() }
func (e *ListError) Unwrap() error { return e.Err }

// Len is the number of patterns.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.pats)
}

// Patterns returns the compiled patterns, in order.
func (l *List) Patterns() []*Pattern {
	if l == nil {
		return nil
	}
	return l.pats
}

// Match reports whether path matches one of the patterns (see
// Pattern.Match).
func (l *List) Match(path string, roots []string) bool {
	if l == nil {
		return false
	}
	for _, p := range l.pats {
		if p.Match(path, roots) {
			return true
		}
	}
	return false
}

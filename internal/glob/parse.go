package glob

import (
	"fmt"
	"unicode/utf8"
)

type nodeKind uint8

const (
	nLit   nodeKind = iota // one character, r ("/" included)
	nAny                   // "?"
	nStars                 // a run of n "*"
	nClass                 // "[...]"
	nAlt                   // "{a,b}"
	nEdge                  // the "/" wrapped around the pattern
)

// node is one item of a parsed pattern.
type node struct {
	kind nodeKind
	r    rune
	n    int // nStars: how many
	cls  class
	alts [][]node
	off  int  // byte offset in the pattern, for errors
	end  bool // nEdge: the closing one
	// Filled by compiler.context: which kinds of character can stand just
	// before and just after this item, over every brace expansion.
	left, right kinds
	glob        bool // nStars: a "**" segment
}

// parser reads src[pos:end].
type parser struct {
	src      string
	pos, end int
	groups   int
}

func (ps *parser) errorf(off int, format string, args ...any) error {
	return &Error{Pattern: ps.src, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// parseSeq reads items up to the end, or, inside a brace group (depth > 0),
// up to the "," or "}" that ends the alternative.
func (ps *parser) parseSeq(depth int) ([]node, error) {
	var seq []node
	for ps.pos < ps.end {
		c := ps.src[ps.pos]
		off := ps.pos
		switch {
		case depth > 0 && (c == ',' || c == '}'):
			return seq, nil
		case c == '{':
			ps.groups++
			if ps.groups > MaxBraceGroups {
				return nil, ps.errorf(off, "more than %d {…} groups", MaxBraceGroups)
			}
			if depth+1 > MaxBraceDepth {
				return nil, ps.errorf(off, "{…} groups nested more than %d deep", MaxBraceDepth)
			}
			ps.pos++
			var alts [][]node
			for {
				alt, err := ps.parseSeq(depth + 1)
				if err != nil {
					return nil, err
				}
				alts = append(alts, alt)
				if ps.pos >= ps.end {
					return nil, ps.errorf(off, "unclosed '{'")
				}
				ps.pos++
				if ps.src[ps.pos-1] == '}' {
					break
				}
			}
			seq = append(seq, node{kind: nAlt, alts: alts, off: off})
		case c == '}':
			return nil, ps.errorf(off, `unmatched '}' (write \} for the character)`)
		case c == '*':
			n := 0
			for ps.pos < ps.end && ps.src[ps.pos] == '*' {
				n++
				ps.pos++
			}
			seq = append(seq, node{kind: nStars, n: n, off: off})
		case c == '?':
			ps.pos++
			seq = append(seq, node{kind: nAny, off: off})
		case c == '[':
			cls, err := ps.parseClass()
			if err != nil {
				return nil, err
			}
			seq = append(seq, node{kind: nClass, cls: cls, off: off})
		case c == '\\':
			ps.pos++
			if ps.pos >= ps.end {
				return nil, ps.errorf(off, `'\' at the end escapes nothing`)
			}
			r, w := utf8.DecodeRuneInString(ps.src[ps.pos:ps.end])
			if r == '/' {
				return nil, ps.errorf(off, `'/' cannot be escaped: it always separates segments`)
			}
			ps.pos += w
			seq = append(seq, node{kind: nLit, r: r, off: off})
		default:
			r, w := utf8.DecodeRuneInString(ps.src[ps.pos:ps.end])
			ps.pos += w
			seq = append(seq, node{kind: nLit, r: r, off: off})
		}
	}
	return seq, nil
}

// class is a character class: one character (never "/") in one of the
// ranges, or in none of them when negated.
type class struct {
	negated bool
	ranges  []runeRange
}

type runeRange struct{ lo, hi rune }

func (c *class) matches(r rune) bool {
	in := false
	for _, rg := range c.ranges {
		if rg.lo <= r && r <= rg.hi {
			in = true
			break
		}
	}
	return in != c.negated
}

// parseClass reads "[...]" with path.Match's syntax: "^" first negates,
// "a-z" is a range, "\x" is x, and a class holds at least one range.
func (ps *parser) parseClass() (class, error) {
	open := ps.pos
	ps.pos++ // '['
	var c class
	if ps.pos < ps.end && ps.src[ps.pos] == '^' {
		c.negated = true
		ps.pos++
	}
	for {
		if ps.pos < ps.end && ps.src[ps.pos] == ']' && len(c.ranges) > 0 {
			ps.pos++
			return c, nil
		}
		lo, err := ps.classChar(open)
		if err != nil {
			return class{}, err
		}
		hi := lo
		if ps.pos < ps.end && ps.src[ps.pos] == '-' {
			ps.pos++
			if hi, err = ps.classChar(open); err != nil {
				return class{}, err
			}
		}
		c.ranges = append(c.ranges, runeRange{lo, hi})
	}
}

func (ps *parser) classChar(open int) (rune, error) {
	if ps.pos >= ps.end {
		return 0, ps.errorf(open, "unclosed '['")
	}
	off := ps.pos
	switch ps.src[ps.pos] {
	case '-', ']':
		return 0, ps.errorf(off, `'%c' in [...] must be escaped (\%c) where it is not a range or the end`, ps.src[off], ps.src[off])
	case '\\':
		ps.pos++
		if ps.pos >= ps.end {
			return 0, ps.errorf(open, "unclosed '['")
		}
	}
	r, w := utf8.DecodeRuneInString(ps.src[ps.pos:ps.end])
	if r == '/' {
		return 0, ps.errorf(off, "'/' cannot be in [...]: a class matches one character within a segment")
	}
	ps.pos += w
	return r, nil
}

// nullable reports whether seq can expand to no text at all.
func nullable(seq []node) bool {
	for _, n := range seq {
		if n.kind != nAlt {
			return false
		}
		empty := false
		for _, a := range n.alts {
			if nullable(a) {
				empty = true
				break
			}
		}
		if !empty {
			return false
		}
	}
	return true
}

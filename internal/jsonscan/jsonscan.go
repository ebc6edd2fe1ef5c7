// Package jsonscan is a scanner of JSON text: it finds the end of a
// value, and the members of an object or elements of an array, by their
// byte offsets, without building values. It is meant for text JSON.parse
// has accepted, but stays within b on any input (never panics, never
// recurses: nesting is walked with a counter); a bad input gives -1 or
// wrong offsets, not a crash. The dialects read records with it
// (analysis/dialect/claude, analysis/dialect/codex).
package jsonscan

import "bytes"

// SkipWS returns the first offset at or after i that is not JSON whitespace.
func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// StringEnd returns the offset of the quote that closes a string whose
// content begins at b[i], or -1: the next '"' not escaped (preceded by an
// even run of backslashes), found with IndexByte, since tool outputs make
// long strings.
func StringEnd(b []byte, i int) int {
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		k := q
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q
		}
		i = q + 1
	}
	return -1
}

// SkipValue returns the offset just past the value that starts at b[i], or
// -1 when it does not end within b, or b[i] starts none (i is past the end,
// or b[i] is a delimiter). The scan only follows strings and brackets.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		e := StringEnd(b, i+1)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := StringEnd(b, i+1)
				if e < 0 {
					return -1
				}
				i = e
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && !IsDelim(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// IsDelim reports whether c ends a number or a literal: a separator, a
// closing bracket or whitespace.
func IsDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// Each walks the object or array whose opening bracket is b[at]: item is
// called at the offset of each member (its key's quote) or element, and
// returns the offset just past it, or -1 to stop. Each reports whether the
// brackets closed with every separator in place: false when b[at] is no
// '{' or '[', when item stops, or when b ends or holds anything else
// where a ',' or the closing bracket belongs.
func Each(b []byte, at int, item func(i int) int) bool {
	if at >= len(b) || (b[at] != '{' && b[at] != '[') {
		return false
	}
	closing := byte('}')
	if b[at] == '[' {
		closing = ']'
	}
	i := SkipWS(b, at+1)
	if i < len(b) && b[i] == closing {
		return true
	}
	for i < len(b) {
		end := item(i)
		if end < 0 {
			return false
		}
		i = SkipWS(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case closing:
			return true
		case ',':
			i = SkipWS(b, i+1)
		default:
			return false
		}
	}
	return false
}

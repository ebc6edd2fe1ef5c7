// Package textfmt words numbers for people, the same way in every message
// sessionls shows: findings, code lenses, hovers and CLI summaries; and lays
// out text and JSON for them (Wrap, JSON, Sanitize).
package textfmt

import (
	"fmt"
	"strconv"
)

// Integer is any integer type a count or a size comes in.
type Integer interface {
	~int | ~int32 | ~int64
}

// Thousands renders n with "," between groups of three digits: 8000 → "8,000".
func Thousands[N Integer](n N) string { return string(AppendThousands(nil, int64(n))) }

// AppendThousands appends Thousands(n) to b.
func AppendThousands(b []byte, n int64) []byte {
	var digits [24]byte
	s := strconv.AppendInt(digits[:0], n, 10)
	if n < 0 {
		b = append(b, '-')
		s = s[1:]
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return b
}

// Plural renders "1 message" or "2,048 messages".
func Plural[N Integer](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// LineRange renders "line 3" or "lines 3–7".
func LineRange(a, b int) string {
	if a == b {
		return "line " + strconv.Itoa(a)
	}
	return fmt.Sprintf("lines %d–%d", a, b)
}

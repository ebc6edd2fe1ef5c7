package line

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
)

// FormatNumber writes f the way JavaScript's Number.prototype.toString (and
// so JSON.stringify) does: the shortest digits that round-trip, laid out
// plainly for 1e-7 < |f| < 1e21 and exponentially otherwise ("1e+21",
// "1.5e-7"); -0 is "0" and the infinities are "null" as in JSON.stringify.
func FormatNumber(f float64) string {
	var buf [32]byte
	return string(appendFloat(buf[:0], f))
}

// appendFloat appends FormatNumber(f) to dst.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// "d.ddddde±x": the shortest round-trip digits and the exponent.
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	e := bytes.IndexByte(s, 'e')
	var dbuf [24]byte
	digits := append(append(dbuf[:0], s[0]), s[min(2, e):e]...) // without the point
	exp, _ := strconv.Atoi(string(s[e+1:]))
	k := len(digits)
	n := exp + 1 // value = 0.digits × 10^n, in the terms of ECMA-262 Number::toString
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// numberLen is len(FormatNumber(f)), found without building the string.
func numberLen(f float64) int {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return len("null")
	}
	if f == 0 {
		return 1
	}
	sign := 0
	if f < 0 {
		sign = 1
		f = -f
	}
	// "d.ddddde±xx": the shortest round-trip digits, then the exponent of
	// two or three digits.
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp := 0
	for _, c := range s[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if s[e+1] == '-' {
		exp = -exp
	}
	k := e // digits, without the point
	if k > 1 {
		k--
	}
	n := exp + 1 // value = 0.digits × 10^n, as in FormatNumber
	switch {
	case k <= n && n <= 21:
		return sign + n
	case 0 < n && n <= 21:
		return sign + k + 1
	case -6 < n && n <= 0:
		return sign + 2 - n + k
	}
	size := sign + k + len("e+")
	if k > 1 {
		size++ // the point
	}
	switch x := max(n-1, 1-n); {
	case x >= 100:
		return size + 3
	case x >= 10:
		return size + 2
	}
	return size + 1
}

// maxShortLiteral is the longest literal handed to strconv.ParseFloat as
// written. ParseFloat rounds correctly only while it holds every digit (it
// keeps 800, and then misplaces the decimal point of a longer integer part)
// and while the exponent it reads is exact or the value is out of range
// anyway (it stops reading an exponent past 10,000, so leading zeros can
// no longer balance it). A literal this short satisfies both.
const maxShortLiteral = 64

// numberCost is the length of JSON.stringify of the number literal lit
// (already validated against the JSON grammar): len(appendNumber(nil, lit)),
// found without writing it.
func numberCost(lit []byte) int {
	if plainInteger(lit) {
		if len(lit) == 2 && lit[0] == '-' && lit[1] == '0' {
			return 1
		}
		return len(lit)
	}
	return numberLen(numberValue(lit))
}

// appendNumber appends JSON.stringify of the number literal lit (already
// validated against the JSON grammar): JavaScript's Number::toString of the
// double JSON.parse reads, exact for a literal of any length. The character
// cost (numberCost) and the stringified text (AppendStringify) both read the
// literal with numberValue, so they cannot disagree.
func appendNumber(dst, lit []byte) []byte {
	if plainInteger(lit) {
		if len(lit) == 2 && lit[0] == '-' && lit[1] == '0' {
			return append(dst, '0')
		}
		return append(dst, lit...)
	}
	return appendFloat(dst, numberValue(lit))
}

// plainInteger reports whether lit is an integer of at most 15 digits: exact
// in a double, it prints as written (except "-0", which prints as "0").
func plainInteger(lit []byte) bool {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// numberValue returns the double JSON.parse reads from the literal lit
// (already validated against the JSON grammar), of any length.
func numberValue(lit []byte) float64 {
	if len(lit) <= maxShortLiteral {
		// The grammar is already checked, so the only possible error is
		// ErrRange, whose value (±Inf or a rounded-to-zero) is what V8
		// gets too.
		f, _ := strconv.ParseFloat(string(lit), 64)
		return f
	}
	return parseNumber(lit)
}

const (
	// keptDigits significant digits decide the rounding of any decimal to
	// a double: a halfway point between two doubles has at most 768
	// significant digits (the most for (2^54-1)·2^-1075), so no halfway
	// point lies strictly between a value and its first 768 or more
	// digits. The digits past them matter only
	// through whether any is nonzero (the sticky digit): a '1' put after
	// the kept ones stands for them, on the same side of every halfway
	// point. 799 + 1 digits fit ParseFloat's 800-digit buffer.
	keptDigits = 799
	// expCap bounds the exponent read from a literal: reading stops once
	// it is reached. Past it the value is ±Inf or 0 whatever else the
	// literal holds, since its digits move the point by at most len(lit),
	// far less than 2^53 in any real memory; and expCap*10 + 9 still fits
	// an int64.
	expCap = 1 << 53
)

// parseNumber returns the double nearest to the JSON number literal lit
// (ties to even), as V8's JSON.parse reads it, for a literal of any length
// (lit must match the JSON grammar): time linear in len(lit), memory
// independent of it (a huge exponent is read only until it settles the
// answer). It normalises lit to
// 0.d1d2…dk × 10^point with d1 nonzero, settles values far outside the
// double range at once, and hands strconv.ParseFloat the first keptDigits
// digits, a sticky digit and the exponent, a form it rounds correctly.
func parseNumber(lit []byte) float64 {
	var buf [len("-0.") + keptDigits + len("1e-") + 20]byte
	out := buf[:0]
	zero, inf := 0.0, math.Inf(1)
	if lit[0] == '-' {
		zero, inf = math.Copysign(0, -1), math.Inf(-1)
		out = append(out, '-')
		lit = lit[1:]
	}
	out = append(out, "0."...)

	// The digits end at the exponent; the grammar allows at most one point
	// among them, so the place of each is found by the fast IndexByte.
	end := len(lit)
	if e := bytes.IndexByte(lit, 'e'); e >= 0 {
		end = e
	} else if e := bytes.IndexByte(lit, 'E'); e >= 0 {
		end = e
	}
	mant := lit[:end]
	intDigits := len(mant) // digits before the point
	dot := bytes.IndexByte(mant, '.')
	if dot >= 0 {
		intDigits = dot
	}
	// Zeros before the first nonzero digit only move the point.
	i := zeroRun(mant)
	leading := i
	if i == dot {
		i++
		leading += zeroRun(mant[i:])
		i = leading + 1
	}
	if i == len(mant) {
		return zero
	}
	// The first keptDigits digits, with the point, if among them, left out.
	j := min(len(mant), i+keptDigits)
	if dot >= i && dot < j {
		j = min(len(mant), j+1)
		out = append(out, mant[i:dot]...)
		out = append(out, mant[dot+1:j]...)
	} else {
		out = append(out, mant[i:j]...)
	}
	i = j
	// Whether any digit left is nonzero.
	var sticky bool
	if dot >= i {
		sticky = zeroRun(mant[i:dot]) < dot-i || zeroRun(mant[dot+1:]) < len(mant)-dot-1
	} else {
		sticky = zeroRun(mant[i:]) < len(mant)-i
	}

	var exp int64
	if end < len(lit) {
		digits := lit[end+1:]
		neg := digits[0] == '-'
		if digits[0] == '-' || digits[0] == '+' {
			digits = digits[1:]
		}
		for _, c := range digits {
			exp = exp*10 + int64(c-'0')
			if exp >= expCap {
				break // the rest can only make it larger
			}
		}
		if neg {
			exp = -exp
		}
	}
	point := int64(intDigits) - int64(leading) + exp
	switch {
	case point > 310: // at least 10^310
		return inf
	case point < -323: // below 10^-324, under half the least subnormal
		return zero
	}
	if sticky {
		out = append(out, '1')
	}
	out = append(out, 'e')
	out = strconv.AppendInt(out, point, 10)
	// The exponent is small and the digits fit ParseFloat's buffer, so its
	// only possible error is ErrRange, with the correctly rounded ±Inf or 0.
	f, _ := strconv.ParseFloat(string(out), 64)
	return f
}

// zeroRun returns the number of '0' bytes b starts with, looking at eight
// at a time: a hostile literal may hold hundreds of megabytes of zeros.
func zeroRun(b []byte) int {
	const zeros = 0x3030303030303030 // "00000000"
	n := 0
	for len(b)-n >= 8 && binary.LittleEndian.Uint64(b[n:]) == zeros {
		n += 8
	}
	for n < len(b) && b[n] == '0' {
		n++
	}
	return n
}

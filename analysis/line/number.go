package line

import (
	"math"
	"strconv"
	"strings"
)

// FormatNumber writes f the way JavaScript's Number.prototype.toString (and
// so JSON.stringify) does: the shortest digits that round-trip, laid out
// plainly for 1e-7 < |f| < 1e21 and exponentially otherwise ("1e+21",
// "1.5e-7"); -0 is "0" and the infinities are "null" as in JSON.stringify.
func FormatNumber(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	var sb strings.Builder
	if f < 0 {
		sb.WriteByte('-')
		f = -f
	}
	// "d.ddddde±x": the shortest round-trip digits and the exponent.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	e := strings.IndexByte(s, 'e')
	digits := strings.Replace(s[:e], ".", "", 1)
	exp, _ := strconv.Atoi(s[e+1:])
	k := len(digits)
	n := exp + 1 // value = 0.digits × 10^n, in the terms of ECMA-262 Number::toString
	switch {
	case k <= n && n <= 21:
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		sb.WriteString(digits[:n])
		sb.WriteByte('.')
		sb.WriteString(digits[n:])
	case -6 < n && n <= 0:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -n))
		sb.WriteString(digits)
	default:
		sb.WriteByte(digits[0])
		if k > 1 {
			sb.WriteByte('.')
			sb.WriteString(digits[1:])
		}
		sb.WriteByte('e')
		if n-1 >= 0 {
			sb.WriteByte('+')
		}
		sb.WriteString(strconv.Itoa(n - 1))
	}
	return sb.String()
}

// numberCost is the length of JSON.stringify of the number literal lit
// (already validated against the JSON grammar).
func numberCost(lit []byte) int {
	// Fast path: an integer of at most 15 digits is exact in a double and
	// prints as written, except "-0" which prints as "0".
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 0 && len(digits) <= 15 {
		simple := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				simple = false
				break
			}
		}
		if simple {
			if len(lit) == 2 && lit[0] == '-' && lit[1] == '0' {
				return 1
			}
			return len(lit)
		}
	}
	// The grammar is already checked, so the only possible error is
	// ErrRange, whose value (±Inf or a rounded-to-zero) is what V8 gets too.
	f, _ := strconv.ParseFloat(string(lit), 64)
	return len(FormatNumber(f))
}

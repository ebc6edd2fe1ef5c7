package line

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Builders of number literals for the tests of parseNumber: exact decimal
// midpoints between neighbouring doubles, written in many layouts and
// lengths, and an exact reference reading with math/big.

// midpoint returns the exact decimal value of the point halfway between
// the finite a >= 0 and the next double up (2^1024 after MaxFloat64), as
// significant digits (first nonzero, last nonzero) and the point: the
// midpoint is 0.digits × 10^point.
func midpoint(a float64) (digits string, point int) {
	const prec = 2200 // far more than the two neighbours' 1,100-bit span
	lo := new(big.Float).SetPrec(prec).SetFloat64(a)
	hi := new(big.Float).SetPrec(prec)
	if a == math.MaxFloat64 {
		hi.SetMantExp(big.NewFloat(1), 1024)
	} else {
		hi.SetFloat64(math.Nextafter(a, math.Inf(1)))
	}
	m := new(big.Float).SetPrec(prec).Add(lo, hi)
	m.SetMantExp(m, -1)
	// A midpoint has at most 768 significant digits, so 900 are exact.
	s := m.Text('e', 900)
	e := strings.IndexByte(s, 'e')
	exp, err := strconv.Atoi(s[e+1:])
	if err != nil {
		panic("big.Float.Text wrote a bad exponent: " + s[e:])
	}
	digits = strings.TrimRight(strings.Replace(s[:e], ".", "", 1), "0")
	return digits, exp + 1
}

// roundsTo is the double a value just below (side -1), exactly at (0) or
// just above (+1) the midpoint after a reads as, per IEEE round to
// nearest, ties to even.
func roundsTo(a float64, side int) float64 {
	hi := math.Nextafter(a, math.Inf(1)) // +Inf after MaxFloat64, as wanted
	switch {
	case side < 0:
		return a
	case side > 0:
		return hi
	case math.Float64bits(a)&1 == 0:
		return a
	}
	return hi
}

// hair is how many digits the tests' "a hair above" and "a hair below"
// reach at least: a change in the 25th digit is far less than half an ulp.
const hair = 25

// above returns digits made a little larger: pad zeros (at least up to
// the hair-th digit), then a 1.
func above(digits string, pad int) string {
	return digits + strings.Repeat("0", max(pad, hair-len(digits))) + "1"
}

// below returns 0.digits × 10^point (digits ending in a nonzero digit)
// made a little smaller: the last digit one less, then tail nines (at
// least up to the hair-th digit).
func below(digits string, point, tail int) (string, int) {
	last := digits[len(digits)-1] - 1
	digits = digits[:len(digits)-1] + string(last) + strings.Repeat("9", max(tail, hair-len(digits)))
	if digits[0] == '0' { // 0.1 × 10^p became 0.0999… × 10^p
		return digits[1:], point - 1
	}
	return digits, point
}

// layout writes 0.digits × 10^point as a JSON literal of one of several
// shapes, with pad extra zeros where the shape puts them. digits must not
// start with '0'.
func layout(shape int, neg bool, digits string, point int64, pad int) string {
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	z := strings.Repeat("0", pad)
	exp := func(e int64) {
		b.WriteByte('e')
		if e >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.FormatInt(e, 10))
	}
	switch shape % 6 {
	case 0: // leading zeros after the point: 0.000…digits e+N
		b.WriteString("0." + z + digits)
		exp(point + int64(pad))
	case 1: // all digits before the point, then trailing zeros: digits000…e-N
		b.WriteString(digits + z)
		exp(point - int64(len(digits)+pad))
	case 2: // d.ddd with trailing zeros after the point
		b.WriteString(digits[:1] + "." + digits[1:] + z)
		exp(point - 1)
	case 3: // upper-case E and an exponent written with leading zeros
		b.WriteString(digits[:1] + "." + digits[1:])
		e := point - 1
		b.WriteString("E")
		if e < 0 {
			b.WriteByte('-')
			e = -e
		}
		b.WriteString(z + strconv.FormatInt(e, 10))
	case 4: // the point inside the digits, no exponent when it fits
		if point > 0 && point < int64(len(digits)) {
			b.WriteString(digits[:point] + "." + digits[point:] + z)
			break
		}
		b.WriteString("0." + digits + z)
		exp(point)
	default: // half the padding before, half after
		b.WriteString("0." + z[:pad/2] + digits + z[pad/2:])
		exp(point + int64(pad/2))
	}
	return b.String()
}

// refNumber reads a JSON number literal exactly and rounds it once to the
// nearest double, ties to even: big.Int arithmetic finds where the point
// lands, and big.Rat rounds the significant digits when that is anywhere
// near the double range. It is the tests' reference, written apart from
// parseNumber (no sticky digit, no ParseFloat); it is slow on long
// literals, and panics on a literal outside the JSON grammar.
func refNumber(lit string) float64 {
	s, neg := strings.CutPrefix(lit, "-")
	zero, inf := 0.0, math.Inf(1)
	if neg {
		zero, inf = math.Copysign(0, -1), math.Inf(-1)
	}
	mant, exp := s, "0"
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	nonzero := func(r rune) bool { return r != '0' }
	first, last := strings.IndexFunc(all, nonzero), strings.LastIndexFunc(all, nonzero)
	if first < 0 {
		return zero
	}
	point, ok := new(big.Int).SetString(exp, 10)
	if !ok {
		panic("refNumber: bad exponent in " + lit)
	}
	point.Add(point, big.NewInt(int64(len(intPart)-first)))
	switch {
	case point.Cmp(big.NewInt(400)) > 0:
		return inf
	case point.Cmp(big.NewInt(-400)) < 0:
		return zero
	}
	r, ok := new(big.Rat).SetString("0." + all[first:last+1] + "e" + point.String())
	if !ok {
		panic("refNumber: big.Rat cannot read " + lit)
	}
	f, _ := r.Float64()
	if neg {
		return -f
	}
	return f
}

// randDigits returns n random decimal digits, the first nonzero.
func randDigits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	if n > 0 {
		b[0] = byte('1' + r.IntN(9))
	}
	return string(b)
}

// interestingDoubles are the doubles whose upper midpoints the tests probe:
// the ends of the subnormal and normal ranges, powers of two, odd and even
// mantissas, and a few random ones.
func interestingDoubles(r *rand.Rand, random int) []float64 {
	list := []float64{
		0, 5e-324, 1e-323, math.Float64frombits(0x000fffffffffffff), 0x1p-1022, 0x1p-1021,
		1, 2, 0.1, 0.3, 1e23, 9007199254740992, 9007199254740993, 1e21, 1e-7,
		math.Nextafter(1, 0), math.Nextafter(math.MaxFloat64, 0), math.MaxFloat64,
		0x1p-1000, 0x1.fffffffffffffp-1000, 123456789e200,
	}
	for range random {
		f := math.Abs(math.Float64frombits(r.Uint64()))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 1
		}
		list = append(list, f)
	}
	return list
}

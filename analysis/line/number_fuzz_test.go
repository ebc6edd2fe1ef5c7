package line

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"
)

// fuzzLiteral builds a valid JSON number literal of up to a few thousand
// digits from fuzzer input. flags: bit 0 negative; bit 1 an exponent; bit 2
// a negative exponent; bit 3 leading zeros in the exponent; bit 4 the
// digits follow an exact midpoint between doubles (chosen by mant's first
// 8 bytes); bit 5 a hair below that midpoint; bit 6 'E'; bit 7 '+';
// bits 6-7 and cut pick the layout of a midpoint.
func fuzzLiteral(mant []byte, cut uint16, exp int16, flags uint8) string {
	const maxDigits = 4000
	if len(mant) > maxDigits {
		mant = mant[:maxDigits]
	}
	digits := make([]byte, len(mant))
	for i, b := range mant {
		digits[i] = '0' + b%10
	}
	neg := flags&1 != 0
	if flags&16 != 0 && len(mant) >= 8 {
		a := math.Abs(math.Float64frombits(binary.LittleEndian.Uint64(mant)))
		if math.IsNaN(a) || math.IsInf(a, 0) {
			a = math.MaxFloat64
		}
		mid, point := midpoint(a)
		if flags&32 != 0 {
			mid, point = below(mid, point, 0)
		}
		// Any digits after the midpoint's (or after the nines below it)
		// keep the literal on the same side, or on it if all zero.
		return layout(int(flags>>6)+int(cut), neg, mid+string(digits[8:]), int64(point), int(cut)%2000)
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	p := int(cut) % (len(digits) + 1)
	intPart := strings.TrimLeft(string(digits[:p]), "0")
	if intPart == "" {
		intPart = "0"
	}
	b.WriteString(intPart)
	if frac := digits[p:]; len(frac) > 0 {
		b.WriteByte('.')
		b.Write(frac)
	}
	if flags&2 != 0 {
		b.WriteByte("eE"[flags>>6&1])
		switch {
		case flags&4 != 0:
			b.WriteByte('-')
		case flags&128 != 0:
			b.WriteByte('+')
		}
		e := int(exp)
		if e < 0 {
			e = -e
		}
		if flags&8 != 0 {
			b.WriteString(strings.Repeat("0", int(cut)%50))
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}

// FuzzParseNumber checks parseNumber and numberCost against refNumber, an
// exact reading with math/big rounded once to the nearest double.
func FuzzParseNumber(f *testing.F) {
	zeros := func(n int) []byte { return []byte(strings.Repeat("\x00", n)) }
	one := func(n int) []byte { return append([]byte{1}, zeros(n)...) }
	f.Add([]byte{1, 2, 3}, uint16(1), int16(5), uint8(2))
	f.Add(one(800), uint16(801), int16(800), uint8(2|4))                                            // exactly 1 in 801 digits
	f.Add(append(zeros(3000), 1), uint16(0), int16(3001), uint8(2))                                 // 0.(3000 zeros)1e3001
	f.Add([]byte(strings.Repeat("\x09", 900)), uint16(900), int16(900), uint8(2|4))                 // 900 nines e-900
	f.Add(append(zeros(1200), 5), uint16(1), int16(123), uint8(2|4))                                // a subnormal
	f.Add(make([]byte, 8), uint16(0), int16(0), uint8(16))                                          // the midpoint above 0
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f}, uint16(3), int16(0), uint8(16))   // above MaxFloat64
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 3, 3}, uint16(900), int16(0), uint8(16|32|64))       // below the midpoint after 1
	f.Add(append([]byte{1, 0, 0, 0, 0, 0, 0, 0}, zeros(1000)...), uint16(7), int16(0), uint8(16|1)) // a tie among subnormals
	f.Fuzz(func(t *testing.T, mant []byte, cut uint16, exp int16, flags uint8) {
		lit := fuzzLiteral(mant, cut, exp, flags)
		want := refNumber(lit)
		got := parseNumber([]byte(lit))
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("parseNumber(%s) = %v, exactly rounded %v", lit, got, want)
		}
		if got := numberCost([]byte(lit)); got != numberLen(want) {
			t.Fatalf("numberCost(%s) = %d, want %d (%s)", lit, got, numberLen(want), FormatNumber(want))
		}
	})
}

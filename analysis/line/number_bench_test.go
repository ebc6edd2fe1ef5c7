package line

import (
	"strings"
	"testing"
)

// commonLiterals are number literals as real tool inputs and results carry
// them: small integers, timestamps, prices, shortest-form doubles.
var commonLiterals = []string{
	"0", "1", "-1", "42", "200", "2000", "1700000000000", "3.14", "0.5", "30.5",
	"-0.25", "12345.678", "0.30000000000000004", "1e-7", "6.02214076e23", "9007199254740993",
}

// BenchmarkNumberCost is the common path: short literals, one pass over
// all of commonLiterals per iteration.
func BenchmarkNumberCost(b *testing.B) {
	lits := make([][]byte, len(commonLiterals))
	total := 0
	for i, s := range commonLiterals {
		lits[i] = []byte(s)
		total += len(s)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lits {
			numberCost(l)
		}
	}
}

// BenchmarkNumberCostLong is the long path: literals of 1,000 and 100,000
// digits, whose cost must not grow faster than their length.
func BenchmarkNumberCostLong(b *testing.B) {
	for _, c := range []struct{ name, lit string }{
		{"1k-digits", "0." + strings.Repeat("3", 1000)},
		{"100k-digits", "1" + strings.Repeat("0", 100000) + "e-100000"},
	} {
		lit := []byte(c.lit)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(lit)))
			b.ReportAllocs()
			for b.Loop() {
				numberCost(lit)
			}
		})
	}
}

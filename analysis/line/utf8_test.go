package line

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestChar16(t *testing.T) {
	cases := []struct {
		s           string
		size, units int
	}{
		{"a", 1, 1}, {"é!", 2, 1}, {"中", 3, 1}, {"😀", 4, 2},
		{"\xff", 1, 1}, {"\xc0\x80", 1, 1}, {"\xe2\x82A", 2, 1}, {"\xf0\x9f\x98", 3, 1},
		{"\xed\xa0\x80", 1, 1}, {"\xf4\x90\x80\x80", 1, 1}, {"\x80", 1, 1},
	}
	for _, c := range cases {
		size, units := Char16(c.s)
		if size != c.size || units != c.units {
			t.Errorf("Char16(%q) = %d, %d; want %d, %d", c.s, size, units, c.size, c.units)
		}
	}
}

// randomText joins 1 to n pieces of valid and invalid UTF-8 (lone
// continuation bytes, overlong leads, cut sequences, a surrogate), ASCII
// and space.
func randomText(rng *rand.Rand, n int, space string) string {
	pieces := []string{"a", "é", "世", "😀", "\x80", "\xbf", "\xc0", "\xc2", "\xe0", "\xe0\xa0", "\xed", "\xed\xa0\x80", "\xf0", "\xf0\x9f", "\xf0\x9f\x98", "\xf4\x90", "\xf5", "\xff", "\r", space}
	var b strings.Builder
	for range rng.IntN(n) + 1 {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// Walking a line with Char16 (what the language server does to map columns
// onto bytes) must count like the parser's Width16: both as node's UTF-8
// decoder counts.
func TestChar16MatchesWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 3000; i++ {
		s := randomText(rng, 12, " ")
		units := 0
		for j := 0; j < len(s); {
			w, n := Char16(s[j:])
			j += w
			units += n
		}
		if want := Parse([]byte(s)).Width16; units != want {
			t.Fatalf("%q: %d UTF-16 units, Parse's Width16 says %d", s, units, want)
		}
	}
}

// Width16 is Result.Width16, for any bytes, and adds up over pieces cut
// before a byte that is ASCII or a lead byte.
func TestWidth16(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for i := 0; i < 3000; i++ {
		b := []byte(randomText(rng, 40, "        "))
		want := Parse(b).Width16
		if got := Width16(b); got != want {
			t.Fatalf("%q: Width16 %d, Parse's Width16 %d", b, got, want)
		}
		sum, from := 0, 0
		for k := 1; k < len(b); k++ {
			if (b[k] < 0x80 || b[k] >= 0xC0) && rng.IntN(3) == 0 {
				sum += Width16(b[from:k])
				from = k
			}
		}
		if sum += Width16(b[from:]); sum != want {
			t.Fatalf("%q: Width16 over pieces adds up to %d, want %d", b, sum, want)
		}
	}
}

package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPieces: on any text, both pre-tokenizers advance, cut only between
// code points, skip nothing (every code point matches an alternative of
// both patterns), and the count is between one token and one per byte.
func FuzzPieces(f *testing.F) {
	for _, s := range []string{"", "hello world", "it's 'S 'll", "a\u0301\u0301'd", "  \n\n  x", "\x7f\ufeff\u0085ſ", "123456", "中文😀", "\xff\xfe", " //\r\n/"} {
		f.Add(s)
	}
	counters := make([]*Counter, 0, 2)
	for _, enc := range Encodings() {
		c, err := New(enc)
		if err != nil {
			f.Fatal(err)
		}
		counters = append(counters, c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := strings.ToValidUTF8(s, "\uFFFD")
		for _, next := range []func(string, int) (int, bool){o200kNext, cl100kNext} {
			for i := 0; i < len(valid); {
				end, ok := next(valid, i)
				if end <= i || end > len(valid) || !ok || !utf8.ValidString(valid[i:end]) {
					t.Fatalf("%q at %d: piece ends at %d (matched %v)", valid, i, end, ok)
				}
				i = end
			}
		}
		for _, c := range counters {
			n, err := c.Count(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(s) > 0 && n < 1 || n > 3*len(s) {
				t.Fatalf("%s: %q counts %d tokens", c.Encoding(), s, n)
			}
		}
	})
}

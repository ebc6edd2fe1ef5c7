package tokens

//go:generate go run gen/gen.go

import "unicode/utf8"

// The character classes of the pre-tokenizer patterns, one bit each, as
// node's regex engine (with the "u" flag, as js-tiktoken runs them) puts
// every code point in them: classes_table.go is generated from node itself
// (gen/classes.mjs), not from Go's unicode package, whose Unicode version
// lags node's.
const (
	classL uint8 = 1 << iota // \p{L}
	classN                   // \p{N}
	classU                   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]: a word's capitals (o200k_base)
	classW                   // [\p{Ll}\p{Lm}\p{Lo}\p{M}]: a word's small letters (o200k_base)
	classS                   // \s
)

// classOf returns the class bits of the code point r.
func classOf(r rune) uint8 {
	if uint32(r) > utf8.MaxRune {
		return 0
	}
	return classBlocks[int(classIndex[r>>classBlockShift])<<classBlockShift|int(r&(1<<classBlockShift-1))]
}

// classAt returns the class bits and the length in bytes of the code point
// at s[i] (i < len(s)). Invalid UTF-8 (never passed here: Count replaces
// it first) reads as one byte of U+FFFD's class, so a scan always advances.
// ASCII costs one table load, but the call is not inlined (Go 1.26 prices
// it at 90 against a budget of 80), so the hot loops of pretoken.go spell
// the ASCII case out and call classAtRune only past it.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		// The first block of the table is block 0 (TestClassTable).
		return classBlocks[c&0x7f], 1
	}
	return classAtRune(s[i:])
}

func classAtRune(s string) (uint8, int) {
	r, n := utf8.DecodeRuneInString(s)
	return classOf(r), n
}

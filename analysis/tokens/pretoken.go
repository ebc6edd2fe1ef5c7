package tokens

import "unicode/utf8"

// The pre-tokenizers cut text into the pieces that byte-pair encoding then
// merges, exactly as js-tiktoken 1.0.21 does with these patterns (its
// pat_str; TestRanksMatchJSTiktoken checks they are still its patterns):
// JavaScript regular expressions with the "u" and "g" flags, run by
// matchAll, so a match is the first alternative that matches at a position
// (with backtracking inside it), and the next search starts where it ended.
// They are written out by hand rather than run by a regex engine: each
// alternative below is the regex's behaviour, backtracking included, in
// one forward scan.
const (
	o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?` +
		`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	cl100kPattern = `('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)` +
		`|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// Every code point matches some alternative of both patterns (a letter the
// word alternatives, a digit \p{N}, a space the \s ones, anything else
// [^\s\p{L}\p{N}]), so no text is skipped; the scanners still skip a code
// point no alternative takes, as matchAll would, should a table ever say so.

// prefixable reports whether the code point at s[i], of class c, matches
// [^\r\n\p{L}\p{N}], the optional character before a word.
func prefixable(s string, i int, c uint8) bool {
	return s[i] != '\r' && s[i] != '\n' && c&(classL|classN) == 0
}

// other reports whether class c matches [^\s\p{L}\p{N}].
func other(c uint8) bool { return c&(classL|classN|classS) == 0 }

// o200kNext returns the end of the piece that starts at s[i] (i < len(s)),
// and false when the code point there starts none (it is skipped).
func o200kNext(s string, i int) (int, bool) {
	c, w := uint8(0), 1
	if b := s[i]; b < utf8.RuneSelf {
		c = classBlocks[b]
	} else {
		c, w = classAtRune(s[i:])
	}
	pre := prefixable(s, i, c)
	// [^\r\n\p{L}\p{N}]?[U]*[W]+('s|…)? with the prefix, then without.
	if pre {
		if e, ok := o200kLower(s, i+w); ok {
			return e, true
		}
	}
	if c&(classU|classW) != 0 {
		if e, ok := o200kLower(s, i); ok {
			return e, true
		}
	}
	// [^\r\n\p{L}\p{N}]?[U]+[W]*('s|…)?
	if pre {
		if e, ok := o200kUpper(s, i+w); ok {
			return e, true
		}
	}
	if e, ok := o200kUpper(s, i); ok {
		return e, true
	}
	if c&classN != 0 {
		return digits(s, i+w), true
	}
	if e, ok := punctuation(s, i, c, true); ok {
		return e, true
	}
	if c&classS != 0 {
		return spaces(s, i), true
	}
	return i + w, false
}

// o200kLower matches [U]*[W]+('s|…)? at s[j]: greedy [U]*, giving back
// code points until [W]+ can start.
func o200kLower(s string, j int) (int, bool) {
	lastEnd := -1 // the end of the last code point of the [U] run that is also in [W]
	for k := j; k < len(s); {
		c, w := uint8(0), 1
		if b := s[k]; b < utf8.RuneSelf {
			c = classBlocks[b]
		} else {
			c, w = classAtRune(s[k:])
		}
		if c&classU == 0 {
			if c&classW != 0 {
				// [U]* took all it could and [W]+ starts here.
				return contraction(s, wordRun(s, k+w, classW)), true
			}
			break
		}
		k += w
		if c&classW != 0 {
			lastEnd = k
		}
	}
	if lastEnd < 0 {
		return 0, false
	}
	// [U]* gave back down to the last code point also in [W]: [W]+ is that
	// one code point (the next is not in [W], or the text ends); a
	// contraction can follow only if it ended the run.
	return contraction(s, lastEnd), true
}

// o200kUpper matches [U]+[W]*('s|…)? at s[j].
func o200kUpper(s string, j int) (int, bool) {
	k := wordRun(s, j, classU)
	if k == j {
		return 0, false
	}
	return contraction(s, wordRun(s, k, classW)), true
}

// cl100kNext is o200kNext for cl100k_base's pattern.
func cl100kNext(s string, i int) (int, bool) {
	if s[i] == '\'' {
		if e := contraction(s, i); e > i {
			return e, true
		}
	}
	c, w := uint8(0), 1
	if b := s[i]; b < utf8.RuneSelf {
		c = classBlocks[b]
	} else {
		c, w = classAtRune(s[i:])
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if prefixable(s, i, c) && i+w < len(s) {
		if c2, _ := classAt(s, i+w); c2&classL != 0 {
			return wordRun(s, i+w, classL), true
		}
	}
	if c&classL != 0 {
		return wordRun(s, i, classL), true
	}
	if c&classN != 0 {
		return digits(s, i+w), true
	}
	if e, ok := punctuation(s, i, c, false); ok {
		return e, true
	}
	if c&classS != 0 {
		return spaces(s, i), true
	}
	return i + w, false
}

// wordRun returns the end of the run of code points of class bit at s[j].
func wordRun(s string, j int, bit uint8) int {
	for j < len(s) {
		c, w := uint8(0), 1
		if b := s[j]; b < utf8.RuneSelf {
			c = classBlocks[b]
		} else {
			c, w = classAtRune(s[j:])
		}
		if c&bit == 0 {
			break
		}
		j += w
	}
	return j
}

// contraction matches ('s|'S|'t|'T|'re|…|'d|'D)? at s[e]: ASCII only (the
// patterns spell the cases out, so no other character folds to them).
func contraction(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	switch s[e+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return e + 2
	case 'r', 'R', 'v', 'V':
		if e+2 < len(s) && (s[e+2] == 'e' || s[e+2] == 'E') {
			return e + 3
		}
	case 'l', 'L':
		if e+2 < len(s) && (s[e+2] == 'l' || s[e+2] == 'L') {
			return e + 3
		}
	}
	return e
}

// digits matches the rest of \p{N}{1,3} after the first digit, at s[j].
func digits(s string, j int) int {
	for range 2 {
		if j >= len(s) {
			break
		}
		c, w := uint8(0), 1
		if b := s[j]; b < utf8.RuneSelf {
			c = classBlocks[b]
		} else {
			c, w = classAtRune(s[j:])
		}
		if c&classN == 0 {
			break
		}
		j += w
	}
	return j
}

// punctuation matches ` ?[^\s\p{L}\p{N}]+[\r\n/]*` (o200k_base) or
// ` ?[^\s\p{L}\p{N}]+[\r\n]*` (cl100k_base) at s[i], of class c.
func punctuation(s string, i int, c uint8, slash bool) (int, bool) {
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		if c2, _ := classAt(s, i+1); other(c2) {
			j = i + 1
		}
	}
	if j == i && !other(c) {
		return 0, false
	}
	for j < len(s) {
		c, w := uint8(0), 1
		if b := s[j]; b < utf8.RuneSelf {
			c = classBlocks[b]
		} else {
			c, w = classAtRune(s[j:])
		}
		if !other(c) {
			break
		}
		j += w
	}
	for j < len(s) && (s[j] == '\r' || s[j] == '\n' || slash && s[j] == '/') {
		j++
	}
	return j, true
}

// spaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at s[i], a space.
func spaces(s string, i int) int {
	end, last, newline := i, i, -1
	for end < len(s) {
		c, w := uint8(0), 1
		if b := s[end]; b < utf8.RuneSelf {
			c = classBlocks[b]
		} else {
			c, w = classAtRune(s[end:])
		}
		if c&classS == 0 {
			break
		}
		if s[end] == '\r' || s[end] == '\n' {
			newline = end + 1
		}
		last = end
		end += w
	}
	switch {
	case newline >= 0:
		// \s*[\r\n]+: \s* gives back to the last line break.
		return newline
	case end == len(s) || last == i:
		// \s+(?!\S) at the end of the text, or \s+ of one space before a
		// non-space.
		return end
	}
	// \s+(?!\S): all but the last space, which the next piece starts with.
	return last
}

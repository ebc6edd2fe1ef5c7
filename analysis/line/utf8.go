package line

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

// decodeAt decodes the character that starts at b[i] the way the WHATWG
// UTF-8 decoder does (what node's Buffer.toString("utf8") and readFile do):
// a valid sequence is one character; otherwise the maximal invalid subpart
// (a lead byte followed by the continuation bytes that were still possible)
// becomes one U+FFFD and decoding resumes at the next byte. Go's
// utf8.DecodeRune differs on truncated sequences, hence our own.
//
// It returns the number of bytes consumed, the rune (utf8.RuneError for an
// invalid subpart) and whether the sequence was valid. i must be < len(b).
func decodeAt(b []byte, i int) (size int, r rune, valid bool) {
	c := b[i]
	if c < 0x80 {
		return 1, rune(c), true
	}
	// The lead's length and the range of its second byte are utf8Lead's,
	// the table the block scanner checks leads with.
	lead := utf8Lead[c]
	if lead.n == 0 { // 0x80..0xC1, 0xF5..0xFF: never valid anywhere
		return 1, utf8.RuneError, false
	}
	r = rune(c & (0x7F >> lead.n))
	lo, hi := lead.lo, lead.lo+lead.span
	j := i + 1
	for k := 1; k < int(lead.n); k++ {
		if j >= len(b) || b[j] < lo || b[j] > hi {
			return j - i, utf8.RuneError, false
		}
		r = r<<6 | rune(b[j]&0x3F)
		j++
		lo, hi = 0x80, 0xBF
	}
	return j - i, r, true
}

// Char16 returns the byte length of the character that starts s, as node's
// readFile decodes it (decodeAt: an invalid sequence's maximal subpart is
// one U+FFFD), and its length in UTF-16 units: 2 outside the BMP, else 1.
// It is how an editor's UTF-16 column maps onto the raw line. s must not be
// empty.
func Char16(s string) (size, units int) {
	// decodeAt only reads, so the string's bytes are lent without a copy.
	size, r, _ := decodeAt(unsafe.Slice(unsafe.StringData(s), len(s)), 0)
	return size, units16(r)
}

// units16 is the UTF-16 length of a decoded rune (U+FFFD for invalid input).
func units16(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// width16 is the UTF-16 length of b as decoded by the WHATWG decoder.
func width16(b []byte) int {
	return col16(b, len(b))
}

// Width16 is the UTF-16 length of b as node's readFile decodes it: what
// Result.Width16 is for a whole line. A stream can add up the widths of
// consecutive pieces of a line when each piece but the last ends just
// before a byte that is ASCII or a lead byte (>= 0xC0): no character is cut
// then, as no sequence goes on past such a byte.
func Width16(b []byte) int {
	w := 0 // raw bytes minus UTF-16 units
	for i := 0; i < len(b); {
		if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&msb == 0 {
			i += 8
			continue
		}
		if b[i] < 0x80 {
			i++
			continue
		}
		end, dw, _ := decodeRun(b, i)
		w += dw
		i = end
	}
	return len(b) - w
}

// col16 is the UTF-16 column of byte offset off: the length of the decoded
// text of the characters that start before off.
func col16(b []byte, off int) int {
	if off > len(b) {
		off = len(b)
	}
	n := 0
	for i := 0; i < off; {
		if b[i] < 0x80 {
			i++
			n++
			continue
		}
		size, r, _ := decodeAt(b, i)
		i += size
		n += units16(r)
	}
	return n
}

// charLen is the number of bytes of the character at b[i] (1 at or after
// the end, so spans stay non-empty where they can).
func charLen(b []byte, i int) int {
	if i >= len(b) {
		return 0
	}
	size, _, _ := decodeAt(b, i)
	return size
}

// hexVal maps a byte to its hex digit value, or -1.
func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hex4 reads four hex digits at b[i:i+4]; ok is false if any is missing.
func hex4(b []byte, i int) (v int, ok bool) {
	if i+4 > len(b) {
		return 0, false
	}
	for k := 0; k < 4; k++ {
		d := hexVal(b[i+k])
		if d < 0 {
			return 0, false
		}
		v = v<<4 | d
	}
	return v, true
}

// appendWTF8 appends code unit or code point r as WTF-8: ordinary UTF-8, and
// a lone surrogate (which UTF-8 cannot carry) as its generalized 3-byte form.
func appendWTF8(dst []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return utf8.AppendRune(dst, r)
}

// unescaped is the character an escape \c stands for, for every c but
// 'u': \b \f \n \r \t, and c itself (\" \\ \/; other bytes, which the
// scanner refuses, as the decoder always treated them).
var unescaped = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
	}
	t['b'], t['f'], t['n'], t['r'], t['t'] = '\b', '\f', '\n', '\r', '\t'
	return t
}()

// appendDecoded appends the JS string value of the body of a string literal
// (without its quotes; already validated by the scanner) as WTF-8, so that
// two decoded values are byte-equal exactly when the JS strings are ===.
func appendDecoded(dst []byte, lit []byte) []byte {
	for i := 0; i < len(lit); {
		c := lit[i]
		switch {
		case c == '\\' && i+1 < len(lit) && lit[i+1] != 'u':
			dst = append(dst, unescaped[lit[i+1]])
			i += 2
		case c == '\\' && i+1 < len(lit):
			v, _ := hex4(lit, i+2)
			if v >= 0xD800 && v < 0xDC00 && i+12 <= len(lit) && lit[i+6] == '\\' && lit[i+7] == 'u' {
				if w, ok := hex4(lit, i+8); ok && w >= 0xDC00 && w <= 0xDFFF {
					dst = utf8.AppendRune(dst, 0x10000+rune(v-0xD800)<<10+rune(w-0xDC00))
					i += 12
					continue
				}
			}
			dst = appendWTF8(dst, rune(v))
			i += 6
		case c < 0x80:
			dst = append(dst, c)
			i++
		default:
			size, r, valid := decodeAt(lit, i)
			if valid {
				dst = append(dst, lit[i:i+size]...)
			} else {
				dst = utf8.AppendRune(dst, r)
			}
			i += size
		}
	}
	return dst
}

// quoteJS writes s (WTF-8) the way JSON.stringify writes a string, cut
// after max UTF-16 units with an ellipsis so a huge role stays readable.
func quoteJS(s string, max int) string {
	b := []byte(s)
	cut, units := 0, 0
	for cut < len(b) && units < max {
		if b[cut] == 0xED && cut+2 < len(b) && b[cut+1] >= 0xA0 {
			// A generalized (surrogate) 3-byte sequence is a lone
			// surrogate: one unit, as appendQuotedBody writes it.
			cut += 3
			units++
			continue
		}
		size, r, _ := decodeAt(b, cut)
		cut += size
		units += units16(r)
	}
	out := appendQuotedBody([]byte{'"'}, b[:cut])
	if cut < len(b) {
		out = append(out, "…"...)
	}
	return string(append(out, '"'))
}

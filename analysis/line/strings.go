// Strings: the scanner that validates a string literal and measures both
// its UTF-16 width and the length JSON.stringify gives its value, a word at
// a time, handing long stretches to the block scanner (blocks.go).

package line

import (
	"encoding/binary"
	"math/bits"
)

// String literal flags.
const (
	fEscape  uint8 = 1 << iota // has a backslash escape
	fInvalid                   // has an invalid UTF-8 sequence (decodes to U+FFFD)
)

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special reports, in the high bit of each byte, the bytes of x (eight
// bytes, little-endian) that a string scan must stop at: < 0x20, '"', '\\'
// or >= 0x80. A bit may be falsely set only above a truly set one, so the
// lowest set bit is exact.
func special(x uint64) uint64 {
	ctl := (x - 0x20*lsb) &^ x
	q := x ^ '"'*lsb
	q = (q - lsb) &^ q
	bs := x ^ '\\'*lsb
	bs = (bs - lsb) &^ bs
	return (ctl | q | bs | x) & msb
}

// stop marks the bytes that end a run of plain string characters.
var stop = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80
	}
	return t
}()

// escCost is the length JSON.stringify gives to code unit u.
func escCost(u int) int {
	switch {
	case u == '"' || u == '\\' || u == '\b' || u == '\f' || u == '\n' || u == '\r' || u == '\t':
		return 2
	case u < 0x20 || u >= 0xD800 && u <= 0xDFFF:
		return 6
	}
	return 1
}

// scanString validates the string literal starting with the quote at
// b[start] and returns the offset after its closing quote, the length
// JSON.stringify gives its value, and its flags. It adds the literal's
// UTF-16 width adjustment to p.adj.
func (p *parser) scanString(start int) (end, cost int, flags uint8) {
	b := p.b
	n := len(b)
	i := start + 1
	wadj := 0 // raw bytes minus UTF-16 units of the raw text
	eadj := 0 // raw escape bytes minus their stringified units
	// Short strings (keys, ids, small values) end within a few words, so
	// the byte-wise scanner starts; blocks take over in long strings.
	slowUntil := i + 24
	for {
		// Block mode: 64 bytes at a time, escapes found by bit tricks so
		// that a dense run of \n \t \" costs no mispredicted branches.
		// It hands over to the byte-wise scanner below at anything else.
		if i >= slowUntil && i+64 < n {
			next, st, d, w, f := scanBlocks(b, i)
			eadj += d
			wadj += w
			flags |= f
			i = next
			switch st {
			case blockEnd:
				p.adj += wadj
				return next + 1, next + 1 - start - wadj - eadj, flags
			case blockSlow:
				// The byte-wise scanner reports the error there.
				slowUntil = next + 8
			}
		}
		// Find the next byte that is not a plain character: eight at a
		// time while eight remain, then one at a time.
		if i+8 <= n {
			m := special(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < n && !stop[b[i]] {
				i++
			}
			if i >= n {
				p.fail("unexpected end of line: unterminated string", start, n)
				return n, 0, flags
			}
		}
		c := b[i]
		if c == '\\' {
			flags |= fEscape
			if i+1 >= n {
				p.fail("unexpected end of line: unterminated string", start, n)
				return n, 0, flags
			}
			switch escClass[b[i+1]] {
			case escSame:
				i += 2
				continue
			case escSlash:
				eadj++
				i += 2
				continue
			case escU:
				u, ok := hex4(b, i+2)
				if !ok {
					j := i + 2
					for j < n && j < i+6 && hexVal(b[j]) >= 0 {
						j++
					}
					if j >= n {
						p.fail("unexpected end of line: unterminated string", start, n)
					} else {
						// Like V8, point at the first character that is not hex.
						p.fail(`bad \u escape`, j, j+charLen(b, j))
					}
					return n, 0, flags
				}
				if u >= 0xD800 && u < 0xDC00 && i+12 <= n && b[i+6] == '\\' && b[i+7] == 'u' {
					if w, ok := hex4(b, i+8); ok && w >= 0xDC00 && w <= 0xDFFF {
						eadj += 10 // twelve bytes, one astral character: two units
						i += 12
						continue
					}
				}
				eadj += 6 - escCost(u)
				i += 6
				continue
			}
			p.fail(badEscape(b, i+1), i+1, i+1+charLen(b, i+1)) // the character after the backslash, as V8
			return n, 0, flags
		}
		if c == '"' {
			p.adj += wadj
			return i + 1, i + 1 - start - wadj - eadj, flags
		}
		if c < 0x20 {
			p.fail("control character U+00"+string([]byte{"0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15]})+" in string", i, i+1)
			return n, 0, flags
		}
		// Non-ASCII: decode the run here, the way readFile does.
		end, w, invalid := decodeRun(b, i)
		wadj += w
		if invalid {
			flags |= fInvalid
		}
		i = end
	}
}

// decodeRun decodes the run of non-ASCII bytes starting at b[i] the way
// readFile does and returns where it ends, its raw bytes minus its UTF-16
// units, and whether it held an invalid sequence (decoded as U+FFFD).
func decodeRun(b []byte, i int) (end, w int, invalid bool) {
	n := len(b)
	for i < n && b[i] >= 0x80 {
		c := b[i]
		switch {
		case c >= 0xC2 && c <= 0xDF && i+1 < n && b[i+1]&0xC0 == 0x80:
			w++
			i += 2
		case c >= 0xE1 && c <= 0xEF && c != 0xED && i+2 < n && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80:
			w += 2
			i += 3
		case c >= 0xF1 && c <= 0xF3 && i+3 < n && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 && b[i+3]&0xC0 == 0x80,
			c == 0xF0 && i+3 < n && b[i+1] >= 0x90 && b[i+1] <= 0xBF && b[i+2]&0xC0 == 0x80 && b[i+3]&0xC0 == 0x80:
			w += 2 // four bytes, a surrogate pair
			i += 4
		default:
			size, r, valid := decodeAt(b, i)
			if !valid {
				invalid = true
			}
			w += size - units16(r)
			i += size
		}
	}
	return i, w, invalid
}

// Escape classes of the byte after a backslash.
const (
	escBad   = iota
	escSame  // \" \\ \b \f \n \r \t: two bytes in, two units out
	escSlash // \/: two bytes in, one unit out
	escU     // \uXXXX
)

var escClass = func() (t [256]uint8) {
	for _, c := range `"\\bfnrt` {
		t[c] = escSame
	}
	t['/'] = escSlash
	t['u'] = escU
	return t
}()

func badEscape(b []byte, i int) string {
	c := b[i]
	if c >= 0x20 && c < 0x7F {
		return `bad escape "\` + string(c) + `"`
	}
	if c < 0x80 {
		return `bad escape: backslash before U+00` + string([]byte{"0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15]})
	}
	return `bad escape: backslash before a non-ASCII character`
}

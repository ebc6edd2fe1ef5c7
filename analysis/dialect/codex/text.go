package codex

import (
	"unicode"
	"unicode/utf8"
)

// textScan follows what codex's read_to_string and str::lines make of the
// bytes of a file, fed in pieces of any size (it sees the lines JSON.parse
// refuses too, which a JSON-only analysis does not show the dialect): the
// first byte that is not UTF-8 (then the whole file is refused), and the
// lines that are whitespace only (Unicode's White_Space, as Rust's trim),
// which the loader skips before parsing.
type textScan struct {
	line     int   // current line, 1-based
	off      int64 // offset of the next byte fed
	col      int   // UTF-16 column in the current line
	ws, any  bool  // the current line is whitespace so far; holds a byte
	carry    []byte
	carryOff int64
	blank    map[int]bool // lines of whitespace only (not exactly empty)
	nonBlank bool
	// The first byte that is not UTF-8: offset, line, UTF-16 column and
	// the byte; badOff is -1 while there is none.
	badOff  int64
	badLine int
	badCol  int
	badByte byte
}

func newTextScan() *textScan {
	return &textScan{line: 1, ws: true, blank: map[int]bool{}, badOff: -1}
}

// Write feeds p; it never fails (an io.Writer for io.TeeReader).
func (s *textScan) Write(p []byte) (int, error) {
	s.feed(p)
	return len(p), nil
}

func (s *textScan) feed(p []byte) {
	for _, c := range p {
		if len(s.carry) == 0 && c < utf8.RuneSelf {
			s.off++
			if c == '\n' {
				s.endLine()
				continue
			}
			s.any = true
			if c != ' ' && (c < '\t' || c > '\r') {
				s.ws = false
			}
			s.col++
			continue
		}
		if len(s.carry) == 0 {
			s.carryOff = s.off
		}
		s.carry = append(s.carry, c)
		s.off++
		s.decodeCarry(false)
	}
}

// decodeCarry decodes the runes the carried bytes complete; at the end of
// the input (final) an incomplete sequence is invalid.
func (s *textScan) decodeCarry(final bool) {
	for len(s.carry) > 0 {
		if !final && !utf8.FullRune(s.carry) {
			return
		}
		r, size := utf8.DecodeRune(s.carry)
		if r == utf8.RuneError && size <= 1 {
			if s.badOff < 0 {
				s.badOff, s.badLine, s.badCol, s.badByte = s.carryOff, s.line, s.col, s.carry[0]
			}
			s.any, s.ws = true, false
			s.col++
			rest := append([]byte(nil), s.carry[1:]...)
			s.carry = s.carry[:0]
			off := s.carryOff + 1
			for _, c := range rest { // re-read what followed the bad byte
				if len(s.carry) == 0 && c < utf8.RuneSelf {
					if c == '\n' {
						s.endLine()
					} else {
						s.any = true
						if c != ' ' && (c < '\t' || c > '\r') {
							s.ws = false
						}
						s.col++
					}
					off++
					continue
				}
				if len(s.carry) == 0 {
					s.carryOff = off
				}
				s.carry = append(s.carry, c)
				off++
			}
			continue
		}
		s.any = true
		if !unicode.IsSpace(r) {
			s.ws = false
		}
		s.col++
		if r > 0xFFFF {
			s.col++
		}
		s.carry = s.carry[size:]
		s.carryOff += int64(size)
	}
}

func (s *textScan) endLine() {
	if s.any {
		if s.ws {
			s.blank[s.line] = true
		} else {
			s.nonBlank = true
		}
	}
	s.line++
	s.col, s.ws, s.any = 0, true, false
}

// finish ends the input.
func (s *textScan) finish() {
	s.decodeCarry(true)
	if s.any {
		s.endLine()
	}
}

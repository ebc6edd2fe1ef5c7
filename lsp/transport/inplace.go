package transport

import (
	"errors"
	"unicode/utf8"
)

// Unescaping a large didOpen's text while the body arrives (issue 19).
//
// The check of the text literal already runs beside the reading
// (prescan.go); unescaping it came after, once the body was in: about a
// nanosecond a byte on every core, a fifth of a 50 MB open. So the check
// also writes each stretch of the literal it has checked as its value,
// over the literal itself (the value is never longer than its literal
// without invalid UTF-8, so each byte is written at or before the byte
// being read, and behind the bytes arriving).
//
// The guess that this literal is the text may be wrong (prescan.go): the
// decoder may refuse the body, or take a literal elsewhere for the text,
// and the general decoder then needs the body exactly as it came. So the
// literal can be put back: every escape that has one spelling (\" \\ \b \f
// \n \r \t) is written again from its value, and the others (\/ and \u,
// whose value alone does not tell how they were spelled) are logged as the
// value is written. The log is bounded (maxUndoLog); where it is full, or
// where the literal has invalid UTF-8 (whose value is longer than its
// bytes), the unescaping stops and the decoder does the rest, as before.

// inPlace is how much of a prescanned literal was unescaped over itself:
// the bytes from start to read are the value's bytes from start to wrote,
// and the log is what puts them back.
type inPlace struct {
	start, read, wrote int
	// slashes: for each \/, where its value '/' ends, from start.
	slashes []uint32
	// us: for each \u escape (one or a surrogate pair), where its value
	// ends, from start, and how long it was (6 or 12 bytes); uOrig is their
	// bytes as written, one after another.
	us    []uEscape
	uOrig []byte
}

type uEscape struct{ end, n uint32 }

// maxUndoLog bounds the log of a literal of n bytes: an eighth of it (a
// path or a URL every 32 bytes of a client that writes / as \/), and at
// least 64 KiB.
func maxUndoLog(n int) int { return max(64<<10, n/8) }

// logSize is the log's size in bytes.
func (p *inPlace) logSize() int { return 4*len(p.slashes) + 8*len(p.us) + len(p.uOrig) }

// modified reports whether the literal's bytes are not as they came.
func (p *inPlace) modified() bool { return p.read > p.start }

// unescape writes the value of the checked literal bytes b[p.read:end]
// over them, at p.wrote, and logs what restore needs. final says the
// literal ends at end (its closing quote); otherwise a \u escape within 12
// bytes of end (half of a pair, perhaps) is left for the next call. It
// reports false when it stopped because the log is full (p.read < end).
func (p *inPlace) unescape(b []byte, end int, final bool) bool {
	r, w := p.read, p.wrote
	defer func() { p.read, p.wrote = r, w }()
	limit := maxUndoLog(len(b) - p.start)
	for {
		r, w = unescapeRun(b, r, w, end, true) // fastdecode.go
		if r >= end {
			return true
		}
		if b[r+1] == '/' {
			if p.logSize()+4 > limit {
				return false
			}
			b[w] = '/'
			r += 2
			w++
			p.slashes = append(p.slashes, uint32(w-p.start))
			continue
		}
		// A \u escape.
		if !final && r+12 > end {
			return true // perhaps the first half of a pair whose second is not checked yet
		}
		if p.logSize()+8+12 > limit {
			return false
		}
		ru, n := DecodeU(b[r:end])
		p.uOrig = append(p.uOrig, b[r:r+n]...) // before the value overwrites it
		var enc [utf8.UTFMax]byte
		w += copy(b[w:], enc[:utf8.EncodeRune(enc[:], ru)]) // never longer than the n bytes read
		r += n
		p.us = append(p.us, uEscape{end: uint32(w - p.start), n: uint32(n)})
	}
}

// errUndo is a log that does not match the value: a bug, never the peer's
// bytes (restore is only given what unescape wrote).
var errUndo = errors.New("the unescaped text does not match its undo log")

// restore puts the literal's bytes back as they came, from the end: each
// escape is written back from its value or the log, and the rest as it
// is. Going backwards, every byte is read before the (longer) original
// reaches it.
func (p *inPlace) restore(b []byte) error {
	o, v := p.read, p.wrote
	si, ui, uo := len(p.slashes)-1, len(p.us)-1, len(p.uOrig)
	for v > p.start {
		rel := uint32(v - p.start)
		if si >= 0 && p.slashes[si] == rel {
			o -= 2
			b[o], b[o+1] = '\\', '/'
			v--
			si--
			continue
		}
		if ui >= 0 && p.us[ui].end == rel {
			n := int(p.us[ui].n)
			orig := p.uOrig[uo-n : uo]
			ru, _ := DecodeU(orig)
			uo -= n
			o -= n
			copy(b[o:], orig)
			v -= utf8.RuneLen(ru)
			ui--
			continue
		}
		c := b[v-1]
		v--
		if e := shortEscape(c); e != 0 {
			o -= 2
			b[o], b[o+1] = '\\', e
			continue
		}
		if c < 0x20 {
			return errUndo // a control character with no short escape came from a \u, which is logged
		}
		o--
		b[o] = c
	}
	if o != p.start || si >= 0 || ui >= 0 {
		return errUndo
	}
	p.read, p.wrote = p.start, p.start
	p.slashes, p.us, p.uOrig = nil, nil, nil
	return nil
}

// shortEscape returns the letter of the two-byte escape JSON has for c
// apart from \/ (" \ b f n r t), or 0.
func shortEscape(c byte) byte {
	switch c {
	case '"', '\\':
		return c
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	}
	return 0
}

package analysis

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Multi-change edits (one didChange with K changes: a multi-cursor edit,
// a formatter's edits). Applied one by one on the document's slices, each
// change that adds or removes lines shifts every line after it (K × lines:
// 40,000 line breaks in 200,000 lines took 84 s), parses lines that a
// later change replaces, and keeps each replaced line for the undo (K
// copies of a long line: 400 changes on a 5 MiB line held 2 GB).
// applyBatch applies them on a gap buffer of the lines instead: a change
// costs the distance from the previous one plus its own bytes, nothing is
// parsed until the end (and then only the lines the edit left new), and
// nothing is kept for an undo (the document itself is untouched until the
// edit succeeds). Memory is the document plus the line being edited.
//
// Both paths are bounded: past maxEditWork bytes of work (bytes copied or
// scanned, 16 per line moved), the edit is refused with ErrEditTooCostly
// and the document stays as it was.

// ErrEditTooCostly is wrapped by Apply's error when one call's changes
// would cost more work than maxEditWork allows (changes scattered all over
// a large document, or thousands of edits of one long line). A language
// server should then ask for the full text.
var ErrEditTooCostly = errors.New("edit too costly")

// errLoneCR stops applyBatch where an edit may make a lone '\r'.
var errLoneCR = errors.New("a lone carriage return")

// maxEditWork is the work one Apply may do: 8 bytes per byte of the
// document, plus 256 MiB (about a quarter of a second).
func maxEditWork(docBytes int) int { return 8*docBytes + 256<<20 }

// lineRef is a line of the gap buffer: its text and, when it is a line of
// the document before the edit, its index there (else -1).
type lineRef struct {
	s    string
	from int
}

// gapLines is a gap buffer of lines: buf[gap:gapEnd] is unused.
type gapLines struct {
	buf         []lineRef
	gap, gapEnd int
	moved       int // lines moved by the gap (work)
	hot         hotLine
	hotMoved    int // bytes moved by the hot lines' gaps (work)
}

// hotLine is the line that edits within one line change in place, itself
// a gap buffer of bytes: a multi-cursor edit of a long line then costs
// the distance between its edits, not a copy of the line per edit; and
// while the line is ASCII, a column is its byte offset (no scan from the
// line's start).
type hotLine struct {
	on     bool
	line   int
	buf    []byte // the text is buf[:gs] + buf[ge:]
	gs, ge int
	ascii  bool
	moved  int // bytes moved by the gap (work)
}

func (h *hotLine) len() int { return len(h.buf) - (h.ge - h.gs) }

// lastByte is the line's last byte; the line is not empty.
func (h *hotLine) lastByte() byte {
	if h.ge < len(h.buf) {
		return h.buf[len(h.buf)-1]
	}
	return h.buf[h.gs-1]
}

func (h *hotLine) moveGap(i int) {
	h.moved += shiftGap(h.buf, h.gs, h.ge, i, false)
	h.gs, h.ge = i, i+h.ge-h.gs
}

// text is the line as a new string.
func (h *hotLine) text() string {
	var b strings.Builder
	b.Grow(h.len())
	b.Write(h.buf[:h.gs])
	b.Write(h.buf[h.ge:])
	return b.String()
}

// load makes line i (text l) the hot line.
func (g *gapLines) load(i int, l string) {
	g.flush()
	buf := make([]byte, len(l)+len(l)/8+64)
	gs := copy(buf, l)
	g.hot = hotLine{on: true, line: i, buf: buf, gs: gs, ge: len(buf), ascii: isASCII(l)}
}

// flush writes the hot line back as a new line.
func (g *gapLines) flush() {
	if !g.hot.on {
		return
	}
	i := g.hot.line
	if i >= g.gap {
		i += g.gapEnd - g.gap
	}
	g.buf[i] = lineRef{s: g.hot.text(), from: -1}
	g.hotMoved += g.hot.moved
	g.hot = hotLine{}
}

// editLine applies a change within line r.Start.Line whose text has no
// line break, and returns its work in bytes (bytes scanned and written;
// the gap's moves are counted apart).
func (g *gapLines) editLine(r Range, text string) (int, error) {
	s, e := r.Start, r.End
	if e.Character < s.Character {
		return 0, fmt.Errorf("range end %d:%d is before its start %d:%d: %w", e.Line, e.Character, s.Line, s.Character, ErrInvalidPosition)
	}
	work := 0
	if !g.hot.on || g.hot.line != s.Line {
		// Checked by offset, which also knows the client's line after a
		// '\r' ending the text (it maps to the end of the last line).
		if _, _, err := g.offset(s); err != nil {
			return 0, fmt.Errorf("range start: %w", err)
		}
		if _, _, err := g.offset(e); err != nil {
			return 0, fmt.Errorf("range end: %w", err)
		}
		if s.Line >= g.len() {
			// The client's line after a '\r' ending the text (or the end
			// of the text): text put there follows that '\r', which is
			// then lone and changes the client's lines.
			return 0, errLoneCR
		}
		l := g.at(s.Line)
		g.load(s.Line, l)
		work += 2 * len(l)
	}
	sb, n, err := g.hot.offset(s)
	if err != nil {
		return 0, fmt.Errorf("range start: %w", err)
	}
	eb, m, err := g.hot.offset(e)
	if err != nil {
		return 0, fmt.Errorf("range end: %w", err)
	}
	return work + n + m + g.hot.replace(sb, eb, text), nil
}

// offset is the byte offset of p's column in the hot line, as
// Document.offset finds it (past the end is the end, before a final
// '\r'), and the bytes it scanned.
func (h *hotLine) offset(p Position) (int, int, error) {
	if p.Character < 0 {
		return 0, 0, fmt.Errorf("line %d: character %d is negative: %w", p.Line, p.Character, ErrInvalidPosition)
	}
	to := h.len()
	if to > 0 && h.lastByte() == '\r' {
		to--
	}
	if h.ascii {
		return min(p.Character, to), 0, nil
	}
	// Columns are counted from the line's start: the text before the
	// gap is contiguous once the gap is at the end.
	h.moveGap(h.len())
	b, err := byteOffset(unsafe.String(unsafe.SliceData(h.buf), to), p.Character)
	if err != nil {
		return 0, 0, fmt.Errorf("line %d: %w", p.Line, err)
	}
	return b, b, nil
}

// replace replaces bytes [sb, eb) of the hot line by text and returns the
// bytes written.
func (h *hotLine) replace(sb, eb int, text string) int {
	h.moveGap(eb)
	h.gs = sb
	if h.ge-h.gs < len(text) {
		h.moved += h.len()
		h.buf, h.ge = growGap(h.buf, h.gs, h.ge, len(text), 64)
	}
	h.gs += copy(h.buf[h.gs:], text)
	h.ascii = h.ascii && isASCII(text)
	return len(text)
}

// shiftGap moves the gap [gs, ge) of the gap buffer buf to start at i and
// returns the elements moved. With clearLeft, the slots the elements left
// are zeroed: they are in the gap now (the rest of the gap already is).
func shiftGap[T any](buf []T, gs, ge, i int, clearLeft bool) int {
	size := ge - gs
	switch {
	case i < gs:
		copy(buf[i+size:ge], buf[i:gs])
		if clearLeft {
			clear(buf[i:min(gs, i+size)])
		}
		return gs - i
	case i > gs:
		copy(buf[gs:], buf[ge:i+size])
		if clearLeft {
			clear(buf[max(i, ge) : i+size])
		}
		return i - gs
	}
	return 0
}

// growGap returns a copy of the gap buffer buf, whose gap is [gs, ge),
// with a gap of at least need (half again its content, plus slack, to
// spare) and the gap's new end; the gap still starts at gs.
func growGap[T any](buf []T, gs, ge, need, slack int) ([]T, int) {
	n := len(buf) - (ge - gs)
	grown := make([]T, n+need+n/2+slack)
	copy(grown, buf[:gs])
	tail := len(buf) - ge
	copy(grown[len(grown)-tail:], buf[ge:])
	return grown, len(grown) - tail
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (g *gapLines) len() int { return len(g.buf) - (g.gapEnd - g.gap) }

func (g *gapLines) at(i int) string {
	if g.hot.on && i == g.hot.line {
		g.flush() // its text is wanted whole: offset reads the last line
	}
	if i >= g.gap {
		i += g.gapEnd - g.gap
	}
	return g.buf[i].s
}

// moveGap puts the gap before line i.
func (g *gapLines) moveGap(i int) {
	// The slots left behind are cleared, so that the gap holds no line
	// alive.
	g.moved += shiftGap(g.buf, g.gap, g.gapEnd, i, true)
	g.gap, g.gapEnd = i, i+g.gapEnd-g.gap
}

// replace replaces lines [from, to) by fresh (new lines).
func (g *gapLines) replace(from, to int, fresh []string) {
	g.moveGap(to)
	clear(g.buf[from:g.gap])
	g.gap = from
	if size := g.gapEnd - g.gap; size < len(fresh) {
		g.moved += g.len()
		g.buf, g.gapEnd = growGap(g.buf, g.gap, g.gapEnd, len(fresh), 16)
	}
	for _, s := range fresh {
		g.buf[g.gap] = lineRef{s: s, from: -1}
		g.gap++
	}
}

// applyBatch applies changes (more than one, the first ranged, none
// holding a '\r') to a document without lone '\r's. handled is false, and
// the document untouched, when a change would make a lone '\r' (by joining
// a "\r\n" line to the next): the one-by-one path then applies them.
func (d *Document) applyBatch(changes []Change) (handled bool, err error) {
	docBytes := 0
	g := &gapLines{buf: make([]lineRef, len(d.lines), len(d.lines)+len(changes)+16)}
	for i, l := range d.lines {
		g.buf[i] = lineRef{s: l, from: i}
		docBytes += len(l) + 1
	}
	g.buf = g.buf[:cap(g.buf)]
	g.gap, g.gapEnd = len(d.lines), len(g.buf)
	limit := maxEditWork(docBytes)
	work := 0
	for k, ch := range changes {
		if ch.Range == nil {
			return false, nil // not given here: see Apply
		}
		if r := ch.Range; r.Start.Line == r.End.Line && strings.IndexByte(ch.Text, '\n') < 0 {
			// Within one line: edited in place (see hotLine).
			n, err := g.editLine(*r, ch.Text)
			if errors.Is(err, errLoneCR) {
				return false, nil
			}
			if err != nil {
				return true, fmt.Errorf("change %d of %d: %w", k+1, len(changes), err)
			}
			work += n
			if w := work + 16*g.moved + g.hotMoved + g.hot.moved; w > limit {
				return true, fmt.Errorf("change %d of %d: the edit needs more than %d bytes of work on a %d-byte document (send the whole text instead): %w",
					k+1, len(changes), limit, docBytes, ErrEditTooCostly)
			}
			continue
		}
		g.flush()
		sl, sb, el, eb, err := g.span(*ch.Range)
		if err != nil {
			return true, fmt.Errorf("change %d of %d: %w", k+1, len(changes), err)
		}
		text := g.at(sl)[:sb] + ch.Text + g.at(el)[eb:]
		fresh := strings.Split(text, "\n")
		for _, l := range fresh {
			if i := strings.IndexByte(l, '\r'); i >= 0 && i < len(l)-1 {
				return false, nil // a lone '\r' now: the client's lines change
			}
		}
		g.replace(sl, el+1, fresh)
		work += sb + eb + 2*len(text)
		if w := work + 16*g.moved + g.hotMoved; w > limit {
			return true, fmt.Errorf("change %d of %d: the edit needs more than %d bytes of work on a %d-byte document (send the whole text instead): %w",
				k+1, len(changes), limit, docBytes, ErrEditTooCostly)
		}
	}
	g.flush()
	d.batchWork = work + 16*g.moved + g.hotMoved
	n := g.len()
	lines := make([]string, n)
	results := make([]lineRes, n)
	for i := range n {
		j := i
		if i >= g.gap {
			j += g.gapEnd - g.gap
		}
		r := g.buf[j]
		lines[i] = r.s
		if r.from >= 0 {
			results[i] = d.results[r.from]
		} else {
			results[i] = d.parse(r.s)
		}
	}
	d.lines, d.results = lines, results
	d.crs = nil
	d.report, d.before = nil, nil // line numbers moved: no patching
	return true, nil
}

// span converts a change's range to lines and byte offsets, as
// Document.offset does for a document without lone '\r's (the client's
// lines are the runtime's, but for a '\r' ending the text).
func (g *gapLines) span(r Range) (sl, sb, el, eb int, err error) {
	s, e := r.Start, r.End
	if e.Line < s.Line || (e.Line == s.Line && e.Character < s.Character) {
		return 0, 0, 0, 0, fmt.Errorf("range end %d:%d is before its start %d:%d: %w", e.Line, e.Character, s.Line, s.Character, ErrInvalidPosition)
	}
	if sl, sb, err = g.offset(s); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("range start: %w", err)
	}
	if el, eb, err = g.offset(e); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("range end: %w", err)
	}
	return sl, sb, el, eb, nil
}

func (g *gapLines) offset(p Position) (int, int, error) {
	if p.Line < 0 {
		return 0, 0, fmt.Errorf("line %d is negative: %w", p.Line, ErrInvalidPosition)
	}
	if p.Character < 0 {
		return 0, 0, fmt.Errorf("line %d: character %d is negative: %w", p.Line, p.Character, ErrInvalidPosition)
	}
	last := g.len() - 1
	lastLine := g.at(last)
	trailingCR := lastLine != "" && lastLine[len(lastLine)-1] == '\r'
	n := last + 1
	if trailingCR {
		n++
	}
	switch {
	case p.Line == n && p.Character == 0, p.Line == last+1 && trailingCR:
		return last, len(lastLine), nil
	case p.Line > last:
		return 0, 0, fmt.Errorf("line %d is outside the document's %d lines: %w", p.Line, n, ErrInvalidPosition)
	}
	l := g.at(p.Line)
	to := len(l)
	if to > 0 && l[to-1] == '\r' {
		to--
	}
	b, err := byteOffset(l[:to], p.Character)
	if err != nil {
		return 0, 0, fmt.Errorf("line %d: %w", p.Line, err)
	}
	return p.Line, b, nil
}

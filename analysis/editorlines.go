package analysis

import (
	"sort"
	"strings"
)

// The client's line numbering (see Document). The runtime splits the text
// on '\n'; an LSP client also ends a line at a lone '\r' (one no '\n'
// follows), and leaves the '\r' of a "\r\n" out of the line. A '\r' before
// the last byte of a runtime line is always lone (the next byte is in the
// line, so it is not '\n'); a '\r' that ends a runtime line is followed by
// its '\n', except on the last line, where it ends the text.
//
// Document.crs indexes the lines holding lone '\r's before their last
// byte. Almost no file has one (JSON allows a '\r' only as whitespace
// between tokens, and no writer puts it there), so the index is nil and
// every mapping below returns at its first test.

// crLine is a runtime line holding lone '\r's before its last byte: the
// client sees it as len(bytes)+1 lines.
type crLine struct {
	line   int   // index in Document.lines
	before int   // lone '\r's in the lines above: the client numbers this line line+before
	bytes  []int // byte offset of each lone '\r', ascending
	cols   []int // and its UTF-16 column
}

// loneCRs returns the byte offsets and UTF-16 columns of the '\r's of line
// s before its last byte, or nil.
func loneCRs(s string) (bytes, cols []int) {
	if len(s) < 2 {
		return nil, nil
	}
	body := s[:len(s)-1]
	from, col := 0, 0
	for {
		k := strings.IndexByte(body[from:], '\r')
		if k < 0 {
			return bytes, cols
		}
		col += width16(body[from : from+k])
		bytes = append(bytes, from+k)
		cols = append(cols, col)
		col++ // the '\r'
		from += k + 1
	}
}

// appendCRs appends the index entries of lines, the first of which is
// line first of the document.
func appendCRs(out []crLine, lines []string, first int) []crLine {
	for i, l := range lines {
		if b, c := loneCRs(l); b != nil {
			out = append(out, crLine{line: first + i, bytes: b, cols: c})
		}
	}
	return out
}

// numberCRs sets every entry's before.
func numberCRs(crs []crLine) {
	before := 0
	for i := range crs {
		crs[i].before = before
		before += len(crs[i].bytes)
	}
}

// indexCRs indexes lines, the split of text. A text with no '\r' at all is
// told by one IndexByte over it.
func indexCRs(text string, lines []string) []crLine {
	if strings.IndexByte(text, '\r') < 0 {
		return nil
	}
	out := appendCRs(nil, lines, 0)
	if len(out) == 0 {
		return nil // a CRLF file
	}
	numberCRs(out)
	return out
}

// replaceCRs updates the index after lines [from, to) were replaced by
// fresh. It builds a new slice rather than changing d.crs in place, so
// that Apply can restore the old one when a later change fails.
func (d *Document) replaceCRs(from, to int, fresh []string) {
	if len(d.crs) == 0 {
		if out := appendCRs(nil, fresh, from); len(out) > 0 {
			numberCRs(out)
			d.crs = out
		}
		return
	}
	delta := len(fresh) - (to - from)
	lo := sort.Search(len(d.crs), func(k int) bool { return d.crs[k].line >= from })
	hi := sort.Search(len(d.crs), func(k int) bool { return d.crs[k].line >= to })
	out := make([]crLine, 0, len(d.crs)-(hi-lo)+1)
	out = append(out, d.crs[:lo]...)
	out = appendCRs(out, fresh, from)
	for _, c := range d.crs[hi:] {
		c.line += delta
		out = append(out, c)
	}
	if len(out) == 0 {
		d.crs = nil
		return
	}
	numberCRs(out)
	d.crs = out
}

// trailingCR reports whether the text ends with a '\r', which the client
// takes for a line break before an empty last line.
func (d *Document) trailingCR() bool {
	l := d.lines[len(d.lines)-1]
	return l != "" && l[len(l)-1] == '\r'
}

// EditorLineCount is the number of lines an LSP client sees in the text.
// It equals LineCount unless the text holds a lone '\r'.
func (d *Document) EditorLineCount() int {
	n := len(d.lines)
	if k := len(d.crs); k > 0 {
		n += d.crs[k-1].before + len(d.crs[k-1].bytes)
	}
	if d.trailingCR() {
		n++
	}
	return n
}

// segment is the part of a runtime line that the client shows as one line.
type segment struct {
	line     int // runtime line index
	from, to int // bytes of the line the client's line holds, its line break left out
	col      int // UTF-16 column of from in the runtime line
	end      int // UTF-16 column of to when a lone '\r' follows, else -1
}

// segment finds the client's line e.
func (d *Document) segment(e int) (segment, bool) {
	if e < 0 {
		return segment{}, false
	}
	base := 0 // lone '\r's above runtime line e-base
	if len(d.crs) > 0 {
		j := sort.Search(len(d.crs), func(k int) bool { return d.crs[k].line+d.crs[k].before > e }) - 1
		if j >= 0 {
			c := &d.crs[j]
			if s := e - (c.line + c.before); s <= len(c.bytes) {
				return d.crSegment(c, s), true
			}
			base = c.before + len(c.bytes)
		}
	}
	i, last := e-base, len(d.lines)-1
	switch {
	case i <= last:
		l := d.lines[i]
		to := len(l)
		if to > 0 && l[to-1] == '\r' {
			to--
		}
		return segment{line: i, to: to, end: -1}, true
	case i == last+1 && d.trailingCR():
		l := d.lines[last]
		return segment{line: last, from: len(l), to: len(l), col: width16(l), end: -1}, true
	}
	return segment{}, false
}

// crSegment is the client's line s (from 0) of c's runtime line.
func (d *Document) crSegment(c *crLine, s int) segment {
	l := d.lines[c.line]
	sg := segment{line: c.line, end: -1}
	if s > 0 {
		sg.from, sg.col = c.bytes[s-1]+1, c.cols[s-1]+1
	}
	if s < len(c.bytes) {
		sg.to, sg.end = c.bytes[s], c.cols[s]
		return sg
	}
	sg.to = len(l)
	if l[len(l)-1] == '\r' {
		sg.to--
	}
	return sg
}

// EditorPosition is where the client sees UTF-16 column col of runtime
// line i (both from 0). A column past the end of the runtime line stays
// on the client's last line of it (as for a "\r\n" line, whose '\r' the
// engine's widths count and the client does not).
func (d *Document) EditorPosition(i, col int) Position {
	if len(d.crs) == 0 {
		return Position{Line: i, Character: col}
	}
	j := sort.Search(len(d.crs), func(k int) bool { return d.crs[k].line > i }) - 1
	if j < 0 {
		return Position{Line: i, Character: col}
	}
	c := &d.crs[j]
	if c.line < i {
		return Position{Line: i + c.before + len(c.bytes), Character: col}
	}
	s := sort.SearchInts(c.cols, col) // the lone '\r's before col
	start := 0
	if s > 0 {
		start = c.cols[s-1] + 1
	}
	return Position{Line: i + c.before + s, Character: col - start}
}

// RuntimePosition is the runtime line (from 0) and UTF-16 column of the
// client's position p; ok is false when p is not on one of the client's
// lines. A character past the end of a line that a lone '\r' ends is taken
// as that end; past the end of a runtime line it is kept, as requests
// compare it with spans and spans never reach past a line.
func (d *Document) RuntimePosition(p Position) (line, col int, ok bool) {
	if p.Character < 0 {
		return 0, 0, false
	}
	if len(d.crs) == 0 && p.Line >= 0 && p.Line < len(d.lines) {
		return p.Line, p.Character, true
	}
	sg, ok := d.segment(p.Line)
	if !ok {
		return 0, 0, false
	}
	col = sg.col + p.Character
	if sg.end >= 0 && col > sg.end {
		col = sg.end
	}
	return sg.line, col, true
}

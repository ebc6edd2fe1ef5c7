package analysis

import (
	"encoding/binary"
	"iter"
)

// LineList is a list of line numbers in a few bytes a line: the
// differences between successive lines, varint-coded in runs of equal
// differences, so the million lines of a file of blank lines take a few
// bytes and lines scattered over a file about two bytes each. The zero
// value is an empty list.
type LineList struct {
	b        []byte // (zigzag difference, repeats-1) pairs, uvarints
	n        int
	last     int // the line added last
	d, k     int // the run not yet in b: k lines, each d after the one before
	unsorted bool
}

// Add appends ln.
func (l *LineList) Add(ln int) {
	d := ln - l.last
	if d < 0 {
		l.unsorted = true
	}
	l.last = ln
	l.n++
	if l.k > 0 && d == l.d {
		l.k++
		return
	}
	l.flush()
	l.d, l.k = d, 1
}

func (l *LineList) flush() {
	if l.k > 0 {
		l.b = binary.AppendVarint(l.b, int64(l.d))
		l.b = binary.AppendUvarint(l.b, uint64(l.k-1))
	}
}

// Len is the number of lines added.
func (l *LineList) Len() int { return l.n }

// Sorted reports whether the lines were added in ascending order.
func (l *LineList) Sorted() bool { return !l.unsorted }

// Size is the bytes the list holds (for tests and benchmarks).
func (l *LineList) Size() int { return cap(l.b) }

// All yields the lines in the order added.
func (l *LineList) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		r := l.Reader()
		for ln, ok := r.Next(); ok; ln, ok = r.Next() {
			if !yield(ln) {
				return
			}
		}
	}
}

// Reader reads the lines in the order added. The list must not be added
// to while it is read.
func (l *LineList) Reader() LineReader { return LineReader{l: l} }

// LineReader reads a LineList.
type LineReader struct {
	l          *LineList
	off, ln    int
	d, k       int // the current run: k lines left, each d after the one before
	pendingRun bool
}

// Next returns the next line, or false after the last.
func (r *LineReader) Next() (int, bool) {
	if r.k == 0 {
		switch {
		case r.off < len(r.l.b):
			d, n := binary.Varint(r.l.b[r.off:])
			k, m := binary.Uvarint(r.l.b[r.off+n:])
			r.off += n + m
			r.d, r.k = int(d), int(k)+1
		case !r.pendingRun && r.l.k > 0:
			r.pendingRun = true
			r.d, r.k = r.l.d, r.l.k
		default:
			return 0, false
		}
	}
	r.k--
	r.ln += r.d
	return r.ln, true
}

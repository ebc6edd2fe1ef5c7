package analysis

import "sort"

// MessageAtLine returns the index in Messages of the message on physical
// line ln (1-based, as everywhere in a Report; an LSP line is ln-1), and
// false when that line holds no valid message (empty, invalid, out of
// range) or the report was made with SkipMessages.
func (r *Report) MessageAtLine(ln int) (int, bool) {
	i := sort.Search(len(r.Messages), func(i int) bool { return r.Messages[i].Line >= ln })
	if i < len(r.Messages) && r.Messages[i].Line == ln {
		return i, true
	}
	return 0, false
}

// LineOfMessage returns the physical line (1-based) of message i, or 0 when
// i is out of range.
func (r *Report) LineOfMessage(i int) int {
	if i < 0 || i >= len(r.Messages) {
		return 0
	}
	return r.Messages[i].Line
}

// UnitOfMessage returns the index in Units of the unit holding message i,
// or -1 when i is out of range. It works with SkipMessages too (units count
// messages either way).
func (r *Report) UnitOfMessage(i int) int {
	if i < 0 || len(r.Units) == 0 || i > r.Units[len(r.Units)-1].Last {
		return -1
	}
	return sort.Search(len(r.Units), func(k int) bool { return r.Units[k].Last >= i })
}

// Kept reports whether message i is inside the budget's cutoff (false when
// there is no cutoff: no budget, an error, or a file that does not load).
func (r *Report) Kept(i int) bool {
	if r.Cutoff == nil || r.Cutoff.FirstUnit < 0 || r.Cutoff.FirstUnit >= len(r.Units) {
		return false
	}
	return i >= r.Units[r.Cutoff.FirstUnit].First && i <= r.Units[len(r.Units)-1].Last
}

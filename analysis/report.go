package analysis

import (
	"fmt"
	"sort"

	"github.com/sessionls/sessionls/internal/textfmt"
)

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

// LoadFailure is why the runtime's loadSession refuses a file.
type LoadFailure struct {
	// Line is the first invalid line, where loadSession throws; 0 when the
	// file is refused for its length.
	Line int
	// Width16 is the file's length in UTF-16 code units.
	Width16 int64
	// Message is what the runtime throws: the first invalid line's finding
	// message (whether or not that finding's code is disabled), or node's
	// RangeError for a file too long to read into one string.
	Message string
}

// errStringTooLong is what loadSession rethrows when the file decodes to
// more than MaxStringLength UTF-16 units: node 20's fs/promises
// readFile(path, "utf8") throws a RangeError "Invalid string length" (the
// synchronous readFileSync words it differently; the runtime is async).
const errStringTooLong = `RangeError: Invalid string length (the file is longer than node's maximum string of 0x1fffffe8 UTF-16 units, so readFile(path, "utf8") throws)`

// Error returns Message, so a LoadFailure can be returned as an error.
func (f *LoadFailure) Error() string { return f.Message }

// Summary says in one clause that the file does not load and why, for a
// lens or a status line: "the file does not load (line 8 is invalid)".
func (f *LoadFailure) Summary() string {
	if f.Line > 0 {
		return fmt.Sprintf("the file does not load (line %d is invalid)", f.Line)
	}
	return fmt.Sprintf("the file does not load (%s UTF-16 units, more than readFile can hold in one string)",
		textfmt.Thousands(f.Width16))
}

// LoadFailure says why loadSession refuses the file, or returns nil when
// the file loads.
func (r *Report) LoadFailure() *LoadFailure {
	if r.Loads() {
		return nil
	}
	f := &LoadFailure{Line: r.FirstInvalidLine, Width16: r.Width16}
	switch {
	case f.Line == 0:
		f.Message = errStringTooLong
	case r.loadMessage != "":
		f.Message = r.loadMessage
	default:
		// A report built by hand: the finding, if there is one.
		f.Message = fmt.Sprintf("invalid session at line %d", f.Line)
		for _, fd := range r.Findings {
			if fd.Line == f.Line && IsRefusal(fd.Code) {
				f.Message = fd.Message
				break
			}
		}
	}
	return f
}

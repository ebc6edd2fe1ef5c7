package analysis

// TEMPORARY: signatures of the engine, to be replaced by their real
// implementations (units.go, cutoff.go, checks.go, stream.go, document.go).
// Every function here is deleted from this file as it is written.

import (
	"github.com/sessionls/sessionls/analysis/line"
)

// Position is an LSP-style position: 0-based line, UTF-16 column.
type Position struct{ Line, Character int }

// Range is an LSP-style half-open range.
type Range struct{ Start, End Position }

// Change is one content change: Range nil replaces the whole text.
type Change struct {
	Range *Range
	Text  string
}

// Document is an open file kept as lines; edits re-parse only the lines they
// touch, then units, costs, checks and cutoff are recomputed.
type Document struct{}

// NewDocument analyses text.
func NewDocument(text string, opts Options) *Document { panic("not yet written") }

// Apply applies changes in order; an out-of-range change is an error and
// leaves the document as it was before the call.
func (d *Document) Apply(changes []Change) error { panic("not yet written") }

// SetOptions changes budget or disabled codes.
func (d *Document) SetOptions(opts Options) { panic("not yet written") }

// Text returns the whole text.
func (d *Document) Text() string { panic("not yet written") }

// LineCount is the number of lines (split on '\n'; a trailing '\n' ends
// with an empty last line, as editors show it).
func (d *Document) LineCount() int { panic("not yet written") }

// Line returns line i (0-based) without its '\n'.
func (d *Document) Line(i int) string { panic("not yet written") }

// LineResult is the verdict on line i (0-based); an empty line is Valid
// with RoleNone (skipped by the runtime).
func (d *Document) LineResult(i int) line.Result { panic("not yet written") }

// Report is the current analysis (computed lazily after edits).
func (d *Document) Report() *Report { panic("not yet written") }

package lsp

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
)

// Candidates of an ambiguous run of interleaved pieces (fix.Ambiguity):
// the pieces pair into valid records more than one way, and sessionls
// does not guess. Each candidate is offered as its own quick fix on the
// diagnostics of the run's lines, as rust-analyzer offers several
// imports: kind quickfix, never preferred, its title saying which pieces
// it joins and what it keeps and loses (and that it is unsafe). None is
// ever part of source.fixAll, which applies the safe fixes only.

// ambiguities computes the document's ambiguous runs once per request:
// the pairing reads the whole document, so only when a diagnostic that
// may be in one (interleaved-record) is asked about.
type ambiguities struct {
	f    *file
	done bool
	ambs []fix.Ambiguity
}

func (a *ambiguities) get() []fix.Ambiguity {
	if !a.done {
		a.done = true
		if am, ok := a.f.dialect.(dialect.Ambiguer); ok || a.f.isSeed() {
			if !ok {
				am = dialect.Seed{}
			}
			a.ambs = am.Ambiguities([]byte(a.f.doc.Text()), a.f.report().Findings)
		}
	}
	return a.ambs
}

// candidateActions are the quick fixes, one per candidate, of the
// ambiguous run that holds line1 (1-based), for the diagnostic d of code
// code.
func (s *server) candidateActions(amb *ambiguities, d protocol.Diagnostic, line1 int, code string, versioned bool) []protocol.CodeAction {
	if code != analysis.CodeInterleavedRecord {
		return nil
	}
	var out []protocol.CodeAction
	for _, a := range amb.get() {
		if line1 < a.Line || line1 > a.EndLine {
			continue
		}
		for _, c := range a.Candidates {
			out = append(out, protocol.CodeAction{
				Title:       c.Title,
				Kind:        protocol.QuickFix,
				Diagnostics: []protocol.Diagnostic{d},
				IsPreferred: false,
				Edit:        versionedEdit(amb.f, fixEdits(amb.f.doc, c), versioned),
			})
		}
	}
	return out
}

// fixEdits are the text edits of a fix over whole lines of doc (its edits'
// offsets are in the document's text, lines joined by '\n').
func fixEdits(doc *analysis.Document, f fix.Fix) []protocol.TextEdit {
	// The position of byte offset off, counted from the fix's first line.
	ln, at := f.Line-1, f.LineStart
	pos := func(off int) protocol.Position {
		for {
			l := doc.Line(ln)
			if off <= at+len(l) || ln >= doc.LineCount()-1 {
				return clientPosition(doc, ln, width16(l[:min(max(off-at, 0), len(l))]))
			}
			at += len(l) + 1
			ln++
		}
	}
	out := make([]protocol.TextEdit, 0, len(f.Edits))
	for _, e := range f.Edits {
		start := pos(e.Start) // edits are in order: pos only moves forward
		out = append(out, protocol.TextEdit{Range: protocol.Range{Start: start, End: pos(e.End)}, NewText: strings.Clone(e.New)})
	}
	return out
}

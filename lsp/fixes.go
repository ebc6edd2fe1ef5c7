package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// Fixes in the editor, the same repairs `sessionls check --fix` makes (see
// package fix):
//
//   - every fixable diagnostic carries, in its data, the kind of fix it has
//     and the document version it is about;
//   - textDocument/codeAction answers a quickfix for each such diagnostic of
//     the request's context (or, when the client sends none, for each
//     fixable finding on the requested lines), preferred when it is safe,
//     its title saying what an unsafe one loses or invents;
//   - source.fixAll.sessionls applies every safe fix at once (what
//     "editor.codeActionsOnSave" runs), with exactly the result of --fix.
//
// The edits are versioned (documentChanges) when the client supports it.
// The server never applies them itself: the client does and sends
// didChange, after which diagnostics and lenses are republished as after
// any edit.

// codeActionFixAll is the kind of the action that applies every safe fix.
const codeActionFixAll protocol.CodeActionKind = "source.fixAll.sessionls"

// fixActionKinds are the code action kinds the fixes add to the server's.
var fixActionKinds = []protocol.CodeActionKind{protocol.QuickFix, codeActionFixAll}

// diagnosticData is the data of a fixable diagnostic.
type diagnosticData struct {
	Fix     string `json:"fix"`     // "safe" or "unsafe"
	Version int32  `json:"version"` // the document version it was computed on
}

// withFixData sets the data of each fixable diagnostic (those of a
// fixable code, which are published one per finding, on its line).
func withFixData(f *file, diags []protocol.Diagnostic) []protocol.Diagnostic {
	for i := range diags {
		code, _ := diags[i].Code.(string)
		if !f.isSeed() {
			// The dialect planned the fixes with its report.
			if p, ok := f.plannedFixOf(diagnosticLine(f.doc, diags[i]), code); ok {
				diags[i].Data = diagnosticData{Fix: p.safety.String(), Version: f.version}
			}
			continue
		}
		switch {
		case code == analysis.CodeOrphanToolResult && f.doc.Report().InvalidLines == 0:
			// Always the line deleted (the engine found a valid tool
			// result there, and no refused line may declare its id): no
			// need to read the line on every publish.
			diags[i].Data = diagnosticData{Fix: fix.Unsafe.String(), Version: f.version}
		case fix.Fixable(code):
			if lf, ok := findingFix(f.doc, diagnosticLine(f.doc, diags[i]), code); ok {
				diags[i].Data = diagnosticData{Fix: lf.Safety.String(), Version: f.version}
			}
		}
	}
	return diags
}

// diagnosticLine is the 1-based runtime line of a diagnostic the server
// published (its range is in the client's lines), 0 when it is past the
// document.
func diagnosticLine(doc *analysis.Document, d protocol.Diagnostic) int {
	i, _, ok := runtimePosition(doc, d.Range.Start)
	if !ok {
		return 0
	}
	return i + 1
}

// findingFix is the fix of the finding (line1, code) of doc, if it has one.
func findingFix(doc *analysis.Document, line1 int, code string) (fix.LineFix, bool) {
	if !fix.Fixable(code) || line1 < 1 || line1 > doc.LineCount() {
		return fix.LineFix{}, false
	}
	if code == analysis.CodeSplitRecord {
		// Only joining the lines repairs a record split over them (the
		// fix-all action does): a line's own repair would delete a piece.
		return fix.LineFix{}, false
	}
	l := []byte(doc.Line(line1 - 1))
	if code == analysis.CodeOrphanToolResult && orphanHeld(doc, line1, l) {
		return fix.LineFix{}, false
	}
	return fix.ForLine(l, code)
}

// orphanHeld reports whether the orphan tool result on line1 (its bytes l)
// is kept, as check --fix keeps it: a refused line may declare its id
// (fix.OrphanHeld).
func orphanHeld(doc *analysis.Document, line1 int, l []byte) bool {
	rep := doc.Report()
	if rep.InvalidLines == 0 {
		return false
	}
	var span line.Span
	found := false
	for _, f := range rep.Findings {
		if f.Line == line1 && f.Code == analysis.CodeOrphanToolResult {
			span, found = f.Span, true
		}
	}
	if !found {
		return false
	}
	// Every refused line, not only the findings listed (the report keeps
	// the first maxDiagnostics of each code).
	declared := map[string]bool{}
	for i := range doc.LineCount() {
		if doc.LineResult(i).Verdict != line.Valid {
			fix.DeclaredIDs([]byte(doc.Line(i)), declared)
		}
	}
	return fix.OrphanHeld(l, span, declared)
}

// fixActions returns the quick fixes for p and, when asked for, the fix-all
// action.
func (s *server) fixActions(ctx context.Context, f *file, p *protocol.CodeActionParams) []protocol.CodeAction {
	if !f.inSync() {
		return nil // our text is not the client's: edits would land wrong
	}
	versioned := s.currentCaps().documentChanges
	var out []protocol.CodeAction
	if wantsKind(p.Context.Only, protocol.QuickFix) {
		out = append(out, s.quickFixes(f, p, versioned)...)
	}
	// Fix-all only when asked for by kind (the Source Action menu asks for
	// "source", codeActionsOnSave for "source.fixAll.sessionls"): the light
	// bulb asks with no kind on every cursor move, and fix-all analyses the
	// whole document.
	if len(p.Context.Only) > 0 && wantsKind(p.Context.Only, codeActionFixAll) {
		if a, ok := s.fixAll(ctx, f, versioned); ok {
			out = append(out, a)
		}
	}
	return out
}

// quickFixes: one per fixable diagnostic of the request's context, or per
// fixable finding on the requested lines when the context has none.
func (s *server) quickFixes(f *file, p *protocol.CodeActionParams, versioned bool) []protocol.CodeAction {
	var out []protocol.CodeAction
	amb := &ambiguities{f: f}
	add := func(d protocol.Diagnostic, line1 int, code string) {
		// The candidates of an ambiguous run (candidates.go) come after
		// the line's own fix, if it has one.
		defer func() { out = append(out, s.candidateActions(amb, d, line1, code, versioned)...) }()
		p, ok := quickFixOf(f, line1, code)
		if !ok {
			return
		}
		out = append(out, protocol.CodeAction{
			Title:       p.title,
			Kind:        protocol.QuickFix,
			Diagnostics: []protocol.Diagnostic{d},
			IsPreferred: p.safety == fix.Safe,
			Edit:        versionedEdit(f, p.edits, versioned),
		})
	}
	if len(p.Context.Diagnostics) > 0 {
		for _, d := range p.Context.Diagnostics {
			code, ok := d.Code.(string)
			// An interleaved-record diagnostic may have candidates without a
			// fix of its own (and no fix data): the text is in sync, and
			// the candidates are computed on it.
			if !ok || d.Source != diagnosticSource || !fixDataCurrent(d.Data, f.version) && code != analysis.CodeInterleavedRecord {
				continue
			}
			add(d, diagnosticLine(f.doc, d), code)
		}
		return out
	}
	rep := f.report()
	for _, fd := range rep.Findings {
		l := clientLine(f.doc, fd.Line)
		if l < p.Range.Start.Line || l > p.Range.End.Line {
			continue
		}
		d := toDiagnostic(f.uri, f.doc, fd)
		if p, ok := quickFixOf(f, fd.Line, fd.Code); ok {
			d.Data = diagnosticData{Fix: p.safety.String(), Version: f.version}
		}
		add(d, fd.Line, fd.Code)
	}
	return out
}

// quickFixOf is the fix of the finding (line1, code) of f: the engine's
// fix of its line for seed, else the one its dialect planned.
func quickFixOf(f *file, line1 int, code string) (plannedFix, bool) {
	if !f.isSeed() {
		return f.plannedFixOf(line1, code)
	}
	lf, ok := findingFix(f.doc, line1, code)
	if !ok {
		return plannedFix{}, false
	}
	return plannedFix{title: lf.Title, safety: lf.Safety, edits: lineEdits(f.doc, line1, lf)}, true
}

// fixDataCurrent reports whether a diagnostic's data says it has a fix and
// is about version v of the document (an older diagnostic's line may have
// moved).
func fixDataCurrent(data any, v int32) bool {
	if data == nil {
		return false
	}
	b, err := json.Marshal(data)
	if err != nil {
		return false
	}
	var dd diagnosticData
	if err := json.Unmarshal(b, &dd); err != nil {
		return false
	}
	return dd.Fix != "" && dd.Version == v
}

// fixAll is the action that applies every safe fix, as `check --fix` does,
// or false when there is none.
func (s *server) fixAll(ctx context.Context, f *file, versioned bool) (protocol.CodeAction, bool) {
	text := []byte(f.doc.Text())
	res, err := f.dialect.FixAll(ctx, text, f.opts, false) // the options the document is analysed with (seed: fix.FixAllContext)
	if err != nil || res.Fixed == 0 {
		return protocol.CodeAction{}, false
	}
	var edits []protocol.TextEdit
	nOld := fix.CountLines(text)
	for _, c := range fix.Changes(text, res.Data, res.Origin) {
		end := clientPosition(f.doc, c.OldEnd, 0)
		if c.OldEnd >= nOld && (len(text) == 0 || text[len(text)-1] != '\n') {
			// Through the end of a last line without a line break.
			last := nOld - 1
			end = clientPosition(f.doc, last, width16(f.doc.Line(last)))
		}
		edits = append(edits, protocol.TextEdit{
			Range:   protocol.Range{Start: clientPosition(f.doc, c.OldStart, 0), End: end},
			NewText: string(c.New),
		})
	}
	return protocol.CodeAction{
		Title: "Fix all safe sessionls findings (" + textfmt.Plural(res.Fixed, "fix", "fixes") + ")",
		Kind:  codeActionFixAll,
		Edit:  versionedEdit(f, edits, versioned),
	}, true
}

// lineEdits are the text edits of the fix lf of physical line line1.
func lineEdits(doc *analysis.Document, line1 int, lf fix.LineFix) []protocol.TextEdit {
	ln := line1 - 1
	text := doc.Line(ln)
	if lf.DeleteLine {
		r := protocol.Range{Start: clientPosition(doc, ln, 0), End: clientPosition(doc, ln+1, 0)}
		if line1 >= doc.LineCount() {
			// The last line, without a line break: its text only.
			r.End = clientPosition(doc, ln, width16(text))
		}
		return []protocol.TextEdit{{Range: r, NewText: ""}}
	}
	out := make([]protocol.TextEdit, 0, len(lf.Edits))
	for _, e := range lf.Edits {
		out = append(out, protocol.TextEdit{
			Range: protocol.Range{
				Start: clientPosition(doc, ln, width16(text[:e.Start])),
				End:   clientPosition(doc, ln, width16(text[:e.End])),
			},
			NewText: e.New,
		})
	}
	return out
}

// width16 is the UTF-16 length of s as node decodes it (an invalid UTF-8
// sequence is one U+FFFD), the unit of LSP columns.
func width16(s string) int { return line.Parse([]byte(s)).Width16 }

// versionedEdit wraps edits of f in a workspace edit, versioned when the
// client supports documentChanges.
func versionedEdit(f *file, edits []protocol.TextEdit, versioned bool) *protocol.WorkspaceEdit {
	if !versioned {
		return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{f.uri: edits}}
	}
	v := f.version
	return &protocol.WorkspaceEdit{DocumentChanges: []protocol.TextDocumentEdit{{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: f.uri},
			Version:                &v,
		},
		Edits: edits,
	}}}
}

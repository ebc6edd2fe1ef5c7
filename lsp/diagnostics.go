package lsp

import (
	"fmt"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// Diagnostics: one per finding, published with the document's version
// after every open and change, and cleared ([]) on close. For a client
// that fades Unnecessary-tagged ranges, the budget-cutoff finding is
// published as the faded region the model will not see (trimmedDiagnostic)
// rather than as a squiggle on the first kept line. A document out of sync
// gets only the out-of-sync diagnostic.

// diagnosticSource names sessionls in every diagnostic.
const diagnosticSource = "sessionls"

// codeOutOfSync is the code of the diagnostic published for a document
// whose text the server lost track of (not an engine finding: it cannot be
// turned off with the checks setting).
const codeOutOfSync = "out-of-sync"

// publish sends f's diagnostics for its current version.
func (s *server) publish(f *file) {
	var diags []protocol.Diagnostic
	if f.inSync() {
		diags = withFixData(f, toDiagnostics(f.uri, f.doc, f.doc.Report(), s.currentCaps().unnecessaryTag))
	} else {
		diags = []protocol.Diagnostic{outOfSyncDiagnostic(f.syncErr)}
	}
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
		URI: f.uri, Version: f.version, Diagnostics: diags,
	})
}

// outOfSyncDiagnostic replaces every finding of a document out of sync:
// they describe a text the client does not have, on lines that may not be
// where the client shows them, so none is kept. It sits at the start of
// line 1, which every text has.
func outOfSyncDiagnostic(err error) protocol.Diagnostic {
	return protocol.Diagnostic{
		Severity: protocol.DiagnosticSeverityError,
		Code:     codeOutOfSync,
		Source:   diagnosticSource,
		Message: fmt.Sprintf("sessionls is out of sync with this file: an edit could not be applied (%v). "+
			"Its findings are hidden until you reopen the file.", err),
	}
}

// clearDiagnostics publishes an empty list for f (closed, or no longer a
// session file).
func (s *server) clearDiagnostics(f *file) {
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
		URI: f.uri, Version: f.version, Diagnostics: []protocol.Diagnostic{},
	})
}

// toDiagnostics converts every finding of rep, a report on doc. It never
// returns nil: a nil slice would be published as null.
func toDiagnostics(uri protocol.DocumentURI, doc *analysis.Document, rep *analysis.Report, fade bool) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		if d, ok := publishedDiagnostic(uri, doc, rep, f, fade); ok {
			out = append(out, d)
		}
	}
	return out
}

// publishedDiagnostic is finding f as published: toDiagnostic, except that
// with fade the budget-cutoff finding becomes trimmedDiagnostic (or nothing,
// when the budget trims no line).
func publishedDiagnostic(uri protocol.DocumentURI, doc *analysis.Document, rep *analysis.Report, f analysis.Finding, fade bool) (protocol.Diagnostic, bool) {
	if fade && f.Code == analysis.CodeBudgetCutoff {
		return trimmedDiagnostic(doc, rep)
	}
	return toDiagnostic(uri, doc, f), true
}

// trimmedDiagnostic spans the lines above the budget's first kept line,
// the part of the file the model will not see: a hint with the Unnecessary
// tag, which editors draw faded, as they draw unused code. ok is false when
// the budget does not cut or trims no line.
func trimmedDiagnostic(doc *analysis.Document, rep *analysis.Report) (d protocol.Diagnostic, ok bool) {
	c := rep.Cutoff
	if c == nil || rep.CutoffErr != nil || c.FirstKeptLine <= 1 {
		return d, false
	}
	last := c.FirstKeptLine - 1 // the last trimmed line, 1-based
	dropped := max(len(rep.Messages)-c.KeptMessages, 0)
	return protocol.Diagnostic{
		Range: protocol.Range{
			Start: protocol.Position{},
			End:   findingRange(doc, last, line.Span{}).End,
		},
		Severity: protocol.DiagnosticSeverityHint,
		Code:     analysis.CodeBudgetCutoff,
		Source:   diagnosticSource,
		Message: fmt.Sprintf("trimmed by budget %s: the model will not see %s (%s)", textfmt.Thousands(c.Budget),
			textfmt.LineRange(1, last), textfmt.Plural(dropped, "message", "messages")),
		Tags: []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary},
	}, true
}

func toDiagnostic(uri protocol.DocumentURI, doc *analysis.Document, f analysis.Finding) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:    findingRange(doc, f.Line, f.Span),
		Severity: toSeverity(f.Severity),
		Code:     f.Code,
		Source:   diagnosticSource,
		Message:  f.Message,
	}
	for _, r := range f.Related {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri, Range: findingRange(doc, r.Line, r.Span)},
			Message:  r.Message,
		})
	}
	return d
}

func toSeverity(s analysis.Severity) protocol.DiagnosticSeverity {
	switch s {
	case analysis.SeverityError:
		return protocol.DiagnosticSeverityError
	case analysis.SeverityWarning:
		return protocol.DiagnosticSeverityWarning
	case analysis.SeverityInfo:
		return protocol.DiagnosticSeverityInformation
	}
	return protocol.DiagnosticSeverityHint
}

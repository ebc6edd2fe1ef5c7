package lsp

import (
	"github.com/sessionls/sessionls/analysis"
	"go.lsp.dev/protocol"
)

// Diagnostics: one per finding, published with the document's version
// after every open and change, and cleared ([]) on close.

// diagnosticSource names sessionls in every diagnostic.
const diagnosticSource = "sessionls"

// publish sends f's diagnostics for its current version.
func (s *server) publish(f *file) {
	rep := f.doc.Report()
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
		URI: f.uri, Version: f.version, Diagnostics: toDiagnostics(f.uri, f.doc, rep),
	})
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
func toDiagnostics(uri protocol.DocumentURI, doc *analysis.Document, rep *analysis.Report) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		out = append(out, toDiagnostic(uri, doc, f))
	}
	return out
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

package lsp

import (
	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/protocol"
)

// diagnosticSource names sessionls in every diagnostic.
const diagnosticSource = "sessionls"

// publishDiagnosticsParams is protocol.PublishDiagnosticsParams with a
// version that is sent even when it is 0 (protocol's is uint32 omitempty).
type publishDiagnosticsParams struct {
	URI         protocol.DocumentURI  `json:"uri"`
	Version     int32                 `json:"version"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
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

// spanRange is the LSP range of a span on a 1-based physical line.
func spanRange(line1 int, s line.Span) protocol.Range {
	l := uint32(max(line1-1, 0))
	return protocol.Range{
		Start: protocol.Position{Line: l, Character: uint32(max(s.StartCol, 0))},
		End:   protocol.Position{Line: l, Character: uint32(max(s.EndCol, s.StartCol, 0))},
	}
}

// findingRange is spanRange, except that a finding about a whole line (the
// engine gives it the zero Span; the CLI prints column 1 to 1) covers the
// line's text, so an editor underlines the line rather than its first
// character. A trailing '\r' is left out: LSP clients do not count it.
func findingRange(doc *analysis.Document, line1 int, s line.Span) protocol.Range {
	r := spanRange(line1, s)
	if s != (line.Span{}) || line1 < 1 || line1 > doc.LineCount() {
		return r
	}
	w := doc.LineResult(line1 - 1).Width16
	if text := doc.Line(line1 - 1); len(text) > 0 && text[len(text)-1] == '\r' {
		w--
	}
	r.End.Character = uint32(max(w, 0))
	return r
}

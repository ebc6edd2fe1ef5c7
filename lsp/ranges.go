package lsp

import (
	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/protocol"
)

// The server's range rules, shared by every feature. The engine numbers
// the runtime's lines (split on '\n') from 1 and gives columns in UTF-16
// units (line.Span's StartCol and EndCol); LSP numbers lines from 0 and,
// without a negotiated encoding, also counts UTF-16 units. The client also
// ends a line at a lone '\r', so a runtime line holding one is several of
// the client's lines: every position sent or received goes through the
// document's mapping (analysis.Document.EditorPosition and
// RuntimePosition), which is the identity for a file without a lone '\r'.
// Messages keep naming the runtime's lines, as the CLI does.

// clientPosition is where the client sees UTF-16 column col of 0-based
// runtime line i.
func clientPosition(doc *analysis.Document, i, col int) protocol.Position {
	p := doc.EditorPosition(max(i, 0), max(col, 0))
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
}

// clientLine is the client's (0-based) line where 1-based runtime line
// line1 starts.
func clientLine(doc *analysis.Document, line1 int) uint32 {
	return clientPosition(doc, line1-1, 0).Line
}

// runtimePosition is the 0-based runtime line and UTF-16 column of a
// client's position; ok is false when it is past the document.
func runtimePosition(doc *analysis.Document, p protocol.Position) (i, col int, ok bool) {
	return doc.RuntimePosition(analysis.Position{Line: int(p.Line), Character: int(p.Character)})
}

// spanRange is the LSP range of a span on a 1-based runtime line.
func spanRange(doc *analysis.Document, line1 int, s line.Span) protocol.Range {
	i := line1 - 1
	return protocol.Range{
		Start: clientPosition(doc, i, s.StartCol),
		End:   clientPosition(doc, i, max(s.EndCol, s.StartCol)),
	}
}

// findingRange is spanRange, except that a finding about a whole line (the
// engine gives it the zero Span; the CLI prints column 1 to 1) covers the
// line's text, so an editor underlines the line rather than its first
// character. A trailing '\r' is left out: LSP clients do not count it.
func findingRange(doc *analysis.Document, line1 int, s line.Span) protocol.Range {
	if s != (line.Span{}) || line1 < 1 || line1 > doc.LineCount() {
		return spanRange(doc, line1, s)
	}
	w := doc.LineResult(line1 - 1).Width16
	if text := doc.Line(line1 - 1); len(text) > 0 && text[len(text)-1] == '\r' {
		w--
	}
	return protocol.Range{Start: clientPosition(doc, line1-1, 0), End: clientPosition(doc, line1-1, w)}
}

// lineRangeOf is the whole of 0-based runtime line i; its width is the
// engine's (UTF-16 units as node decodes the line, invalid UTF-8 and a
// final '\r' included: clients take a character past a line's end as its
// end).
func lineRangeOf(doc *analysis.Document, i int) protocol.Range {
	return protocol.Range{
		Start: clientPosition(doc, i, 0),
		End:   clientPosition(doc, i, doc.LineResult(i).Width16),
	}
}

// location is spanRange in document uri.
func location(uri protocol.DocumentURI, doc *analysis.Document, line1 int, s line.Span) protocol.Location {
	return protocol.Location{URI: uri, Range: spanRange(doc, line1, s)}
}

// inSpan reports whether a cursor at UTF-16 column col touches s (the end
// counts: a cursor just after a token is still on it).
func inSpan(col int, s line.Span) bool { return s.StartCol <= col && col <= s.EndCol }

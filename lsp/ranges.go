package lsp

import (
	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/protocol"
)

// The server's range rules, shared by every feature. The engine numbers
// lines from 1 and gives columns in UTF-16 units (line.Span's StartCol and
// EndCol); LSP numbers lines from 0 and, without a negotiated encoding,
// also counts UTF-16 units, so columns pass through unchanged.

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

// lineRangeOf is the whole of 0-based line i; its width is the engine's
// (UTF-16 units as node decodes the line, invalid UTF-8 included).
func lineRangeOf(doc *analysis.Document, i int) protocol.Range {
	w := doc.LineResult(i).Width16
	return protocol.Range{
		Start: protocol.Position{Line: uint32(i)},
		End:   protocol.Position{Line: uint32(i), Character: uint32(w)},
	}
}

// location is spanRange in document uri.
func location(uri protocol.DocumentURI, line1 int, s line.Span) protocol.Location {
	return protocol.Location{URI: uri, Range: spanRange(line1, s)}
}

// inSpan reports whether a cursor at UTF-16 column col touches s (the end
// counts: a cursor just after a token is still on it).
func inSpan(col int, s line.Span) bool { return s.StartCol <= col && col <= s.EndCol }

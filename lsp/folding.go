package lsp

import (
	"context"

	"github.com/sessionls/sessionls/analysis"
	"go.lsp.dev/protocol"
)

// FoldingRanges folds multi-line units.
func (s *server) FoldingRanges(ctx context.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return []protocol.FoldingRange{}, nil
	}
	return foldingRanges(f.doc, f.report()), nil
}

// foldingRanges folds every unit that spans more than one of the client's
// lines (a one-message unit on a line holding a lone '\r' folds too).
func foldingRanges(doc *analysis.Document, rep *analysis.Report) []protocol.FoldingRange {
	out := make([]protocol.FoldingRange, 0)
	for _, u := range rep.Units {
		start, end := lineRangeOf(doc, u.StartLine-1).Start.Line, lineRangeOf(doc, u.EndLine-1).End.Line
		if end > start {
			out = append(out, protocol.FoldingRange{
				StartLine: start,
				EndLine:   end,
				Kind:      protocol.RegionFoldingRange,
			})
		}
	}
	return out
}

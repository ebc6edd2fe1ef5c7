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
	return foldingRanges(f.doc.Report()), nil
}

// foldingRanges folds every unit that spans more than one line.
func foldingRanges(rep *analysis.Report) []protocol.FoldingRange {
	out := make([]protocol.FoldingRange, 0)
	for _, u := range rep.Units {
		if u.EndLine > u.StartLine {
			out = append(out, protocol.FoldingRange{
				StartLine: uint32(u.StartLine - 1),
				EndLine:   uint32(u.EndLine - 1),
				Kind:      protocol.RegionFoldingRange,
			})
		}
	}
	return out
}

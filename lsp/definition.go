package lsp

import (
	"context"

	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/protocol"
)

// Definition goes from a tool result's toolCallId to the id of the call it
// answers (the engine's link: analysis.Report.AnsweredCall).
func (s *server) Definition(ctx context.Context, p *protocol.DefinitionParams) ([]protocol.Location, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return []protocol.Location{}, nil
	}
	rep := f.report()
	i, col, ok := runtimePosition(f.doc, p.Position)
	if !ok {
		return []protocol.Location{}, nil
	}
	m, ok := rep.MessageAtLine(i + 1)
	if !ok || rep.Messages[m].Role != line.RoleTool || !inSpan(col, rep.Messages[m].ToolCallIDSpan) {
		return []protocol.Location{}, nil
	}
	a, c, ok := rep.AnsweredCall(m)
	if !ok {
		return []protocol.Location{}, nil
	}
	return []protocol.Location{location(f.uri, f.doc, rep.Messages[a].Line, rep.Messages[a].Calls[c].IDSpan)}, nil
}

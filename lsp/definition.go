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
	rep := f.doc.Report()
	m, ok := rep.MessageAtLine(int(p.Position.Line) + 1)
	if !ok || rep.Messages[m].Role != line.RoleTool || !inSpan(int(p.Position.Character), rep.Messages[m].ToolCallIDSpan) {
		return []protocol.Location{}, nil
	}
	a, c, ok := rep.AnsweredCall(m)
	if !ok {
		return []protocol.Location{}, nil
	}
	return []protocol.Location{location(f.uri, rep.Messages[a].Line, rep.Messages[a].Calls[c].IDSpan)}, nil
}

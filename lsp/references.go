package lsp

import (
	"context"

	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/protocol"
)

// References goes from a call's id (or from a result's toolCallId) to every
// result that links to that call.
func (s *server) References(ctx context.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	out := []protocol.Location{}
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return out, nil
	}
	rep := f.doc.Report()
	m, ok := rep.MessageAtLine(int(p.Position.Line) + 1)
	if !ok {
		return out, nil
	}
	col := int(p.Position.Character)
	msg := &rep.Messages[m]
	a, call := -1, line.Call{}
	switch msg.Role {
	case line.RoleAssistant:
		for _, c := range msg.Calls {
			if inSpan(col, c.IDSpan) {
				a, call = m, c
			}
		}
	case line.RoleTool:
		if inSpan(col, msg.ToolCallIDSpan) {
			a, call = declaringCall(rep, m)
			if a < 0 {
				if p.Context.IncludeDeclaration {
					out = append(out, location(f.uri, msg.Line, msg.ToolCallIDSpan))
				}
				return out, nil
			}
		}
	}
	if a < 0 {
		return out, nil
	}
	if p.Context.IncludeDeclaration {
		out = append(out, location(f.uri, rep.Messages[a].Line, call.IDSpan))
	}
	for _, t := range resultsOf(rep, a, call.ID) {
		out = append(out, location(f.uri, rep.Messages[t].Line, rep.Messages[t].ToolCallIDSpan))
	}
	return out, nil
}

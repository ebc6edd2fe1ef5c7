package lsp

import (
	"context"

	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/protocol"
)

// References goes from a call's id (or from a result's toolCallId) to every
// result that links to that call (the engine's links: analysis.Report's
// AnsweredCall and Results).
func (s *server) References(ctx context.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	out := []protocol.Location{}
	f, rep, m, col, ok := s.messageAt(p.TextDocumentPositionParams)
	if !ok {
		return out, nil
	}
	msg := &rep.Messages[m]
	a, c, ok := -1, -1, false
	switch msg.Role {
	case line.RoleAssistant:
		for k := range msg.Calls {
			if inSpan(col, msg.Calls[k].IDSpan) {
				a, c, ok = m, k, true
			}
		}
	case line.RoleTool:
		if inSpan(col, msg.ToolCallIDSpan) {
			a, c, ok = rep.AnsweredCall(m)
			if !ok {
				// An orphan: its own id is all there is.
				if p.Context.IncludeDeclaration {
					out = append(out, location(f.uri, f.doc, msg.Line, msg.ToolCallIDSpan))
				}
				return out, nil
			}
		}
	}
	if !ok {
		return out, nil
	}
	if p.Context.IncludeDeclaration {
		out = append(out, location(f.uri, f.doc, rep.Messages[a].Line, rep.Messages[a].Calls[c].IDSpan))
	}
	for _, t := range rep.Results(a, c) {
		out = append(out, location(f.uri, f.doc, rep.Messages[t].Line, rep.Messages[t].ToolCallIDSpan))
	}
	return out, nil
}

package lsp

import (
	"context"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/protocol"
)

// Definition goes from a tool result's toolCallId to the id of the call it
// answers (the engine's link: analysis.Report.AnsweredCall).
func (s *server) Definition(ctx context.Context, p *protocol.DefinitionParams) ([]protocol.Location, error) {
	f, rep, m, col, ok := s.messageAt(p.TextDocumentPositionParams)
	if !ok || rep.Messages[m].Role != line.RoleTool || !inSpan(col, rep.Messages[m].ToolCallIDSpan) {
		return []protocol.Location{}, nil
	}
	a, c, ok := rep.AnsweredCall(m)
	if !ok {
		return []protocol.Location{}, nil
	}
	return []protocol.Location{location(f.uri, f.doc, rep.Messages[a].Line, rep.Messages[a].Calls[c].IDSpan)}, nil
}

// messageAt is what Definition and References start from: the open file
// at p's URI, its report, the message on p's line and p's UTF-16 column in
// that runtime line. ok is false when the file is not open or no message
// is there.
func (s *server) messageAt(p protocol.TextDocumentPositionParams) (f *file, rep *analysis.Report, m, col int, ok bool) {
	f = s.files.get(p.TextDocument.URI)
	if f == nil {
		return nil, nil, 0, 0, false
	}
	rep = f.report()
	i, col, ok := runtimePosition(f.doc, p.Position)
	if !ok {
		return nil, nil, 0, 0, false
	}
	m, ok = rep.MessageAtLine(i + 1)
	return f, rep, m, col, ok
}

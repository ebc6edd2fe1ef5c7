package lsp

import (
	"context"

	"github.com/sessionls/sessionls/lsp/transport"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The server is the transport's Server (lsp/transport): the router hands it
// every message it serves, on one worker, in arrival order.
var _ transport.Server = (*server)(nil)

// Served reports whether the server implements method (features.go).
func (s *server) Served(method string) bool { return served(method) }

// Handle runs one message: the methods whose params the server decodes
// itself (protocolfix.go), then the feature table's handlers (dispatch.go).
func (s *server) Handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodInitialize:
		res, err := s.initialize(ctx, req.Params())
		return reply(ctx, res, err)
	case protocol.MethodWorkspaceExecuteCommand:
		// Decoded by the server: numbers must stay exact (commands.go).
		res, err := s.executeCommand(ctx, req.Params())
		return reply(ctx, res, err)
	case protocol.MethodShutdown:
		// Params ({}, null or none) are ignored: ServerHandler refuses {}.
		return reply(ctx, nil, s.shutdown(ctx))
	case protocol.MethodTextDocumentDidOpen:
		if o, ok := req.(*transport.Open); ok { // decoded in place by the stream
			return s.DidOpen(ctx, &o.DidOpen)
		}
	case protocol.MethodTextDocumentDidChange:
		// Decoded into our own type: protocol's Range is not a pointer, so a
		// full-text change would look like an insert at 0:0.
		if c, ok := req.(*transport.FullChange); ok { // a full-text change, decoded by the stream
			s.changeText(c.DidChange)
			return nil
		}
		s.didChange(ctx, req.Params())
		return nil
	}
	return s.dispatch(ctx, reply, req)
}

// Wait waits for the goroutines the server started on its own.
func (s *server) Wait() { s.bg.Wait() }

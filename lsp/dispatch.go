package lsp

import (
	"bytes"
	"context"
	"fmt"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// A feature's handler decodes the params into the method's own type and
// replies with what the method returns, as protocol.ServerHandler does
// (same decoder, same errors): the feature table names each method's
// handler, so the server need not implement all of protocol.Server's
// sixty methods to reach the twenty it serves.
type handler struct {
	// method is the server method serve calls (TestFeatureTable checks
	// that it is the one of the feature's LSP method).
	method any
	serve  func(s *server, ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error
}

// request is the handler of a request: its result is the reply.
func request[P, R any](method func(*server, context.Context, *P) (R, error)) handler {
	return handler{method: method, serve: func(s *server, ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		var params P
		if err := json.NewDecoder(bytes.NewReader(req.Params())).Decode(&params); err != nil {
			return replyParseError(ctx, reply, err)
		}
		res, err := method(s, ctx, &params)
		return reply(ctx, res, err)
	}}
}

// notification is the handler of a notification (its reply goes nowhere).
func notification[P any](method func(*server, context.Context, *P) error) handler {
	return handler{method: method, serve: func(s *server, ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		var params P
		if err := json.NewDecoder(bytes.NewReader(req.Params())).Decode(&params); err != nil {
			return replyParseError(ctx, reply, err)
		}
		return reply(ctx, nil, method(s, ctx, &params))
	}}
}

// custom is the handler of a custom request (sessionls/status): its params
// are decoded as any, as ServerHandler does for the methods it does not
// know.
func custom[R any](method func(*server, context.Context, any) (R, error)) handler {
	return handler{method: method, serve: func(s *server, ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		var params any
		if err := json.Unmarshal(req.Params(), &params); err != nil {
			return replyParseError(ctx, reply, err)
		}
		res, err := method(s, ctx, params)
		return reply(ctx, res, err)
	}}
}

func replyParseError(ctx context.Context, reply jsonrpc2.Replier, err error) error {
	return reply(ctx, nil, fmt.Errorf("%s: %w", jsonrpc2.ErrParse, err))
}

// dispatch runs a served method by the feature table: a request already
// cancelled is answered RequestCancelled, a method without a handler here
// (Handle or the router serve it) says so, one outside the table is not
// found.
func (s *server) dispatch(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if ctx.Err() != nil {
		return reply(context.WithoutCancel(ctx), nil, protocol.ErrRequestCancelled)
	}
	h, ok := s.handlers[req.Method()]
	switch {
	case !ok:
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found: "+req.Method()))
	case h.serve == nil:
		return reply(ctx, nil, errRouted(req.Method()))
	}
	return h.serve(s, ctx, reply, req)
}

// handlers is the feature table's handlers by method, made once per server
// (features() builds the table anew, closures and all).
func handlers() map[string]handler {
	m := map[string]handler{}
	for _, f := range features() {
		m[f.method] = f.handle
	}
	return m
}

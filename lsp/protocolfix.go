package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessionls/sessionls/lsp/transport"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Workarounds for go.lsp.dev/protocol v0.12.0 (and jsonrpc2 v0.10.0),
// collected here so that the feature files read as plain LSP. Each says
// what the library gets wrong and what the server does instead. Those that
// must run on the connection's read loop live in lsp/transport's router.go:
//   - $/cancelRequest: CancelParams.ID decodes as float64 and CancelHandler
//     only knows int32 and string ids, so numeric ids (what VS Code and
//     Neovim send) would be ignored; router.cancel decodes the id itself.
//   - exit is handled on the read loop: AsyncHandler could lose an exit
//     followed at once by EOF.
//   - unknown methods: ServerHandler answers one without params with code
//     0 ("parse error"); the router answers -32601 from the served table.
//   - no lifecycle enforcement: the router answers -32002 before
//     initialize and -32600 after shutdown.

// 1. initialize: protocol's InitializeParams and ServerCapabilities stop at
// LSP 3.15/3.16. Handle gives initialize's raw params to
// server.initialize, which decodes only what it reads into initializeParams
// (workspace.codeLens.refreshSupport is 3.16), and answers with
// initializeResult, whose capabilities add the 3.17 positionEncoding.

// initializeParams is the part of initialize's params the server reads.
type initializeParams struct {
	RootURI          string `json:"rootUri"`
	WorkspaceFolders []struct {
		URI string `json:"uri"`
	} `json:"workspaceFolders"`
	InitializationOptions any `json:"initializationOptions"`
	Capabilities          struct {
		Workspace struct {
			Configuration bool `json:"configuration"`
			CodeLens      struct {
				RefreshSupport bool `json:"refreshSupport"`
			} `json:"codeLens"`
			WorkspaceEdit struct {
				DocumentChanges bool `json:"documentChanges"`
			} `json:"workspaceEdit"`
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
		TextDocument struct {
			Hover struct {
				// The formats the client renders, preferred first; absent:
				// markdown, as servers commonly assume.
				ContentFormat []string `json:"contentFormat"`
			} `json:"hover"`
			PublishDiagnostics struct {
				// Raw, read by tagSupportHas: a malformed tagSupport
				// only means no tags, not a refused initialize.
				TagSupport json.RawMessage `json:"tagSupport"`
			} `json:"publishDiagnostics"`
		} `json:"textDocument"`
	} `json:"capabilities"`
}

// tagSupportHas reports whether a publishDiagnostics.tagSupport capability
// ({"valueSet": [1, 2]}) lists tag.
func tagSupportHas(raw json.RawMessage, tag protocol.DiagnosticTag) bool {
	var ts struct {
		ValueSet []any `json:"valueSet"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &ts) != nil {
		return false
	}
	for _, v := range ts.ValueSet {
		if n, ok := v.(float64); ok && n == float64(tag) {
			return true
		}
	}
	return false
}

// serverCapabilities adds the LSP 3.17 positionEncoding to protocol's.
type serverCapabilities struct {
	protocol.ServerCapabilities
	PositionEncoding string `json:"positionEncoding"`
}

type initializeResult struct {
	Capabilities serverCapabilities   `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo `json:"serverInfo,omitempty"`
}

// 2. textDocument/didChange: TextDocumentContentChangeEvent.Range is a
// value, so a full-text change (no range) cannot be told from an insert at
// 0:0. Handle gives the raw params to didChange, which decodes them into
// transport.DidChangeParams, whose Range is a pointer (the stream decodes
// a full-text change into the same type, transport.FullChange).

type (
	didChangeParams = transport.DidChangeParams
	contentChange   = transport.ContentChange
)

// didChange decodes a didChange and applies it (textsync.go). An edit that
// cannot be read is logged and shown; the document keeps its text.
func (s *server) didChange(ctx context.Context, raw json.RawMessage) {
	p, err := transport.DecodeDidChange(raw)
	if err != nil {
		s.logger.Error("didChange", zap.Error(err))
		s.showError(fmt.Sprintf("sessionls could not read an edit: %v", err))
		return
	}
	s.changeText(p)
}

// 3. The methods above, shutdown and exit have no handler in the feature
// table: Handle (handle.go) decodes initialize and didChange itself (1, 2)
// and calls server.shutdown directly because protocol's decoding rejects
// shutdown's "params": {} with -32602 (Emacs lsp-mode sends that); the
// router handles exit on the read loop. If dispatch is ever asked for
// one, it says so.

// errRouted is the error of a method the router or Handle serve, should
// it reach dispatch.
func errRouted(method string) error {
	return jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("%s is handled by the router, not protocol.ServerHandler", method))
}

// 4. textDocument/publishDiagnostics: protocol's Version is uint32 with
// omitempty, so version 0 would be left out; and a nil Diagnostics is sent
// as null, which clients reject. publishDiagnosticsParams sends the version
// always, and every publication builds a non-nil slice (toDiagnostics,
// clearDiagnostics).
type publishDiagnosticsParams struct {
	URI         protocol.DocumentURI  `json:"uri"`
	Version     int32                 `json:"version"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// 5. workspace/codeLens/refresh (LSP 3.16) is missing from protocol.Client:
// it is sent with conn.Call, only to a client that advertised
// workspace.codeLens.refreshSupport.

// refreshLenses asks the client to re-request code lenses. It does not wait
// for the answer: a client may want lenses from us before it answers.
func (s *server) refreshLenses() {
	if !s.currentCaps().codeLensRefresh {
		return
	}
	s.bg.Go(func() {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, methodCodeLensRefresh, nil, nil); err != nil {
			s.logger.Debug("workspace/codeLens/refresh", zap.Error(err))
		}
	})
}

// 6. protocol.ServerHandler calls a protocol.Server, about sixty methods
// with no base to embed, for the twenty the server serves. The feature
// table names each served method's handler instead (dispatch.go), which
// decodes and replies as ServerHandler does: custom methods
// (sessionls/status) get their params decoded as any, as ServerHandler
// gives them to Server.Request. The router answers -32601 for every method
// outside the table.

package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Lifecycle: initialize, initialized, shutdown and $/setTrace. The router
// enforces the order (requests before initialize, after shutdown, a second
// initialize) and handles exit itself; these only do the server's part.

// serverName and serverVersion are reported in initialize's serverInfo.
const (
	serverName    = "sessionls"
	serverVersion = "0.1.0"
)

// initialize reads the client's capabilities, workspace roots and
// initializationOptions (the same keys as the sessionls settings). The
// router calls it with the raw params (see initializeParams).
func (s *server) initialize(ctx context.Context, raw json.RawMessage) (*initializeResult, error) {
	var p initializeParams
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("initialize params: %v", err))
		}
	}
	caps := clientCaps{
		configuration:   p.Capabilities.Workspace.Configuration,
		codeLensRefresh: p.Capabilities.Workspace.CodeLens.RefreshSupport,
		documentChanges: p.Capabilities.Workspace.WorkspaceEdit.DocumentChanges,
		watchFiles:      p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration,
		unnecessaryTag:  tagSupportHas(p.Capabilities.TextDocument.PublishDiagnostics.TagSupport, protocol.DiagnosticTagUnnecessary),
		plainHover:      plainTextOnly(p.Capabilities.TextDocument.Hover.ContentFormat),
	}
	var roots []string
	for _, f := range p.WorkspaceFolders {
		roots = append(roots, uriPath(f.URI))
	}
	if len(roots) == 0 && p.RootURI != "" {
		roots = append(roots, uriPath(p.RootURI))
	}
	s.mu.Lock()
	s.caps, s.roots = caps, roots
	s.mu.Unlock()
	s.logger.Info("initialize", zap.Bool("configuration", caps.configuration),
		zap.Bool("codelens_refresh", caps.codeLensRefresh), zap.Bool("unnecessary_tag", caps.unnecessaryTag),
		zap.Strings("roots", roots))

	if opts, ok := p.InitializationOptions.(map[string]any); ok {
		patch, errs := parseSettings(opts)
		s.reportSettingErrors(ctx, "initializationOptions", errs)
		s.mu.Lock()
		s.settings = patch.apply(s.settings)
		s.mu.Unlock()
	}
	return &initializeResult{
		Capabilities: capabilities(),
		ServerInfo:   &protocol.ServerInfo{Name: serverName, Version: serverVersion},
	}, nil
}

// Initialized pulls the sessionls settings when the client can serve them.
func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	if s.currentCaps().configuration {
		s.pullConfiguration(ctx)
	}
	s.watchConfigFiles()
	s.pollConfigFiles()
	return nil
}

// shutdown has nothing to release: documents live in memory and the server
// writes no files. The router calls it (see protocolfix.go).
func (s *server) shutdown(context.Context) error {
	s.logger.Info("shutdown")
	return nil
}

// SetTrace is accepted and ignored: the server logs to its own log.
func (s *server) SetTrace(context.Context, *protocol.SetTraceParams) error { return nil }

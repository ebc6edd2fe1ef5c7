package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sessionls/sessionls/analysis/line"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// serverName and serverVersion are reported in initialize's serverInfo.
const (
	serverName    = "sessionls"
	serverVersion = "0.1.0"
)

// configTimeout bounds a workspace/configuration round trip: a client
// that never answers must not stall the server.
const configTimeout = 5 * time.Second

// server implements the LSP methods. Every method runs on the router's
// single worker goroutine, in the order the messages arrived, so the
// handlers need no locking among themselves; mu guards what the read loop
// or background goroutines may also read.
type server struct {
	logger *zap.Logger
	conn   jsonrpc2.Conn
	// ctx outlives requests: notifications are sent under it, so a
	// cancelled request cannot drop a publishDiagnostics.
	ctx   context.Context
	files *fileManager

	mu       sync.Mutex
	settings settings
	caps     clientCaps
	roots    []string
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	configuration   bool // workspace/configuration
	codeLensRefresh bool // workspace/codeLens/refresh
	documentChanges bool // versioned WorkspaceEdits
}

func newServer(ctx context.Context, logger *zap.Logger, conn jsonrpc2.Conn) *server {
	return &server{
		logger:   logger,
		conn:     conn,
		ctx:      ctx,
		files:    newFileManager(),
		settings: defaultSettings(),
	}
}

var _ protocol.Server = (*server)(nil)

func (s *server) currentSettings() settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

func (s *server) currentCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// initializeParams is the part of initialize's params the server reads, in
// its own type: protocol v0.12.0 lacks the 3.16/3.17 capabilities.
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
		} `json:"workspace"`
	} `json:"capabilities"`
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

func capabilities() serverCapabilities {
	return serverCapabilities{
		ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{IncludeText: false},
			},
			CodeLensProvider:       &protocol.CodeLensOptions{},
			HoverProvider:          true,
			DefinitionProvider:     true,
			ReferencesProvider:     true,
			DocumentSymbolProvider: true,
			FoldingRangeProvider:   true,
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.RefactorRewrite},
			},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: []string{commandSetBudget}},
		},
		PositionEncoding: "utf-16",
	}
}

// initialize reads the client's capabilities, workspace roots and
// initializationOptions (the same keys as the sessionls settings).
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
		zap.Bool("codelens_refresh", caps.codeLensRefresh), zap.Strings("roots", roots))

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
	return nil
}

func (s *server) shutdown(context.Context) error {
	s.logger.Info("shutdown")
	return nil
}

// SetTrace is accepted and ignored: the server logs to its own log.
func (s *server) SetTrace(context.Context, *protocol.SetTraceParams) error { return nil }

// DidOpen starts analysing a session file; other documents are ignored.
func (s *server) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	doc := p.TextDocument
	st := s.currentSettings()
	s.mu.Lock()
	roots := s.roots
	s.mu.Unlock()
	if !isSessionFile(doc.URI, string(doc.LanguageID), st.files, roots) {
		s.logger.Debug("ignoring document", zap.String("uri", string(doc.URI)), zap.String("language", string(doc.LanguageID)))
		s.files.ignore(doc.URI)
		return nil
	}
	f := s.files.open(doc.URI, string(doc.LanguageID), doc.Version, doc.Text, st.options())
	s.logger.Debug("opened", zap.String("uri", string(doc.URI)), zap.Int("bytes", len(doc.Text)))
	s.publish(f)
	return nil
}

// didChange applies an incremental (or full) change. A change that cannot
// be applied is reported and leaves the last good text; the file then waits
// for a full-text change (see file.applyChanges).
func (s *server) didChange(ctx context.Context, raw json.RawMessage) {
	p, err := decodeDidChange(raw)
	if err != nil {
		s.logger.Error("didChange", zap.Error(err))
		s.showError(fmt.Sprintf("sessionls could not read an edit: %v", err))
		return
	}
	uri := p.TextDocument.URI
	f := s.files.get(uri)
	if f == nil {
		if s.files.isIgnored(uri) {
			return
		}
		s.logger.Error("didChange for a document that is not open", zap.String("uri", string(uri)))
		s.showError(fmt.Sprintf("sessionls received an edit for %s, which is not open; reopen the file.", uri))
		return
	}
	if err := f.applyChanges(p.TextDocument.Version, p.ContentChanges); err != nil {
		s.logger.Error("didChange", zap.String("uri", string(uri)), zap.Int32("version", p.TextDocument.Version), zap.Error(err))
		if !errors.Is(err, errStale) {
			s.showError(fmt.Sprintf("sessionls could not apply an edit to %s (%v); its diagnostics are out of date until the file is reopened.", uri, err))
		}
		return
	}
	s.publish(f)
}

// DidClose forgets the document and clears its diagnostics.
func (s *server) DidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	if f := s.files.close(p.TextDocument.URI); f != nil {
		s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
			URI: f.uri, Version: f.version, Diagnostics: []protocol.Diagnostic{},
		})
	}
	return nil
}

// DidSave needs nothing: the text is already current through didChange.
func (s *server) DidSave(context.Context, *protocol.DidSaveTextDocumentParams) error { return nil }

// CodeLens: see codeLenses for the titles.
func (s *server) CodeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return []protocol.CodeLens{}, nil
	}
	return codeLenses(f.doc.Report(), s.currentSettings().budget), nil
}

// Hover describes the line under the cursor: see hoverText.
func (s *server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return nil, nil
	}
	i := int(p.Position.Line)
	if i >= f.doc.LineCount() {
		return nil, nil
	}
	r := lineRangeOf(f.doc, i)
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: hoverText(f.doc, f.doc.Report(), i)},
		Range:    &r,
	}, nil
}

// Definition goes from a tool result's toolCallId to the id of the call it
// answers.
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
	a, call := declaringCall(rep, m)
	if a < 0 {
		return []protocol.Location{}, nil
	}
	return []protocol.Location{location(f.uri, rep.Messages[a].Line, call.IDSpan)}, nil
}

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

// DocumentSymbol lists units holding their messages.
func (s *server) DocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) ([]any, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return []any{}, nil
	}
	syms := documentSymbols(f.doc, f.doc.Report())
	out := make([]any, len(syms))
	for i := range syms {
		out[i] = syms[i]
	}
	return out, nil
}

// FoldingRanges folds multi-line units.
func (s *server) FoldingRanges(ctx context.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return []protocol.FoldingRange{}, nil
	}
	return foldingRanges(f.doc.Report()), nil
}

// DidChangeConfiguration applies settings.sessionls; when the payload has
// no sessionls section (VS Code sends null), the server asks for it.
func (s *server) DidChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	sec, ok := sessionlsSection(p.Settings)
	if !ok {
		if s.currentCaps().configuration {
			s.pullConfiguration(ctx)
		}
		return nil
	}
	patch, errs := parseSettings(sec)
	s.reportSettingErrors(ctx, "settings", errs)
	s.applySettings(ctx, patch)
	return nil
}

// pullConfiguration asks the client for the sessionls section and applies
// it. It waits for the answer (bounded by configTimeout) so that messages
// queued behind it see the new settings.
func (s *server) pullConfiguration(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), configTimeout)
	defer cancel()
	var res []any
	params := map[string]any{"items": []map[string]any{{"section": configSection}}}
	if _, err := s.conn.Call(ctx, protocol.MethodWorkspaceConfiguration, params, &res); err != nil {
		s.logger.Warn("workspace/configuration", zap.Error(err))
		return
	}
	if len(res) == 0 {
		return
	}
	sec, ok := res[0].(map[string]any)
	if !ok {
		// null: the client has no sessionls settings; keep ours.
		return
	}
	patch, errs := parseSettings(sec)
	s.reportSettingErrors(ctx, "settings", errs)
	s.applySettings(ctx, patch)
}

func (s *server) reportSettingErrors(ctx context.Context, where string, errs []error) {
	if len(errs) == 0 {
		return
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	s.logger.Warn("invalid configuration", zap.String("from", where), zap.Strings("errors", msgs))
	s.showError("sessionls ignored invalid " + where + ": " + strings.Join(msgs, "; "))
}

// applySettings applies patch; when anything changed it re-analyses every
// open file, publishes, and asks the client to refresh its lenses.
func (s *server) applySettings(ctx context.Context, patch settingsPatch) {
	s.mu.Lock()
	old := s.settings
	st := patch.apply(old)
	s.settings = st
	roots := s.roots
	s.mu.Unlock()
	if st.budget == old.budget && maps(st.disabled, old.disabled) && slices.Equal(st.files, old.files) {
		return
	}
	s.logger.Info("settings", zap.Int64("budget", st.budget), zap.Int("disabled", len(st.disabled)), zap.Strings("files", st.files))
	for _, f := range s.files.all() {
		if !isSessionFile(f.uri, f.languageID, st.files, roots) {
			s.files.ignore(f.uri)
			s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
				URI: f.uri, Version: f.version, Diagnostics: []protocol.Diagnostic{},
			})
			continue
		}
		f.doc.SetOptions(st.options())
		s.publish(f)
	}
	s.refreshLenses()
}

func maps(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// clearsBudget reports whether a sessionls.setBudget argument asks for no
// budget: JSON null, 0, or the strings "", "0", "off" and "none" (what a
// person types into an editor's prompt to clear it).
func clearsBudget(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case float64:
		return x == 0
	case json.Number:
		return x.String() == "0"
	case int:
		return x == 0
	case int64:
		return x == 0
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "", "0", "off", "none":
			return true
		}
	}
	return false
}

// setBudget is the sessionls.setBudget command: a positive budget sets it,
// null, 0 or "off" clear it.
func (s *server) setBudget(ctx context.Context, args []any) error {
	var arg any
	if len(args) > 0 {
		arg = args[0]
	}
	if len(args) == 1 && clearsBudget(arg) {
		var none int64
		s.applySettings(ctx, settingsPatch{budget: &none})
		return nil
	}
	b, err := parseBudget(arg, false)
	if len(args) != 1 || err != nil {
		msg := fmt.Sprintf("%s needs a positive whole number of characters (or null, 0 or \"off\" to clear the budget), got %s", commandSetBudget, describe(arg))
		if len(args) > 1 {
			msg = fmt.Sprintf("%s needs a positive whole number of characters, got %d arguments", commandSetBudget, len(args))
		}
		s.showError(msg)
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, msg)
	}
	s.applySettings(ctx, settingsPatch{budget: &b})
	return nil
}

// ExecuteCommand runs sessionls.setBudget.
func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	switch p.Command {
	case commandSetBudget:
		return nil, s.setBudget(ctx, p.Arguments)
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q", p.Command))
}

// Request serves the custom sessionls/status request.
func (s *server) Request(ctx context.Context, method string, params any) (any, error) {
	if method == methodStatus {
		return s.status(params)
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found: "+method)
}

// publish sends f's diagnostics for its current version.
func (s *server) publish(f *file) {
	rep := f.doc.Report()
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
		URI: f.uri, Version: f.version, Diagnostics: toDiagnostics(f.uri, f.doc, rep),
	})
}

func (s *server) notify(method string, params any) {
	if err := s.conn.Notify(s.ctx, method, params); err != nil {
		s.logger.Warn("notify", zap.String("method", method), zap.Error(err))
	}
}

func (s *server) showError(msg string) {
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: msg})
}

// refreshLenses asks the client to re-request code lenses. It does not wait
// for the answer: a client may want lenses from us before it answers.
func (s *server) refreshLenses() {
	if !s.currentCaps().codeLensRefresh {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, methodCodeLensRefresh, nil, nil); err != nil {
			s.logger.Debug("workspace/codeLens/refresh", zap.Error(err))
		}
	}()
}

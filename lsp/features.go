package lsp

import "go.lsp.dev/protocol"

// Methods the server serves or calls that protocol v0.12.0 does not name.
const (
	methodStatus          = "sessionls/status"
	methodCodeLensRefresh = "workspace/codeLens/refresh"
)

// feature is one method the server serves.
type feature struct {
	method string
	// advertise sets, in the initialize result, the capability that tells
	// the client the server has the feature; nil for methods a client
	// sends regardless (lifecycle, configuration changes, custom requests).
	advertise func(*protocol.ServerCapabilities)
}

// features is the feature table: every method the server serves, each
// with the capability that advertises it. The router serves exactly these
// (served) and initialize advertises exactly their capabilities
// (capabilities). Adding a feature is one entry here and its handler, a
// server method in a file of its own that overrides unimplemented's stub;
// TestFeatureTable checks that the two agree.
func features() []feature {
	return []feature{
		// lifecycle.go (exit is handled by the router)
		{method: protocol.MethodInitialize},
		{method: protocol.MethodInitialized},
		{method: protocol.MethodShutdown},
		{method: protocol.MethodExit},
		{method: protocol.MethodSetTrace},
		// textsync.go
		{method: protocol.MethodTextDocumentDidOpen, advertise: func(c *protocol.ServerCapabilities) { textSync(c).OpenClose = true }},
		{method: protocol.MethodTextDocumentDidChange, advertise: func(c *protocol.ServerCapabilities) {
			textSync(c).Change = protocol.TextDocumentSyncKindIncremental
		}},
		{method: protocol.MethodTextDocumentDidClose, advertise: func(c *protocol.ServerCapabilities) { textSync(c).OpenClose = true }},
		{method: protocol.MethodTextDocumentDidSave, advertise: func(c *protocol.ServerCapabilities) {
			textSync(c).Save = &protocol.SaveOptions{IncludeText: false}
		}},
		// lenses.go
		{method: protocol.MethodTextDocumentCodeLens, advertise: func(c *protocol.ServerCapabilities) {
			c.CodeLensProvider = &protocol.CodeLensOptions{ResolveProvider: true}
		}},
		// tokens.go
		{method: protocol.MethodCodeLensResolve},
		// hover.go
		{method: protocol.MethodTextDocumentHover, advertise: func(c *protocol.ServerCapabilities) { c.HoverProvider = true }},
		// definition.go
		{method: protocol.MethodTextDocumentDefinition, advertise: func(c *protocol.ServerCapabilities) { c.DefinitionProvider = true }},
		// references.go
		{method: protocol.MethodTextDocumentReferences, advertise: func(c *protocol.ServerCapabilities) { c.ReferencesProvider = true }},
		// symbols.go
		{method: protocol.MethodTextDocumentDocumentSymbol, advertise: func(c *protocol.ServerCapabilities) { c.DocumentSymbolProvider = true }},
		// folding.go
		{method: protocol.MethodTextDocumentFoldingRange, advertise: func(c *protocol.ServerCapabilities) { c.FoldingRangeProvider = true }},
		// actions.go
		{method: protocol.MethodTextDocumentCodeAction, advertise: func(c *protocol.ServerCapabilities) {
			c.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: append([]protocol.CodeActionKind{protocol.RefactorRewrite}, fixActionKinds...)}
		}},
		// commands.go
		{method: protocol.MethodWorkspaceExecuteCommand, advertise: func(c *protocol.ServerCapabilities) {
			c.ExecuteCommandProvider = &protocol.ExecuteCommandOptions{Commands: commands()}
		}},
		// config.go
		{method: protocol.MethodWorkspaceDidChangeConfiguration},
		// configfiles.go (registered dynamically, not advertised)
		{method: protocol.MethodWorkspaceDidChangeWatchedFiles},
		// status.go (a custom request: protocol.ServerHandler passes it to Request)
		{method: methodStatus},
		// contextmap.go (a custom request, as status)
		{method: methodContextMap},
	}
}

// served reports whether the server implements method; the router answers
// any other request with MethodNotFound (ServerHandler would answer code 0)
// and drops any other notification.
func served(method string) bool {
	for _, f := range features() {
		if f.method == method {
			return true
		}
	}
	return false
}

// capabilities is what initialize advertises: each feature's capability,
// and UTF-16 positions (the LSP default, stated for 3.17 clients).
func capabilities() serverCapabilities {
	var c protocol.ServerCapabilities
	for _, f := range features() {
		if f.advertise != nil {
			f.advertise(&c)
		}
	}
	return serverCapabilities{ServerCapabilities: c, PositionEncoding: "utf-16"}
}

// textSync is c's TextDocumentSync as options, made on first use: the
// text-sync notifications each set their part of it.
func textSync(c *protocol.ServerCapabilities) *protocol.TextDocumentSyncOptions {
	o, ok := c.TextDocumentSync.(*protocol.TextDocumentSyncOptions)
	if !ok {
		o = &protocol.TextDocumentSyncOptions{}
		c.TextDocumentSync = o
	}
	return o
}

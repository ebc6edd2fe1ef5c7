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
	// handle serves the method (dispatch.go); nil for those Handle or the
	// router serve themselves, with params decoded their own way
	// (protocolfix.go).
	handle handler
}

// features is the feature table: every method the server serves, each
// with the capability that advertises it. The router serves exactly these
// (served) and initialize advertises exactly their capabilities
// (capabilities). Adding a feature is one entry here, naming its handler:
// a server method in a file of its own; TestFeatureTable checks that every
// protocol.Server method the server has is in the table.
func features() []feature {
	return []feature{
		// lifecycle.go (exit is handled by the router)
		{method: protocol.MethodInitialize},
		{method: protocol.MethodInitialized, handle: notification((*server).Initialized)},
		{method: protocol.MethodShutdown},
		{method: protocol.MethodExit},
		{method: protocol.MethodSetTrace, handle: notification((*server).SetTrace)},
		// textsync.go
		{method: protocol.MethodTextDocumentDidOpen, handle: notification((*server).DidOpen), advertise: func(c *protocol.ServerCapabilities) { textSync(c).OpenClose = true }},
		{method: protocol.MethodTextDocumentDidChange, advertise: func(c *protocol.ServerCapabilities) {
			textSync(c).Change = protocol.TextDocumentSyncKindIncremental
		}},
		{method: protocol.MethodTextDocumentDidClose, handle: notification((*server).DidClose), advertise: func(c *protocol.ServerCapabilities) { textSync(c).OpenClose = true }},
		{method: protocol.MethodTextDocumentDidSave, handle: notification((*server).DidSave), advertise: func(c *protocol.ServerCapabilities) {
			textSync(c).Save = &protocol.SaveOptions{IncludeText: false}
		}},
		// lenses.go
		{method: protocol.MethodTextDocumentCodeLens, handle: request((*server).CodeLens), advertise: func(c *protocol.ServerCapabilities) {
			c.CodeLensProvider = &protocol.CodeLensOptions{ResolveProvider: true}
		}},
		// tokens.go
		{method: protocol.MethodCodeLensResolve, handle: request((*server).CodeLensResolve)},
		// hover.go
		{method: protocol.MethodTextDocumentHover, handle: request((*server).Hover), advertise: func(c *protocol.ServerCapabilities) { c.HoverProvider = true }},
		// definition.go
		{method: protocol.MethodTextDocumentDefinition, handle: request((*server).Definition), advertise: func(c *protocol.ServerCapabilities) { c.DefinitionProvider = true }},
		// references.go
		{method: protocol.MethodTextDocumentReferences, handle: request((*server).References), advertise: func(c *protocol.ServerCapabilities) { c.ReferencesProvider = true }},
		// symbols.go
		{method: protocol.MethodTextDocumentDocumentSymbol, handle: request((*server).DocumentSymbol), advertise: func(c *protocol.ServerCapabilities) { c.DocumentSymbolProvider = true }},
		// folding.go
		{method: protocol.MethodTextDocumentFoldingRange, handle: request((*server).FoldingRanges), advertise: func(c *protocol.ServerCapabilities) { c.FoldingRangeProvider = true }},
		// actions.go
		{method: protocol.MethodTextDocumentCodeAction, handle: request((*server).CodeAction), advertise: func(c *protocol.ServerCapabilities) {
			c.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: append([]protocol.CodeActionKind{protocol.RefactorRewrite}, fixActionKinds...)}
		}},
		// commands.go
		{method: protocol.MethodWorkspaceExecuteCommand, advertise: func(c *protocol.ServerCapabilities) {
			c.ExecuteCommandProvider = &protocol.ExecuteCommandOptions{Commands: commands()}
		}},
		// config.go
		{method: protocol.MethodWorkspaceDidChangeConfiguration, handle: notification((*server).DidChangeConfiguration)},
		// configfiles.go (registered dynamically, not advertised)
		{method: protocol.MethodWorkspaceDidChangeWatchedFiles, handle: notification((*server).DidChangeWatchedFiles)},
		// status.go (a custom request: its params decoded as any)
		{method: methodStatus, handle: custom((*server).status)},
		// contextmap.go (a custom request, as status)
		{method: methodContextMap, handle: custom((*server).contextMap)},
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

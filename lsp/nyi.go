package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// unimplemented answers every protocol.Server method with MethodNotFound.
// server embeds it and overrides the methods it serves (features.go lists
// them), as buf's language server does with its nyi type. The router
// answers -32601 for every method outside the feature table before
// protocol.ServerHandler is reached, so these only run if the table and
// the server's methods disagree (TestFeatureTable checks that they do not).
type unimplemented struct{}

var _ protocol.Server = unimplemented{}

// notImplementedError is a stub's error: MethodNotFound on the wire (the
// jsonrpc2 package sends the *jsonrpc2.Error it wraps), and a type of its
// own so that a test can tell a stub from a handler.
type notImplementedError struct{ method string }

func (e *notImplementedError) Error() string { return "method not found: " + e.method }

func (e *notImplementedError) Unwrap() error {
	return jsonrpc2.NewError(jsonrpc2.MethodNotFound, e.Error())
}

func notImplemented(method string) error { return &notImplementedError{method: method} }

func (unimplemented) Initialize(context.Context, *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	return nil, notImplemented(protocol.MethodInitialize)
}

func (unimplemented) Initialized(context.Context, *protocol.InitializedParams) error {
	return notImplemented(protocol.MethodInitialized)
}

func (unimplemented) Shutdown(context.Context) error { return notImplemented(protocol.MethodShutdown) }

func (unimplemented) Exit(context.Context) error { return notImplemented(protocol.MethodExit) }

func (unimplemented) SetTrace(context.Context, *protocol.SetTraceParams) error {
	return notImplemented(protocol.MethodSetTrace)
}

func (unimplemented) DidOpen(context.Context, *protocol.DidOpenTextDocumentParams) error {
	return notImplemented(protocol.MethodTextDocumentDidOpen)
}

func (unimplemented) DidChange(context.Context, *protocol.DidChangeTextDocumentParams) error {
	return notImplemented(protocol.MethodTextDocumentDidChange)
}

func (unimplemented) DidClose(context.Context, *protocol.DidCloseTextDocumentParams) error {
	return notImplemented(protocol.MethodTextDocumentDidClose)
}

func (unimplemented) DidSave(context.Context, *protocol.DidSaveTextDocumentParams) error {
	return notImplemented(protocol.MethodTextDocumentDidSave)
}

func (unimplemented) CodeLens(context.Context, *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	return nil, notImplemented(protocol.MethodTextDocumentCodeLens)
}

func (unimplemented) Hover(context.Context, *protocol.HoverParams) (*protocol.Hover, error) {
	return nil, notImplemented(protocol.MethodTextDocumentHover)
}

func (unimplemented) Definition(context.Context, *protocol.DefinitionParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDefinition)
}

func (unimplemented) References(context.Context, *protocol.ReferenceParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentReferences)
}

func (unimplemented) DocumentSymbol(context.Context, *protocol.DocumentSymbolParams) ([]any, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDocumentSymbol)
}

func (unimplemented) FoldingRanges(context.Context, *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	return nil, notImplemented(protocol.MethodTextDocumentFoldingRange)
}

func (unimplemented) CodeAction(context.Context, *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	return nil, notImplemented(protocol.MethodTextDocumentCodeAction)
}

func (unimplemented) ExecuteCommand(context.Context, *protocol.ExecuteCommandParams) (any, error) {
	return nil, notImplemented(protocol.MethodWorkspaceExecuteCommand)
}

func (unimplemented) DidChangeConfiguration(context.Context, *protocol.DidChangeConfigurationParams) error {
	return notImplemented(protocol.MethodWorkspaceDidChangeConfiguration)
}

// Request receives every method protocol.ServerHandler does not know.
func (unimplemented) Request(_ context.Context, method string, _ any) (any, error) {
	return nil, notImplemented(method)
}

func (unimplemented) WorkDoneProgressCancel(context.Context, *protocol.WorkDoneProgressCancelParams) error {
	return notImplemented(protocol.MethodWorkDoneProgressCancel)
}

func (unimplemented) LogTrace(context.Context, *protocol.LogTraceParams) error {
	return notImplemented(protocol.MethodLogTrace)
}

func (unimplemented) CodeLensResolve(context.Context, *protocol.CodeLens) (*protocol.CodeLens, error) {
	return nil, notImplemented(protocol.MethodCodeLensResolve)
}

func (unimplemented) ColorPresentation(context.Context, *protocol.ColorPresentationParams) ([]protocol.ColorPresentation, error) {
	return nil, notImplemented(protocol.MethodTextDocumentColorPresentation)
}

func (unimplemented) Completion(context.Context, *protocol.CompletionParams) (*protocol.CompletionList, error) {
	return nil, notImplemented(protocol.MethodTextDocumentCompletion)
}

func (unimplemented) CompletionResolve(context.Context, *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	return nil, notImplemented(protocol.MethodCompletionItemResolve)
}

func (unimplemented) Declaration(context.Context, *protocol.DeclarationParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDeclaration)
}

func (unimplemented) DidChangeWatchedFiles(context.Context, *protocol.DidChangeWatchedFilesParams) error {
	return notImplemented(protocol.MethodWorkspaceDidChangeWatchedFiles)
}

func (unimplemented) DidChangeWorkspaceFolders(context.Context, *protocol.DidChangeWorkspaceFoldersParams) error {
	return notImplemented(protocol.MethodWorkspaceDidChangeWorkspaceFolders)
}

func (unimplemented) DocumentColor(context.Context, *protocol.DocumentColorParams) ([]protocol.ColorInformation, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDocumentColor)
}

func (unimplemented) DocumentHighlight(context.Context, *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDocumentHighlight)
}

func (unimplemented) DocumentLink(context.Context, *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDocumentLink)
}

func (unimplemented) DocumentLinkResolve(context.Context, *protocol.DocumentLink) (*protocol.DocumentLink, error) {
	return nil, notImplemented(protocol.MethodDocumentLinkResolve)
}

func (unimplemented) Formatting(context.Context, *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentFormatting)
}

func (unimplemented) Implementation(context.Context, *protocol.ImplementationParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentImplementation)
}

func (unimplemented) OnTypeFormatting(context.Context, *protocol.DocumentOnTypeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentOnTypeFormatting)
}

func (unimplemented) PrepareRename(context.Context, *protocol.PrepareRenameParams) (*protocol.Range, error) {
	return nil, notImplemented(protocol.MethodTextDocumentPrepareRename)
}

func (unimplemented) RangeFormatting(context.Context, *protocol.DocumentRangeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentRangeFormatting)
}

func (unimplemented) Rename(context.Context, *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentRename)
}

func (unimplemented) SignatureHelp(context.Context, *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	return nil, notImplemented(protocol.MethodTextDocumentSignatureHelp)
}

func (unimplemented) Symbols(context.Context, *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	return nil, notImplemented(protocol.MethodWorkspaceSymbol)
}

func (unimplemented) TypeDefinition(context.Context, *protocol.TypeDefinitionParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentTypeDefinition)
}

func (unimplemented) WillSave(context.Context, *protocol.WillSaveTextDocumentParams) error {
	return notImplemented(protocol.MethodTextDocumentWillSave)
}

func (unimplemented) WillSaveWaitUntil(context.Context, *protocol.WillSaveTextDocumentParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentWillSaveWaitUntil)
}

func (unimplemented) ShowDocument(context.Context, *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	return nil, notImplemented(protocol.MethodShowDocument)
}

func (unimplemented) WillCreateFiles(context.Context, *protocol.CreateFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodWillCreateFiles)
}

func (unimplemented) DidCreateFiles(context.Context, *protocol.CreateFilesParams) error {
	return notImplemented(protocol.MethodDidCreateFiles)
}

func (unimplemented) WillRenameFiles(context.Context, *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodWillRenameFiles)
}

func (unimplemented) DidRenameFiles(context.Context, *protocol.RenameFilesParams) error {
	return notImplemented(protocol.MethodDidRenameFiles)
}

func (unimplemented) WillDeleteFiles(context.Context, *protocol.DeleteFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodWillDeleteFiles)
}

func (unimplemented) DidDeleteFiles(context.Context, *protocol.DeleteFilesParams) error {
	return notImplemented(protocol.MethodDidDeleteFiles)
}

func (unimplemented) CodeLensRefresh(context.Context) error {
	return notImplemented(methodCodeLensRefresh)
}

func (unimplemented) PrepareCallHierarchy(context.Context, *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	return nil, notImplemented(protocol.MethodTextDocumentPrepareCallHierarchy)
}

func (unimplemented) IncomingCalls(context.Context, *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	return nil, notImplemented(protocol.MethodCallHierarchyIncomingCalls)
}

func (unimplemented) OutgoingCalls(context.Context, *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	return nil, notImplemented(protocol.MethodCallHierarchyOutgoingCalls)
}

func (unimplemented) SemanticTokensFull(context.Context, *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	return nil, notImplemented(protocol.MethodSemanticTokensFull)
}

func (unimplemented) SemanticTokensFullDelta(context.Context, *protocol.SemanticTokensDeltaParams) (any, error) {
	return nil, notImplemented(protocol.MethodSemanticTokensFullDelta)
}

func (unimplemented) SemanticTokensRange(context.Context, *protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	return nil, notImplemented(protocol.MethodSemanticTokensRange)
}

func (unimplemented) SemanticTokensRefresh(context.Context) error {
	return notImplemented(protocol.MethodSemanticTokensRefresh)
}

func (unimplemented) LinkedEditingRange(context.Context, *protocol.LinkedEditingRangeParams) (*protocol.LinkedEditingRanges, error) {
	return nil, notImplemented(protocol.MethodLinkedEditingRange)
}

func (unimplemented) Moniker(context.Context, *protocol.MonikerParams) ([]protocol.Moniker, error) {
	return nil, notImplemented(protocol.MethodMoniker)
}

package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The rest of protocol.Server. The router answers every method not in its
// served table with MethodNotFound before it reaches protocol.ServerHandler,
// so these only run if that table and this file disagree; they say so.

func notImplemented(method string) error {
	return jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method not found: %s", method))
}

// errRouted: the router decodes these methods' params itself (see run), so
// the protocol-typed entry points are never used.
func errRouted(method string) error {
	return jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("%s is handled by the router, not protocol.ServerHandler", method))
}

func (s *server) Initialize(context.Context, *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	return nil, errRouted(protocol.MethodInitialize)
}

func (s *server) Shutdown(context.Context) error { return errRouted(protocol.MethodShutdown) }

func (s *server) Exit(context.Context) error { return errRouted(protocol.MethodExit) }

func (s *server) DidChange(context.Context, *protocol.DidChangeTextDocumentParams) error {
	return errRouted(protocol.MethodTextDocumentDidChange)
}

func (s *server) WorkDoneProgressCancel(context.Context, *protocol.WorkDoneProgressCancelParams) error {
	return notImplemented(protocol.MethodWorkDoneProgressCancel)
}

func (s *server) LogTrace(context.Context, *protocol.LogTraceParams) error {
	return notImplemented(protocol.MethodLogTrace)
}

func (s *server) CodeLensResolve(context.Context, *protocol.CodeLens) (*protocol.CodeLens, error) {
	return nil, notImplemented(protocol.MethodCodeLensResolve)
}

func (s *server) ColorPresentation(context.Context, *protocol.ColorPresentationParams) ([]protocol.ColorPresentation, error) {
	return nil, notImplemented(protocol.MethodTextDocumentColorPresentation)
}

func (s *server) Completion(context.Context, *protocol.CompletionParams) (*protocol.CompletionList, error) {
	return nil, notImplemented(protocol.MethodTextDocumentCompletion)
}

func (s *server) CompletionResolve(context.Context, *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	return nil, notImplemented(protocol.MethodCompletionItemResolve)
}

func (s *server) Declaration(context.Context, *protocol.DeclarationParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDeclaration)
}

func (s *server) DidChangeWatchedFiles(context.Context, *protocol.DidChangeWatchedFilesParams) error {
	return notImplemented(protocol.MethodWorkspaceDidChangeWatchedFiles)
}

func (s *server) DidChangeWorkspaceFolders(context.Context, *protocol.DidChangeWorkspaceFoldersParams) error {
	return notImplemented(protocol.MethodWorkspaceDidChangeWorkspaceFolders)
}

func (s *server) DocumentColor(context.Context, *protocol.DocumentColorParams) ([]protocol.ColorInformation, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDocumentColor)
}

func (s *server) DocumentHighlight(context.Context, *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDocumentHighlight)
}

func (s *server) DocumentLink(context.Context, *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	return nil, notImplemented(protocol.MethodTextDocumentDocumentLink)
}

func (s *server) DocumentLinkResolve(context.Context, *protocol.DocumentLink) (*protocol.DocumentLink, error) {
	return nil, notImplemented(protocol.MethodDocumentLinkResolve)
}

func (s *server) Formatting(context.Context, *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentFormatting)
}

func (s *server) Implementation(context.Context, *protocol.ImplementationParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentImplementation)
}

func (s *server) OnTypeFormatting(context.Context, *protocol.DocumentOnTypeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentOnTypeFormatting)
}

func (s *server) PrepareRename(context.Context, *protocol.PrepareRenameParams) (*protocol.Range, error) {
	return nil, notImplemented(protocol.MethodTextDocumentPrepareRename)
}

func (s *server) RangeFormatting(context.Context, *protocol.DocumentRangeFormattingParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentRangeFormatting)
}

func (s *server) Rename(context.Context, *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentRename)
}

func (s *server) SignatureHelp(context.Context, *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	return nil, notImplemented(protocol.MethodTextDocumentSignatureHelp)
}

func (s *server) Symbols(context.Context, *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	return nil, notImplemented(protocol.MethodWorkspaceSymbol)
}

func (s *server) TypeDefinition(context.Context, *protocol.TypeDefinitionParams) ([]protocol.Location, error) {
	return nil, notImplemented(protocol.MethodTextDocumentTypeDefinition)
}

func (s *server) WillSave(context.Context, *protocol.WillSaveTextDocumentParams) error {
	return notImplemented(protocol.MethodTextDocumentWillSave)
}

func (s *server) WillSaveWaitUntil(context.Context, *protocol.WillSaveTextDocumentParams) ([]protocol.TextEdit, error) {
	return nil, notImplemented(protocol.MethodTextDocumentWillSaveWaitUntil)
}

func (s *server) ShowDocument(context.Context, *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	return nil, notImplemented(protocol.MethodShowDocument)
}

func (s *server) WillCreateFiles(context.Context, *protocol.CreateFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodWillCreateFiles)
}

func (s *server) DidCreateFiles(context.Context, *protocol.CreateFilesParams) error {
	return notImplemented(protocol.MethodDidCreateFiles)
}

func (s *server) WillRenameFiles(context.Context, *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodWillRenameFiles)
}

func (s *server) DidRenameFiles(context.Context, *protocol.RenameFilesParams) error {
	return notImplemented(protocol.MethodDidRenameFiles)
}

func (s *server) WillDeleteFiles(context.Context, *protocol.DeleteFilesParams) (*protocol.WorkspaceEdit, error) {
	return nil, notImplemented(protocol.MethodWillDeleteFiles)
}

func (s *server) DidDeleteFiles(context.Context, *protocol.DeleteFilesParams) error {
	return notImplemented(protocol.MethodDidDeleteFiles)
}

func (s *server) CodeLensRefresh(context.Context) error {
	return notImplemented(methodCodeLensRefresh)
}

func (s *server) PrepareCallHierarchy(context.Context, *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	return nil, notImplemented(protocol.MethodTextDocumentPrepareCallHierarchy)
}

func (s *server) IncomingCalls(context.Context, *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	return nil, notImplemented(protocol.MethodCallHierarchyIncomingCalls)
}

func (s *server) OutgoingCalls(context.Context, *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	return nil, notImplemented(protocol.MethodCallHierarchyOutgoingCalls)
}

func (s *server) SemanticTokensFull(context.Context, *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	return nil, notImplemented(protocol.MethodSemanticTokensFull)
}

func (s *server) SemanticTokensFullDelta(context.Context, *protocol.SemanticTokensDeltaParams) (any, error) {
	return nil, notImplemented(protocol.MethodSemanticTokensFullDelta)
}

func (s *server) SemanticTokensRange(context.Context, *protocol.SemanticTokensRangeParams) (*protocol.SemanticTokens, error) {
	return nil, notImplemented(protocol.MethodSemanticTokensRange)
}

func (s *server) SemanticTokensRefresh(context.Context) error {
	return notImplemented(protocol.MethodSemanticTokensRefresh)
}

func (s *server) LinkedEditingRange(context.Context, *protocol.LinkedEditingRangeParams) (*protocol.LinkedEditingRanges, error) {
	return nil, notImplemented(protocol.MethodLinkedEditingRange)
}

func (s *server) Moniker(context.Context, *protocol.MonikerParams) ([]protocol.Moniker, error) {
	return nil, notImplemented(protocol.MethodMoniker)
}

package transport

// isNotification reports whether method is one of the LSP 3.17 methods a
// client sends to a server as a notification. Sent with an id, they are
// refused with InvalidRequest (see router.dispatch). This is not the list
// of what the server handles (see served): an unhandled notification sent
// as a request is as wrong as a handled one.
func isNotification(method string) bool {
	switch method {
	case "initialized",
		"exit",
		"$/cancelRequest",
		"$/setTrace",
		"$/progress",
		"textDocument/didOpen",
		"textDocument/didChange",
		"textDocument/didClose",
		"textDocument/didSave",
		"textDocument/willSave",
		"workspace/didChangeConfiguration",
		"workspace/didChangeWorkspaceFolders",
		"workspace/didChangeWatchedFiles",
		"workspace/didCreateFiles",
		"workspace/didRenameFiles",
		"workspace/didDeleteFiles",
		"window/workDoneProgress/cancel",
		"notebookDocument/didOpen",
		"notebookDocument/didChange",
		"notebookDocument/didSave",
		"notebookDocument/didClose":
		return true
	}
	return false
}

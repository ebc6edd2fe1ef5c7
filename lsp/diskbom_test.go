package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// The editor sends the text without the BOM it read; the server reads the
// file's first bytes, reports what the runtime will say, and its quick fix
// removes the BOM on disk, only while the file is the editor's text.
func TestDiskBOM(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{"s.jsonl": "\uFEFF" + clean, "plain.jsonl": clean}, false)
	path := filepath.Join(h.root, "s.jsonl")

	uri := h.openDoc("s.jsonl", "jsonl", clean) // the editor strips the BOM
	diags := h.client.lastDiagnostics(uri).Diagnostics
	require.NotEmpty(t, diags)
	require.Equal(t, "invalid-json", diags[0].Code)
	require.Contains(t, diags[0].Message, "byte order mark")
	plain := h.openDoc("plain.jsonl", "jsonl", clean)
	for _, d := range h.client.lastDiagnostics(plain).Diagnostics {
		require.NotContains(t, d.Message, "byte order mark", "a file without a BOM")
	}

	actions := func() []protocol.CodeAction {
		var as []protocol.CodeAction
		h.call("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &as)
		return as
	}
	var fix *protocol.CodeAction
	for _, a := range actions() {
		if a.Command != nil && a.Command.Command == commandRemoveDiskBOM {
			fix = &a
		}
	}
	require.NotNil(t, fix, "no quick fix for the hidden BOM")

	// With an unsaved edit, the file on disk is not the editor's text:
	// refused, nothing written.
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": clean + "{\"role\":\"user\",\"content\":\"unsaved\"}\n"}},
	})
	h.sync()
	require.Error(t, h.callErr("workspace/executeCommand", map[string]any{"command": fix.Command.Command, "arguments": fix.Command.Arguments}, nil))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "\uFEFF"+clean, string(got), "refused: the file is untouched")

	// Back in step with the disk: the fix removes exactly the BOM.
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": clean}},
	})
	h.sync()
	h.call("workspace/executeCommand", map[string]any{"command": fix.Command.Command, "arguments": fix.Command.Arguments}, nil)
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, clean, string(got))
	for _, d := range h.client.lastDiagnostics(uri).Diagnostics {
		require.NotContains(t, d.Message, "byte order mark", "the diagnostic went with the BOM")
	}

	// Saved with a BOM again (an editor that keeps the encoding): seen on
	// save.
	require.NoError(t, os.WriteFile(path, []byte("\uFEFF"+clean), 0o644))
	h.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	h.sync()
	require.Contains(t, h.client.lastDiagnostics(uri).Diagnostics[0].Message, "byte order mark")
}

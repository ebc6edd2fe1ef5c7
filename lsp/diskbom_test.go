package lsp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
	if len(diags) == 0 {
		t.Fatal("diags is empty, want some")
	}
	if !reflect.DeepEqual(diags[0].Code, "invalid-json") {
		t.Fatalf("diags[0].Code = %+v, want %q", diags[0].Code, "invalid-json")
	}
	if !strings.Contains(diags[0].Message, "byte order mark") {
		t.Fatalf("diags[0].Message = %q, want it to contain %q", diags[0].Message, "byte order mark")
	}
	plain := h.openDoc("plain.jsonl", "jsonl", clean)
	for _, d := range h.client.lastDiagnostics(plain).Diagnostics {
		if strings.Contains(d.Message, "byte order mark") {
			t.Fatalf("a file without a BOM: d.Message = %q, want it not to contain %q", d.Message, "byte order mark")
		}
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
	if fix == nil {
		t.Fatal("no quick fix for the hidden BOM: fix is nil, want non-nil")
	}

	// With an unsaved edit, the file on disk is not the editor's text:
	// refused, nothing written.
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": clean + "{\"role\":\"user\",\"content\":\"unsaved\"}\n"}},
	})
	h.sync()
	if err := h.callErr("workspace/executeCommand", map[string]any{"command": fix.Command.Command, "arguments": fix.Command.Arguments}, nil); err == nil {
		t.Fatal(`h.callErr("workspace/executeCommand", map[string]any{"command": fix.Command.Command, "arguments": fix.Command.Arguments}, nil) = nil, want an error`)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want, actual := "\uFEFF"+clean, string(got); actual != want {
		t.Fatalf("refused: the file is untouched: string(got) = %q, want %q", actual, want)
	}

	// Back in step with the disk: the fix removes exactly the BOM.
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": clean}},
	})
	h.sync()
	h.call("workspace/executeCommand", map[string]any{"command": fix.Command.Command, "arguments": fix.Command.Arguments}, nil)
	got, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if actual := string(got); actual != clean {
		t.Fatalf("string(got) = %q, want %q", actual, clean)
	}
	for _, d := range h.client.lastDiagnostics(uri).Diagnostics {
		if strings.Contains(d.Message, "byte order mark") {
			t.Fatalf("the diagnostic went with the BOM: d.Message = %q, want it not to contain %q", d.Message, "byte order mark")
		}
	}

	// Saved with a BOM again (an editor that keeps the encoding): seen on
	// save.
	if err := os.WriteFile(path, []byte("\uFEFF"+clean), 0o644); err != nil {
		t.Fatalf(`os.WriteFile(path, []byte("\uFEFF"+clean), 0o644): %v`, err)
	}
	h.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	h.sync()
	if got := h.client.lastDiagnostics(uri).Diagnostics[0].Message; !strings.Contains(got, "byte order mark") {
		t.Fatalf("h.client.lastDiagnostics(uri).Diagnostics[0].Message = %q, want it to contain %q", got, "byte order mark")
	}
}

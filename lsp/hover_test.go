package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

func TestPlainText(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"**user** message · line 3 · 1,234 chars", "user message · line 3 · 1,234 chars"},
		{"result of `call_1`, declared on line 2", "result of call_1, declared on line 2"},
		{"calls read\\_file (`a**b`)", "calls read_file (a**b)"},
		{"**invalid-json** · line 1\n\nunexpected character \\*", "invalid-json · line 1\n\nunexpected character *"},
		{"a \\\\ b", "a \\ b"},
	} {
		if got := plainText(tc.md); got != tc.want {
			t.Errorf("plainText(%q) = %q, want %q", tc.md, got, tc.want)
		}
	}
}

func TestPlainTextOnly(t *testing.T) {
	for _, tc := range []struct {
		formats []string
		want    bool
	}{
		{nil, false},
		{[]string{"plaintext"}, true},
		{[]string{"plaintext", "markdown"}, false},
		{[]string{"markdown", "plaintext"}, false},
		{[]string{"html"}, false},
	} {
		if got := plainTextOnly(tc.formats); got != tc.want {
			t.Errorf("plainTextOnly(%q) = %v, want %v", tc.formats, got, tc.want)
		}
	}
}

// A client that renders plain text only (eglot without markdown-mode, in a
// terminal) gets its hover as plaintext, without markdown marks.
func TestHoverPlainTextClient(t *testing.T) {
	for _, tc := range []struct {
		name    string
		formats []string
		kind    protocol.MarkupKind
	}{
		{"markdown client", []string{"markdown", "plaintext"}, protocol.Markdown},
		{"plaintext client", []string{"plaintext"}, protocol.PlainText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHarness(t, harnessOptions{capabilities: map[string]any{
				"textDocument": map[string]any{"hover": map[string]any{"contentFormat": tc.formats}},
			}})
			uri := h.open("s.jsonl", "jsonl", "{\"role\":\"assistant\",\"content\":\"x\",\"toolCalls\":[{\"id\":\"c_1\",\"name\":\"read_file\",\"input\":{}}]}\n"+
				"{\"role\":\"tool\",\"toolCallId\":\"c_1\",\"isError\":false,\"content\":\"y\"}\n")
			var hv protocol.Hover
			h.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: 0, Character: 3},
			}}, &hv)
			if hv.Contents.Kind != tc.kind {
				t.Fatalf("hover kind %q, want %q", hv.Contents.Kind, tc.kind)
			}
			v := hv.Contents.Value
			if !strings.Contains(v, "assistant") || !strings.Contains(v, "read") {
				t.Fatalf("hover says %q", v)
			}
			marked := strings.Contains(v, "**") || strings.Contains(v, "`") || strings.Contains(v, "\\_")
			if marked != (tc.kind == protocol.Markdown) {
				t.Errorf("%s hover has markdown marks: %v\n%s", tc.kind, marked, v)
			}
		})
	}
}

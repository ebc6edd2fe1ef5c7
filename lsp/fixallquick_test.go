package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

// On a fixable finding, the quick-fix menu offers the finding's fix and,
// when the document has more than one, fix-all (the edit of
// source.fixAll.sessionls); off a fixable finding, or with one fix in all,
// no fix-all.
func TestFixAllQuickFix(t *testing.T) {
	two := "{\"role\":\"user\",\"content\":\"a\",}\n{\"role\":\"user\",\"content\":\"b\",}\n"
	one := "{\"role\":\"user\",\"content\":\"a\",}\n{\"role\":\"user\",\"content\":\"b\"}\n"
	for _, tc := range []struct {
		name, text string
		line       uint32
		noContext  bool // the request names no diagnostic (VS Code's Ctrl+.)
		want       bool
	}{
		{"two fixes, on one", two, 0, false, true},
		{"two fixes, on one, no context", two, 0, true, true},
		{"one fix", one, 0, false, false},
		{"two fixes, not on one", two + "{\"role\":\"user\",\"content\":\"c\"}\n", 2, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHarness(t, harnessOptions{})
			uri := h.open("s.jsonl", "jsonl", tc.text)
			var onLine []protocol.Diagnostic
			for _, d := range h.client.lastDiagnostics(uri).Diagnostics {
				if d.Range.Start.Line == tc.line && !tc.noContext {
					onLine = append(onLine, d)
				}
			}
			var actions []protocol.CodeAction
			h.call("textDocument/codeAction", protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: uri},
				Range:        protocol.Range{Start: protocol.Position{Line: tc.line}, End: protocol.Position{Line: tc.line}},
				Context:      protocol.CodeActionContext{Diagnostics: onLine},
			}, &actions)
			var fixAll *protocol.CodeAction
			for i, a := range actions {
				if a.Kind == protocol.QuickFix && a.Title == "Fix all safe sessionls findings (2 fixes)" {
					fixAll = &actions[i]
				}
			}
			if got := fixAll != nil; got != tc.want {
				t.Fatalf("actions: %+v: fixAll != nil = %v, want %v", actions, got, tc.want)
			}
			if fixAll != nil {
				if fixAll.Edit == nil {
					t.Fatal("fixAll.Edit is nil, want non-nil")
				}
				if actions[0].Title == "Fix all safe sessionls findings (2 fixes)" {
					t.Fatalf("the finding's own fix comes first: actions[0].Title = %q, want anything else", actions[0].Title)
				}
			}
		})
	}
}

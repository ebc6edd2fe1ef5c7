package lsp

import (
	"context"
	"fmt"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// CodeAction offers the quick fixes and the fix-all action (fixes.go) and,
// when a budget cuts and lines lie above the first kept line, "Trim N lines
// above the budget cutoff": a versioned WorkspaceEdit that deletes runtime
// lines 1..FirstKeptLine-1 (N counts them). The trim is offered where its
// diagnostic is: with the cursor on a trimmed line, or on the cutoff line
// for a client that gets budget-cutoff there (one that does not fade the
// trimmed lines), so that no lightbulb sits on the first kept line of a
// faded file. A document out of sync gets no action at all. The server
// never writes files.
func (s *server) CodeAction(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	out := []protocol.CodeAction{}
	f := s.actionableFile(p.TextDocument.URI)
	if f == nil {
		return out, nil
	}
	out = append(out, bomActions(f, p)...)
	out = append(out, s.fixActions(ctx, f, p)...)
	if a, ok := s.fixAllQuickFix(ctx, f, p); ok {
		out = append(out, a)
	}
	if !wantsKind(p.Context.Only, protocol.RefactorRewrite) {
		return out, nil
	}
	rep := f.report()
	c := rep.Cutoff
	if c == nil || rep.CutoffErr != nil || c.FirstKeptLine <= 1 {
		return out, nil
	}
	cursor, _, ok := runtimePosition(f.doc, p.Range.Start)
	cut := c.FirstKeptLine - 1 // 0-based runtime line of the first kept message
	fade := s.currentCaps().unnecessaryTag
	if !ok || cursor > cut || (fade && cursor == cut) {
		return out, nil
	}
	n := int64(cut)
	action := protocol.CodeAction{
		Title:       fmt.Sprintf("Trim %s above the budget cutoff", textfmt.Plural(n, "line", "lines")),
		Kind:        protocol.RefactorRewrite,
		Diagnostics: cutoffDiagnostics(f.uri, f.doc, rep, fade),
		Edit:        trimEdit(f, clientLine(f.doc, c.FirstKeptLine), s.currentCaps().documentChanges),
	}
	return append(out, action), nil
}

// actionableFile is the open file at uri when code actions may edit it:
// nil when it is not open, or is out of sync (file.inSync), since an edit
// computed on a text the client does not have would change the wrong text.
// Every code action path starts here.
func (s *server) actionableFile(uri protocol.DocumentURI) *file {
	f := s.files.get(uri)
	if f == nil || !f.inSync() {
		return nil
	}
	return f
}

// trimEdit deletes everything before the client's (0-based) line cut.
func trimEdit(f *file, cut uint32, versioned bool) *protocol.WorkspaceEdit {
	edit := protocol.TextEdit{
		Range:   protocol.Range{End: protocol.Position{Line: cut}},
		NewText: "",
	}
	if !versioned {
		return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{f.uri: {edit}}}
	}
	v := f.version
	return &protocol.WorkspaceEdit{DocumentChanges: []protocol.TextDocumentEdit{{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: f.uri},
			Version:                &v,
		},
		Edits: []protocol.TextEdit{edit},
	}}}
}

// cutoffDiagnostics are the budget-cutoff diagnostics the action resolves,
// as they were published (faded with fade: see toDiagnostics).
func cutoffDiagnostics(uri protocol.DocumentURI, doc *analysis.Document, rep *analysis.Report, fade bool) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, fd := range rep.Findings {
		if fd.Code != analysis.CodeBudgetCutoff {
			continue
		}
		if d, ok := publishedDiagnostic(uri, doc, rep, fd, fade); ok {
			out = append(out, d)
		}
	}
	return out
}

// wantsKind reports whether a code action request's "only" filter admits
// kind (an entry admits its sub-kinds: "refactor" admits "refactor.rewrite").
func wantsKind(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == kind || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}

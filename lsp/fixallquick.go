package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
)

// fixAllQuickFix offers fix-all in the quick-fix menu (the light bulb,
// Ctrl+.) beside a finding's own fix, as ESLint's "Fix all auto-fixable
// problems" and ruff's "Fix all" are: the same edit as
// source.fixAll.sessionls. Only when the cursor is on a fixable finding
// (the request's context names one) and the document has another: the
// light bulb asks on every cursor move, and fix-all reads the whole
// document.
func (s *server) fixAllQuickFix(ctx context.Context, f *file, p *protocol.CodeActionParams) (protocol.CodeAction, bool) {
	if !f.inSync() || len(p.Context.Only) > 0 && !wantsKind(p.Context.Only, protocol.QuickFix) {
		return protocol.CodeAction{}, false
	}
	// On a fixable finding: the request's context names one, or (VS Code's
	// Ctrl+. sends none) the requested lines have one, as for the
	// finding's own quick fix.
	if len(s.quickFixes(f, p, false)) == 0 {
		return protocol.CodeAction{}, false
	}
	a, ok := s.fixAll(ctx, f, s.currentCaps().documentChanges)
	if !ok {
		return protocol.CodeAction{}, false
	}
	// One safe fix in all is the finding's own quick fix, already offered
	// (fixAll's title counts the fixes; TestFixAllQuickFix pins it).
	if strings.HasSuffix(a.Title, "(1 fix)") {
		return protocol.CodeAction{}, false
	}
	a.Kind = protocol.QuickFix
	a.IsPreferred = false
	return a, true
}

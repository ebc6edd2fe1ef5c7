package lsp

import (
	"context"
	"fmt"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// CodeLens: see codeLenses for the titles.
func (s *server) CodeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil || !f.inSync() {
		// Out of sync, the lenses would sit on the wrong lines and show
		// costs of a text the client does not have.
		return []protocol.CodeLens{}, nil
	}
	var deferTo protocol.DocumentURI
	if s.currentSettings().tokens {
		deferTo = p.TextDocument.URI
	}
	return f.lenses.get(f.doc, f.report(), f.opts.Budget, deferTo), nil
}

// lensCache keeps a document's last codeLens answer with what it was made
// from. DidOpen fills it with the open's analysis, so the first codeLens
// after an open is answered at once: VS Code lengthens its lens debounce
// after a slow lens request, and on a 20 MB session the first one used to
// queue behind the outline and wait 1.8 s, which delayed the lenses of the
// first edit by 6 s more. Clients ask again for the same version (scrolls,
// resolves, refreshes); those are answered from it too.
type lensCache struct {
	rep     *analysis.Report
	budget  int64
	deferTo protocol.DocumentURI
	lenses  []protocol.CodeLens
}

// get returns codeLenses(doc, rep, budget, deferTo) and usageLenses(doc,
// rep), made again only when one of them changed since the last call. doc
// changes only together with rep: an edit or new options drop the
// document's report.
func (c *lensCache) get(doc *analysis.Document, rep *analysis.Report, budget int64, deferTo protocol.DocumentURI) []protocol.CodeLens {
	if c.lenses == nil || c.rep != rep || c.budget != budget || c.deferTo != deferTo {
		c.lenses = append(codeLenses(doc, rep, budget, deferTo), usageLenses(doc, rep)...)
		c.rep, c.budget, c.deferTo = rep, budget, deferTo
	}
	return c.lenses
}

// codeLenses are, in order of line:
//   - with no budget, on line 1: "Σ 12,345 chars · 42 messages · set a context budget",
//     or, when the file does not load, what its valid lines cost and why:
//     "Σ 1,351 chars · 10 messages · the file does not load (line 7 is invalid)";
//   - with a budget, on the first kept line:
//     "✂ budget 8,000 · keeps lines 12–40 · 7,912 chars · 11 messages above are trimmed"
//     ("1 message above is trimmed", "nothing trimmed");
//   - with a budget the newest unit cannot fit in, on the newest unit's
//     first line, the runtime's error and the least budget that works:
//     "✂ budget 100: context budget cannot contain the smallest consistent message unit; the least budget that works is 719";
//   - with a budget and no messages, on line 1: "✂ budget 100: context budget cannot be empty";
//   - with a budget and a file that does not load, on line 1:
//     "✂ budget 8,000: the file does not load (line 8 is invalid)";
//   - one per unit on its first line: "1,234 chars · 3 messages · 45,678 from newest".
//
// CodeLens adds, for a dialect whose file records them, one lens per
// reported usage and per compaction (usageLenses).
//
// The budget lenses carry sessionls.setBudget with no argument: clients
// prompt for a budget. Each unit lens carries sessionls.setBudget with the
// unit's chars from newest: "budget to here", the least budget whose cut
// keeps that unit and drops every older one. Lines are the runtime's,
// placed on the client's line where they start.
//
// With deferTo set (the tokens setting), unit lenses are sent unresolved,
// with lensData naming deferTo, and codeLens/resolve completes them with
// their tokens (see tokens.go); so are the Σ lens of a file that loads and
// the ✂ lens of a cutoff, which resolve with the file's or the kept units'
// tokens after their chars: "Σ 12,345 chars · ≈ 3,100 tokens · 42
// messages · set a context budget", "✂ budget 8,000 · keeps lines 12–40 ·
// 7,912 chars · ≈ 1,980 tokens · 11 messages above are trimmed".
func codeLenses(doc *analysis.Document, rep *analysis.Report, budget int64, deferTo protocol.DocumentURI) []protocol.CodeLens {
	out := make([]protocol.CodeLens, 0, len(rep.Units)+1)
	lensWith := func(line1 int, cmd *protocol.Command) protocol.CodeLens {
		l := clientLine(doc, line1)
		return protocol.CodeLens{
			Range:   protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l}},
			Command: cmd,
		}
	}
	lensAt := func(line1 int, title, command string) protocol.CodeLens {
		return lensWith(line1, &protocol.Command{Title: title, Command: command})
	}
	if line1, title, countable := budgetLens(rep, budget, -1); title != "" {
		if deferTo != "" && countable {
			// Resolved with the file's or the kept units' tokens.
			l := clientLine(doc, line1)
			out = append(out, protocol.CodeLens{
				Range: protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l}},
				Data:  lensData{URI: deferTo, Line: line1, Budget: true},
			})
		} else {
			out = append(out, lensAt(line1, title, commandSetBudget))
		}
	}
	if deferTo != "" {
		for _, u := range rep.Units {
			l := clientLine(doc, u.StartLine)
			out = append(out, protocol.CodeLens{
				Range: protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l}},
				Data:  lensData{URI: deferTo, Line: u.StartLine},
			})
		}
		return out
	}
	// A large session has thousands of units: their titles share one
	// buffer, and their commands and arguments one slice each, so that a
	// lens costs no allocation of its own but its boxed argument.
	titles := make([]byte, 0, 48*len(rep.Units)) // "12,345 chars · 3 messages · 45,678 from newest"
	ends := make([]int, len(rep.Units))
	for i, u := range rep.Units {
		titles = appendUnitTitle(titles, u, -1)
		ends[i] = len(titles)
	}
	all := string(titles)
	cmds := make([]protocol.Command, len(rep.Units))
	args := make([]any, len(rep.Units))
	start := 0
	for i, u := range rep.Units {
		args[i] = u.FromNewest
		cmds[i] = protocol.Command{Title: all[start:ends[i]], Command: commandSetBudget, Arguments: args[i : i+1 : i+1]}
		start = ends[i]
		out = append(out, lensWith(u.StartLine, &cmds[i]))
	}
	return out
}

// budgetLens is the budget lens (Σ or ✂) of codeLenses: its runtime line
// and title ("" for none), with toks >= 0 the tokens counted for it (the
// file's for Σ, the kept units' for ✂) after its chars. countable says
// whether the lens has tokens to show: a Σ lens of a file that loads, a ✂
// lens with a cutoff.
func budgetLens(rep *analysis.Report, budget, toks int64) (line1 int, title string, countable bool) {
	tok := ""
	if toks >= 0 {
		tok = " · ≈ " + textfmt.Thousands(toks) + " tokens"
	}
	switch {
	case budget <= 0 && !rep.Loads():
		// What the valid lines would cost, and why the runtime holds none of
		// it: a file with fatal errors must not look fine without a budget.
		return 1, fmt.Sprintf("Σ %s chars · %s · %s",
			textfmt.Thousands(rep.TotalChars), textfmt.Plural(int64(len(rep.Messages)), "message", "messages"),
			rep.LoadFailure().Summary()), false
	case budget <= 0:
		return 1, fmt.Sprintf("Σ %s chars%s · %s · set a context budget",
			textfmt.Thousands(rep.TotalChars), tok, textfmt.Plural(int64(len(rep.Messages)), "message", "messages")), true
	case !rep.Loads():
		return 1, fmt.Sprintf("✂ budget %s: %s", textfmt.Thousands(budget), rep.LoadFailure().Summary()), false
	case rep.CutoffErr != nil:
		l := 1
		if n := len(rep.Units); n > 0 {
			l = rep.Units[n-1].StartLine
		}
		return l, fmt.Sprintf("✂ budget %s: %s", textfmt.Thousands(budget), rep.BudgetErrorText()), false
	case rep.Cutoff != nil:
		c := rep.Cutoff
		return c.FirstKeptLine, cutoffTitle(rep, c, tok), true
	}
	return 0, "", false
}

// cutoffTitle counts the messages above the cutoff, as the engine's
// budget-cutoff finding does (blank lines above are not messages).
// tok (" · ≈ 1,980 tokens" or "") follows the kept chars.
func cutoffTitle(rep *analysis.Report, c *analysis.Cutoff, tok string) string {
	last := c.FirstKeptLine
	if n := len(rep.Units); n > 0 {
		last = rep.Units[n-1].EndLine
	}
	above := int64(rep.TrimmedMessages())
	trimmed := "nothing trimmed"
	switch {
	case above == 1:
		trimmed = "1 message above is trimmed"
	case above > 1:
		trimmed = textfmt.Plural(above, "message", "messages") + " above are trimmed"
	}
	return fmt.Sprintf("✂ budget %s · keeps %s · %s chars%s · %s",
		textfmt.Thousands(c.Budget), textfmt.LineRange(c.FirstKeptLine, last), textfmt.Thousands(c.KeptChars), tok, trimmed)
}

// unitTitle is a unit lens's title.
func unitTitle(u analysis.Unit) string { return string(appendUnitTitle(nil, u, -1)) }

// unitLens is a unit's lens as codeLenses makes it, with its tokens in the
// title when toks >= 0 (codeLens/resolve).
func unitLens(doc *analysis.Document, u analysis.Unit, toks int64) protocol.CodeLens {
	l := clientLine(doc, u.StartLine)
	return protocol.CodeLens{
		Range: protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l}},
		Command: &protocol.Command{
			Title:     string(appendUnitTitle(make([]byte, 0, 80), u, toks)),
			Command:   commandSetBudget,
			Arguments: []any{u.FromNewest},
		},
	}
}

// appendUnitTitle appends unitTitle(u) to b, without fmt: a large session
// has thousands of units. With toks >= 0, "≈ 310 tokens · " follows the
// chars.
func appendUnitTitle(b []byte, u analysis.Unit, toks int64) []byte {
	b = textfmt.AppendThousands(b, u.Chars)
	b = append(b, " chars · "...)
	if toks >= 0 {
		b = append(b, "≈ "...)
		b = textfmt.AppendThousands(b, toks)
		b = append(b, " tokens · "...)
	}
	if u.Len() == 1 {
		b = append(b, "1 message"...)
	} else {
		b = textfmt.AppendThousands(b, int64(u.Len()))
		b = append(b, " messages"...)
	}
	b = append(b, " · "...)
	b = textfmt.AppendThousands(b, u.FromNewest)
	return append(b, " from newest"...)
}

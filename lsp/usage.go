package lsp

import (
	"fmt"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// The model's reported usage and the compaction points (issue 21): the
// dialects whose files record them (Claude Code's message usage, Codex
// CLI's token_count events and compacted lines) fill Report.Usage and
// Report.Compactions; a seed report has neither, so none of this shows
// for it. They are shown as lenses on their lines, in the hover of those
// lines and, for the last turn, in sessionls/status.

// usageTitle is a usage lens's title: "context 45,210 / 200,000 tokens ·
// 23% · +1,204 output", without the window and its fill when it is
// unknown.
func usageTitle(u analysis.Usage) string {
	var b strings.Builder
	b.WriteString("context ")
	b.WriteString(textfmt.Thousands(u.ContextTokens))
	if u.ContextWindow > 0 {
		b.WriteString(" / ")
		b.WriteString(textfmt.Thousands(u.ContextWindow))
		b.WriteString(" tokens · ")
		b.WriteString(fillPercent(u))
	} else {
		b.WriteString(" tokens")
	}
	b.WriteString(" · +")
	b.WriteString(textfmt.Thousands(u.OutputTokens))
	b.WriteString(" output")
	return b.String()
}

// fillPercent is u's context in whole percent of its window ("23%").
func fillPercent(u analysis.Usage) string {
	p, _ := u.Fill()
	return fmt.Sprintf("%d%%", p)
}

// compactionTitle is a compaction lens's title: "compaction: 13 messages
// replaced by a 2,345-char summary".
func compactionTitle(c analysis.Compaction) string { return "compaction: " + c.Summary() }

// lastCompactionTitle is the last compaction's lens title: compactionTitle
// and, for a file that loads, what a resume sends in the words of `budget`
// (analysis.Resume.Summary): "compaction: 13 messages replaced by a
// 340-char summary · a resume sends lines 23–40: 11 messages, 2,118
// chars". The chars only: the document's report counts no tokens.
func lastCompactionTitle(rep *analysis.Report, c analysis.Compaction) string {
	t := compactionTitle(c)
	if rs, ok := rep.Resume(); ok {
		t += " · " + rs.Summary(false)
	}
	return t
}

// usageLenses are the lenses of rep's usage and compactions, in line
// order (each list is). They carry no command: they inform, and a client
// shows a lens whose command id is empty as plain text.
func usageLenses(doc *analysis.Document, rep *analysis.Report) []protocol.CodeLens {
	if len(rep.Usage) == 0 && len(rep.Compactions) == 0 {
		return nil
	}
	out := make([]protocol.CodeLens, 0, len(rep.Usage)+len(rep.Compactions))
	add := func(line1 int, title string) {
		l := clientLine(doc, line1)
		out = append(out, protocol.CodeLens{
			Range:   protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l}},
			Command: &protocol.Command{Title: title},
		})
	}
	u, c := rep.Usage, rep.Compactions
	for len(u) > 0 || len(c) > 0 {
		if len(c) > 0 && (len(u) == 0 || c[0].Line <= u[0].Line) {
			if len(c) == 1 {
				add(c[0].Line, lastCompactionTitle(rep, c[0]))
			} else {
				add(c[0].Line, compactionTitle(c[0]))
			}
			c = c[1:]
			continue
		}
		add(u[0].Line, usageTitle(u[0]))
		u = u[1:]
	}
	return out
}

// usageHover is what a hover on line1 adds for its usage and compaction,
// in markdown ("" when it records neither).
func usageHover(rep *analysis.Report, line1 int) string {
	var b strings.Builder
	for _, u := range rep.Usage {
		if u.Line != line1 {
			continue
		}
		fmt.Fprintf(&b, "**usage** · the model's reported usage of this turn\n\n")
		fmt.Fprintf(&b, "context %s tokens", textfmt.Thousands(u.ContextTokens))
		if u.ContextWindow > 0 {
			fmt.Fprintf(&b, " of a %s-token window (%s full)", textfmt.Thousands(u.ContextWindow), fillPercent(u))
		}
		fmt.Fprintf(&b, ": input %s, cached input %s; output %s",
			textfmt.Thousands(u.InputTokens), textfmt.Thousands(u.CachedInputTokens), textfmt.Thousands(u.OutputTokens))
		if u.ReasoningTokens > 0 {
			fmt.Fprintf(&b, " (reasoning %s)", textfmt.Thousands(u.ReasoningTokens))
		}
		b.WriteString("\n\n")
	}
	for i, c := range rep.Compactions {
		if c.Line != line1 {
			continue
		}
		fmt.Fprintf(&b, "**compaction** · %s: the model is sent this summary, not the messages before it\n\n", c.Summary())
		if rs, ok := rep.Resume(); ok && i == len(rep.Compactions)-1 {
			fmt.Fprintf(&b, "**resume** · %s (the history from this last compaction on)\n\n", rs.Summary(false))
		}
	}
	return strings.TrimSuffix(b.String(), "\n\n")
}

// lastUsage is the last turn's usage of rep, if its file records any.
func lastUsage(rep *analysis.Report) (analysis.Usage, bool) {
	if n := len(rep.Usage); n > 0 {
		return rep.Usage[n-1], true
	}
	return analysis.Usage{}, false
}

package lsp

import (
	"context"
	"fmt"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// Hover describes the line under the cursor: see hoverText.
func (s *server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return nil, nil
	}
	i, _, ok := runtimePosition(f.doc, p.Position)
	if !ok || i >= f.doc.LineCount() {
		return nil, nil
	}
	r := lineRangeOf(f.doc, i)
	var text string
	if f.isSeed() {
		text = hoverText(f.doc, f.doc.Report(), i, func(l string, cost int64) string {
			return s.hoverTokens(p.TextDocument.URI, l, cost)
		})
	} else {
		// Another dialect's lines are records, not a seed message's text:
		// its own analysis with tokens counts them (dialectHoverTokens).
		text = dialectHoverText(f.doc, f.report(), f.dialect.Name(), i, func(string, int64) string {
			return s.dialectHoverTokens(f, i)
		})
	}
	kind := protocol.Markdown
	if s.currentCaps().plainHover {
		kind, text = protocol.PlainText, plainText(text)
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: kind, Value: text}, Range: &r}, nil
}

// plainTextOnly reports whether a client's hover contentFormat lists
// plaintext and not markdown.
func plainTextOnly(formats []string) bool {
	plain := false
	for _, f := range formats {
		switch protocol.MarkupKind(f) {
		case protocol.Markdown:
			return false
		case protocol.PlainText:
			plain = true
		}
	}
	return plain
}

// plainText is hoverText's markdown as a person reads it rendered: no
// ** around words, no backquotes, no backslash escapes.
func plainText(md string) string {
	var b strings.Builder
	b.Grow(len(md))
	code := false // inside a code span: everything is literal
	for i := 0; i < len(md); i++ {
		c := md[i]
		switch {
		case c == '`':
			code = !code
		case code:
			b.WriteByte(c)
		case c == '\\' && i+1 < len(md) && strings.IndexByte(markdownSpecials, md[i+1]) >= 0:
			i++
			b.WriteByte(md[i])
		case c == '*' && i+1 < len(md) && md[i+1] == '*':
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// markdownSpecials are the characters escapeMarkdown escapes.
const markdownSpecials = "\\`*_[]<>|"

// hoverText describes 0-based runtime line i in markdown (a line holding a
// lone '\r' is one runtime line, so the client's lines of it share a hover).
//
// toks gives the token line for a message (its text and cost), "" for none.
func hoverText(doc *analysis.Document, rep *analysis.Report, i int, toks func(line string, cost int64) string) string {
	line1 := i + 1
	res := doc.LineResult(i)
	var b strings.Builder
	if res.Verdict != line.Valid {
		fmt.Fprintf(&b, "**%s** · line %d\n\n%s\n\n", res.Verdict, line1, escapeMarkdown(res.Reason))
		switch {
		case rep.FirstInvalidLine == line1:
			fmt.Fprintf(&b, "The runtime's loadSession refuses the whole file here: this is its first invalid line.")
		case rep.FirstInvalidLine > 0:
			fmt.Fprintf(&b, "The runtime's loadSession already refuses the file at line %d.", rep.FirstInvalidLine)
		}
		return b.String()
	}
	m, ok := rep.MessageAtLine(line1)
	if !ok {
		return fmt.Sprintf("line %d is empty: the runtime skips it", line1)
	}
	return messageHoverText(doc, rep, i, m, toks)
}

// messageHoverText describes message m, on 0-based runtime line i: role,
// cost, calls or the call it answers, its unit and what the budget does.
func messageHoverText(doc *analysis.Document, rep *analysis.Report, i, m int, toks func(line string, cost int64) string) string {
	line1 := i + 1
	var b strings.Builder
	msg := rep.Messages[m]
	fmt.Fprintf(&b, "**%s** message · line %d · %s chars", msg.Role, line1, textfmt.Thousands(msg.Cost))
	if t := toks(doc.Line(i), msg.Cost); t != "" {
		b.WriteString(" · ")
		b.WriteString(t)
	}
	switch msg.Role {
	case line.RoleTool:
		status := "result"
		if msg.IsError {
			status = "error result"
		}
		if a, _, ok := rep.AnsweredCall(m); ok {
			fmt.Fprintf(&b, "\n\n%s of `%s`, declared on line %d", status, escapeCode(msg.ToolCallID), rep.Messages[a].Line)
		} else {
			fmt.Fprintf(&b, "\n\n%s of `%s`, which no earlier assistant message declares", status, escapeCode(msg.ToolCallID))
		}
	case line.RoleAssistant:
		if len(msg.Calls) > 0 {
			parts := make([]string, len(msg.Calls))
			for k, c := range msg.Calls {
				parts[k] = fmt.Sprintf("%s (`%s`)", escapeMarkdown(c.Name), escapeCode(c.ID))
			}
			fmt.Fprintf(&b, "\n\ncalls %s", strings.Join(parts, ", "))
		}
	}
	u := rep.UnitOfMessage(m)
	if u < 0 {
		return b.String()
	}
	unit := rep.Units[u]
	fmt.Fprintf(&b, "\n\nunit %s · %s · %s chars · %s chars from the newest",
		textfmt.LineRange(unit.StartLine, unit.EndLine), textfmt.Plural(int64(unit.Len()), "message", "messages"),
		textfmt.Thousands(unit.Chars), textfmt.Thousands(unit.FromNewest))
	b.WriteString("\n\n")
	b.WriteString(budgetVerdict(rep, m))
	return b.String()
}

// dialectHoverText describes 0-based runtime line i of a document of
// another dialect than seed: its message as hoverText does, or else the
// findings on it, or that it holds no message the model sees.
//
// toks gives the token line of a message, as for hoverText.
func dialectHoverText(doc *analysis.Document, rep *analysis.Report, name string, i int, toks func(line string, cost int64) string) string {
	line1 := i + 1
	extra := usageHover(rep, line1)
	if m, ok := rep.MessageAtLine(line1); ok {
		text := messageHoverText(doc, rep, i, m, toks)
		if extra != "" {
			text += "\n\n" + extra
		}
		return text
	}
	var b strings.Builder
	for _, f := range rep.Findings {
		if f.Line == line1 {
			fmt.Fprintf(&b, "**%s** · line %d\n\n%s\n\n", f.Code, line1, escapeMarkdown(f.Message))
		}
	}
	if extra != "" {
		b.WriteString(extra)
	}
	if b.Len() > 0 {
		return strings.TrimSuffix(b.String(), "\n\n")
	}
	return fmt.Sprintf("line %d is a %s record that holds no message the model sees", line1, escapeMarkdown(name))
}

// budgetVerdict says what the budget does to message m.
func budgetVerdict(rep *analysis.Report, m int) string {
	switch {
	case !rep.Loads():
		return "The file does not load, so no budget applies."
	case rep.CutoffErr != nil:
		return fmt.Sprintf("With this budget trimContext throws: %s.", rep.BudgetErrorText())
	case rep.Cutoff == nil:
		return "No context budget is set."
	case rep.Kept(m):
		return fmt.Sprintf("**kept** under the budget of %s chars.", textfmt.Thousands(rep.Cutoff.Budget))
	default:
		return fmt.Sprintf("**trimmed** under the budget of %s chars (the cutoff keeps from line %d).",
			textfmt.Thousands(rep.Cutoff.Budget), rep.Cutoff.FirstKeptLine)
	}
}

// escapeMarkdown keeps user text from being read as markdown.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(markdownSpecials, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func escapeCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

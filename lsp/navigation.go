package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// inSpan reports whether a cursor at UTF-16 column col touches s (the end
// counts: a cursor just after a token is still on it).
func inSpan(col int, s line.Span) bool { return s.StartCol <= col && col <= s.EndCol }

// declaringCall finds, for the tool message m, the call its toolCallId
// links to: the nearest earlier assistant declaring that id, as the
// runtime's trimContext links them. It returns the message index and the
// call, or -1.
func declaringCall(rep *analysis.Report, m int) (int, line.Call) {
	id := rep.Messages[m].ToolCallID
	for i := m - 1; i >= 0; i-- {
		msg := &rep.Messages[i]
		if msg.Role != line.RoleAssistant {
			continue
		}
		// The last declaration in the message wins if an id repeats in it.
		for k := len(msg.Calls) - 1; k >= 0; k-- {
			if msg.Calls[k].ID == id {
				return i, msg.Calls[k]
			}
		}
	}
	return -1, line.Call{}
}

// resultsOf lists the tool messages that link to call id declared by the
// assistant message a: later tool messages with that toolCallId, up to the
// next assistant that declares the same id again (later results link to it).
func resultsOf(rep *analysis.Report, a int, id string) []int {
	var out []int
	for i := a + 1; i < len(rep.Messages); i++ {
		msg := &rep.Messages[i]
		switch msg.Role {
		case line.RoleTool:
			if msg.ToolCallID == id {
				out = append(out, i)
			}
		case line.RoleAssistant:
			for _, c := range msg.Calls {
				if c.ID == id {
					return out
				}
			}
		}
	}
	return out
}

func location(uri protocol.DocumentURI, line1 int, s line.Span) protocol.Location {
	return protocol.Location{URI: uri, Range: spanRange(line1, s)}
}

// lineRangeOf is the whole of 0-based line i; its width is the engine's
// (UTF-16 units as node decodes the line, invalid UTF-8 included).
func lineRangeOf(doc *analysis.Document, i int) protocol.Range {
	w := doc.LineResult(i).Width16
	return protocol.Range{
		Start: protocol.Position{Line: uint32(i)},
		End:   protocol.Position{Line: uint32(i), Character: uint32(w)},
	}
}

// hoverText describes 0-based line i in markdown.
func hoverText(doc *analysis.Document, rep *analysis.Report, i int) string {
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
	msg := rep.Messages[m]
	fmt.Fprintf(&b, "**%s** message · line %d · %s chars", msg.Role, line1, textfmt.Thousands(msg.Cost))
	switch msg.Role {
	case line.RoleTool:
		status := "result"
		if msg.IsError {
			status = "error result"
		}
		if a, _ := declaringCall(rep, m); a >= 0 {
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

// budgetVerdict says what the budget does to message m.
func budgetVerdict(rep *analysis.Report, m int) string {
	switch {
	case !rep.Loads():
		return "The file does not load, so no budget applies."
	case rep.CutoffErr != nil:
		return fmt.Sprintf("With this budget trimContext throws: %s.", runtimeError(rep.CutoffErr))
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
		if strings.ContainsRune("\\`*_[]<>|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func escapeCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// documentSymbols: one Namespace per unit ("lines 3–7 · 2,345 chars")
// holding its messages ("assistant: read_file, run", "user: first 40
// chars…", "tool call_1 (error)").
func documentSymbols(doc *analysis.Document, rep *analysis.Report) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(rep.Units))
	for _, u := range rep.Units {
		first := lineRangeOf(doc, u.StartLine-1)
		last := lineRangeOf(doc, u.EndLine-1)
		sym := protocol.DocumentSymbol{
			Name:           fmt.Sprintf("%s · %s chars", textfmt.LineRange(u.StartLine, u.EndLine), textfmt.Thousands(u.Chars)),
			Detail:         textfmt.Plural(int64(u.Len()), "message", "messages"),
			Kind:           protocol.SymbolKindNamespace,
			Range:          protocol.Range{Start: first.Start, End: last.End},
			SelectionRange: first,
			Children:       make([]protocol.DocumentSymbol, 0, u.Len()),
		}
		for m := u.First; m <= u.Last; m++ {
			msg := &rep.Messages[m]
			r := lineRangeOf(doc, msg.Line-1)
			sym.Children = append(sym.Children, protocol.DocumentSymbol{
				Name:           messageName(doc, msg),
				Detail:         textfmt.Thousands(msg.Cost) + " chars",
				Kind:           messageKind(msg.Role),
				Range:          r,
				SelectionRange: r,
			})
		}
		out = append(out, sym)
	}
	return out
}

func messageKind(r line.Role) protocol.SymbolKind {
	switch r {
	case line.RoleAssistant:
		return protocol.SymbolKindFunction
	case line.RoleTool:
		return protocol.SymbolKindEvent
	}
	return protocol.SymbolKindString
}

// messageName is a message's symbol name.
func messageName(doc *analysis.Document, msg *analysis.Message) string {
	switch msg.Role {
	case line.RoleTool:
		name := "tool " + msg.ToolCallID
		if msg.IsError {
			name += " (error)"
		}
		return name
	case line.RoleAssistant:
		if len(msg.Calls) > 0 {
			names := make([]string, len(msg.Calls))
			for k, c := range msg.Calls {
				names[k] = c.Name
			}
			return "assistant: " + strings.Join(names, ", ")
		}
	}
	return fmt.Sprintf("%s: %s", msg.Role, preview(contentOf(doc.Line(msg.Line-1)), 40))
}

// contentOf decodes the "content" string of a valid message line. The
// engine keeps no text, only verdicts and costs, so this reads the line
// again; it is only used to name symbols.
func contentOf(raw string) string {
	var v struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return ""
	}
	return v.Content
}

// preview collapses whitespace and keeps the first n characters, adding
// "…" when it cut.
func preview(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if s == "" {
		return "(empty)"
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// foldingRanges folds every unit that spans more than one line.
func foldingRanges(rep *analysis.Report) []protocol.FoldingRange {
	out := make([]protocol.FoldingRange, 0)
	for _, u := range rep.Units {
		if u.EndLine > u.StartLine {
			out = append(out, protocol.FoldingRange{
				StartLine: uint32(u.StartLine - 1),
				EndLine:   uint32(u.EndLine - 1),
				Kind:      protocol.RegionFoldingRange,
			})
		}
	}
	return out
}

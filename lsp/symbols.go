package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// DocumentSymbol lists units holding their messages. protocol.Server
// declares the result as []any (SymbolInformation or DocumentSymbol); the
// server always answers DocumentSymbols.
func (s *server) DocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) ([]any, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return []any{}, nil
	}
	syms := documentSymbols(f.doc, f.doc.Report())
	out := make([]any, len(syms))
	for i := range syms {
		out[i] = syms[i]
	}
	return out, nil
}

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

package lsp

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
	"github.com/sessionls/sessionls/lsp/transport"
	"go.lsp.dev/protocol"
)

// DocumentSymbol lists units holding their messages, bounded for large
// documents (see documentSymbols). protocol.Server declares the result as
// []any (SymbolInformation or DocumentSymbol); the server always answers
// DocumentSymbols. VS Code asks on every keystroke (breadcrumbs, outline,
// sticky scroll) and several times per version, so the answer is kept
// with the report it describes and built again only when that changes.
func (s *server) DocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) ([]any, error) {
	f := s.files.get(p.TextDocument.URI)
	if f == nil {
		return []any{}, nil
	}
	rep := f.report()
	if f.symbols.rep == rep {
		return f.symbols.syms, nil
	}
	syms := documentSymbols(f.doc, rep, maxSymbols)
	out := make([]any, len(syms))
	for i := range syms {
		out[i] = syms[i]
	}
	f.symbols.rep, f.symbols.syms = rep, out
	return out, nil
}

// maxSymbols bounds the symbols of one documentSymbol answer (VS Code's
// own JSON server bounds its outline the same way, json.maxItemsComputed).
// A 20 MB session has 3,134 units and 7,092 messages: its full outline was
// 2.5 MB of JSON, sent on every keystroke (breadcrumbs, outline, sticky
// scroll); its units alone are 0.76 MB; 1,000 symbols are about 0.2 MB.
const maxSymbols = 1000

// documentSymbols: one Namespace per unit ("lines 3–7 · 2,345 chars")
// holding its messages ("assistant: read_file, run", "user: first 40
// chars…", "tool call_1 (error)"), in at most max symbols:
//   - units and messages together within max: all of them;
//   - else units within max: the units alone (each one's detail still
//     counts its messages), so breadcrumbs, sticky scroll and the outline
//     still name the unit at every line;
//   - else bins of consecutive units ("lines 1–40 · 12 units · 34,567
//     chars"), as few units to a bin as keeps the bins within max: every
//     line is still inside a symbol.
func documentSymbols(doc *analysis.Document, rep *analysis.Report, max int) []protocol.DocumentSymbol {
	units := rep.Units
	switch {
	case len(units)+len(rep.Messages) <= max:
		out := make([]protocol.DocumentSymbol, 0, len(units))
		for _, u := range units {
			sym := unitSymbol(doc, u)
			sym.Children = make([]protocol.DocumentSymbol, 0, u.Len())
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
	case len(units) <= max:
		out := make([]protocol.DocumentSymbol, len(units))
		for i, u := range units {
			out[i] = unitSymbol(doc, u)
		}
		return out
	}
	per := (len(units) + max - 1) / max
	out := make([]protocol.DocumentSymbol, 0, (len(units)+per-1)/per)
	for i := 0; i < len(units); i += per {
		bin := units[i:min(i+per, len(units))]
		first, last := bin[0], bin[len(bin)-1]
		var chars, msgs int64
		for _, u := range bin {
			chars += u.Chars
			msgs += int64(u.Len())
		}
		start := lineRangeOf(doc, first.StartLine-1)
		end := lineRangeOf(doc, last.EndLine-1)
		out = append(out, protocol.DocumentSymbol{
			Name: fmt.Sprintf("%s · %s · %s chars", textfmt.LineRange(first.StartLine, last.EndLine),
				textfmt.Plural(int64(len(bin)), "unit", "units"), textfmt.Thousands(chars)),
			Detail:         textfmt.Plural(msgs, "message", "messages"),
			Kind:           protocol.SymbolKindNamespace,
			Range:          protocol.Range{Start: start.Start, End: end.End},
			SelectionRange: start,
		})
	}
	return out
}

// unitSymbol is a unit's symbol without its messages.
func unitSymbol(doc *analysis.Document, u analysis.Unit) protocol.DocumentSymbol {
	first := lineRangeOf(doc, u.StartLine-1)
	last := lineRangeOf(doc, u.EndLine-1)
	return protocol.DocumentSymbol{
		Name:           fmt.Sprintf("%s · %s chars", textfmt.LineRange(u.StartLine, u.EndLine), textfmt.Thousands(u.Chars)),
		Detail:         textfmt.Plural(int64(u.Len()), "message", "messages"),
		Kind:           protocol.SymbolKindNamespace,
		Range:          protocol.Range{Start: first.Start, End: last.End},
		SelectionRange: first,
	}
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
	return fmt.Sprintf("%s: %s", msg.Role, contentPreview(doc.Line(msg.Line-1), 40))
}

// contentPreview is preview(content, n) for the "content" string of a
// valid message line (the last one, as JSON.parse keeps it; "(empty)"
// when it is not a string). The engine keeps no text, only verdicts and
// costs, so this reads the line again; it decodes only the first n
// characters or so of the content and skips the rest of the line without
// decoding it, so a symbol costs the same on a 100 MB line as on a short
// one (the whole line used to be decoded for every symbol).
func contentPreview(raw string, n int) string {
	sc := lineScanner{s: raw}
	sc.ws()
	if !sc.byte('{') {
		return preview("", n)
	}
	out := preview("", n)
	for first := true; ; first = false {
		sc.ws()
		if sc.i >= len(sc.s) || sc.s[sc.i] == '}' {
			return out
		}
		if !first {
			if !sc.byte(',') {
				return out
			}
			sc.ws()
		}
		key := sc.stringPrefix(len("content") + 1)
		sc.ws()
		if !sc.byte(':') {
			return out
		}
		sc.ws()
		if key == "content" {
			if sc.i < len(sc.s) && sc.s[sc.i] == '"' {
				out = previewOf(&sc, n)
				continue
			}
			out = preview("", n)
		}
		sc.skipValue()
	}
}

// previewOf reads the string literal at sc and returns preview(value, n),
// decoding only as much of it as the preview needs; sc ends after the
// literal.
func previewOf(sc *lineScanner, n int) string {
	var b strings.Builder
	count := 0
	space := false
	more := false
	sc.i++ // the opening quote
	for {
		r, ok := sc.char()
		if !ok {
			break
		}
		if unicode.IsSpace(r) {
			space = count > 0
			continue
		}
		if count == n {
			more = true
			sc.i = sc.endOfString(sc.i)
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
			count++
			if count == n {
				more = true
				sc.i = sc.endOfString(sc.i)
				break
			}
		}
		b.WriteRune(r)
		count++
	}
	switch {
	case count == 0:
		return "(empty)"
	case more:
		return b.String() + "…"
	}
	return b.String()
}

// lineScanner reads a line the parser found valid JSON: it checks little.
type lineScanner struct {
	s string
	i int
}

func (sc *lineScanner) ws() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t' || sc.s[sc.i] == '\n' || sc.s[sc.i] == '\r') {
		sc.i++
	}
}

func (sc *lineScanner) byte(c byte) bool {
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// char decodes one character of a string literal, as encoding/json and
// JSON.parse do (invalid UTF-8 and lone surrogates become U+FFFD); ok is
// false at the closing quote, which it consumes.
func (sc *lineScanner) char() (rune, bool) {
	if sc.i >= len(sc.s) {
		return 0, false
	}
	c := sc.s[sc.i]
	switch {
	case c == '"':
		sc.i++
		return 0, false
	case c != '\\':
		r, size := utf8.DecodeRuneInString(sc.s[sc.i:])
		sc.i += size
		return r, true
	}
	if sc.i+1 >= len(sc.s) {
		sc.i = len(sc.s)
		return 0, false
	}
	e := sc.s[sc.i+1]
	sc.i += 2
	switch e {
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, n := transport.DecodeU([]byte(sc.s[sc.i-2 : min(len(sc.s), sc.i+10)]))
		sc.i += n - 2
		return r, true
	}
	return rune(e), true
}

// endOfString is the index after the closing quote of the string literal
// that i is inside of (after any escape).
func (sc *lineScanner) endOfString(i int) int {
	for i < len(sc.s) {
		switch sc.s[i] {
		case '\\':
			i += 2
		case '"':
			return i + 1
		default:
			i++
		}
	}
	return len(sc.s)
}

// stringPrefix reads a string literal and returns its value when it has
// at most max characters, else "" (a key that long is none we look for).
func (sc *lineScanner) stringPrefix(max int) string {
	if !sc.byte('"') {
		return ""
	}
	var b strings.Builder
	for k := 0; ; k++ {
		r, ok := sc.char()
		if !ok {
			return b.String()
		}
		if k == max {
			sc.i = sc.endOfString(sc.i)
			return ""
		}
		b.WriteRune(r)
	}
}

// skipValue skips one JSON value without decoding it.
func (sc *lineScanner) skipValue() {
	depth := 0
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case '"':
			sc.i = sc.endOfString(sc.i + 1)
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				sc.i++
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		}
		sc.i++
	}
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

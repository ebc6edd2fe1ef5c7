package lsp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// Positions as an LSP client counts them, worked out here the slow, obvious
// way on valid UTF-8 text, apart from the server's mapping: lines end at
// "\r\n", "\n" and a lone "\r"; characters are UTF-16 units.

// clientPos is where a client puts byte offset off of text. An offset
// between the '\r' and the '\n' of a "\r\n" stays on the line (the server
// ends a line's range after its '\r', as the engine counts it).
func clientPos(text string, off int) protocol.Position {
	ln, start := 0, 0
	for i := 0; i < off; i++ {
		switch {
		case text[i] == '\n', text[i] == '\r' && (i+1 >= len(text) || text[i+1] != '\n'):
			ln, start = ln+1, i+1
		}
	}
	return protocol.Position{Line: uint32(ln), Character: uint32(utf16Len(text[start:off]))}
}

// clientOffset is the byte offset of a client's position in text (on a
// character of its line, or at its end).
func clientOffset(t *testing.T, text string, p protocol.Position) int {
	t.Helper()
	for off := 0; off <= len(text); off++ {
		if clientPos(text, off) == p && (off == len(text) || text[off] != '\n' || off == 0 || text[off-1] != '\r') {
			return off
		}
	}
	t.Fatalf("no position %v in %q", p, text)
	return 0
}

// runtimeOffset is the byte offset of UTF-16 column col of 1-based runtime
// line line1 (lines split on '\n' only).
func runtimeOffset(text string, line1, col int) int {
	off := 0
	for range line1 - 1 {
		off += strings.IndexByte(text[off:], '\n') + 1
	}
	for units := 0; units < col; {
		r := []rune(text[off:])[0]
		units += len(utf16.Encode([]rune{r}))
		off += len(string(r))
	}
	return off
}

// clientRange is the client's range of a span on runtime line line1; a
// zero span (a finding about the whole line) covers the line's text less
// a final '\r'.
func clientRange(text string, line1 int, s line.Span) protocol.Range {
	if s == (line.Span{}) {
		l := strings.Split(text, "\n")[line1-1]
		s.EndCol = utf16Len(strings.TrimSuffix(l, "\r"))
	}
	return protocol.Range{Start: clientPos(text, runtimeOffset(text, line1, s.StartCol)), End: clientPos(text, runtimeOffset(text, line1, s.EndCol))}
}

// requireClientDiagnostics checks got against the report on text, every
// range in the client's numbering; messages keep the runtime's lines.
func requireClientDiagnostics(t *testing.T, text string, rep *analysis.Report, got []protocol.Diagnostic) {
	t.Helper()
	require.NotNil(t, got)
	require.Len(t, got, len(rep.Findings))
	for i, f := range rep.Findings {
		require.Equal(t, f.Code, got[i].Code)
		require.Equal(t, f.Message, got[i].Message)
		require.Equal(t, clientRange(text, f.Line, f.Span), got[i].Range, "%s on runtime line %d", f.Code, f.Line)
		for k, r := range f.Related {
			require.Equal(t, clientRange(text, r.Line, r.Span), got[i].RelatedInformation[k].Location.Range)
		}
	}
}

// loneCRSession has a lone '\r' (JSON whitespace) in each of its first
// three lines: five runtime lines, eight client lines.
var loneCRSession = []string{
	`{"role":"user",` + "\r" + `"content":"first question"}`,                                            // client lines 0, 1
	`{"role":"assistant","content":"",` + "\r" + `"toolCalls":[{"id":"c1","name":"run","input":null}]}`, // 2, 3
	`{"role":"tool","toolCallId":"c1","isError":false,` + "\r" + `"content":"ok"}`,                      // 4, 5
	`{"role":"user","content":"second"}`,                                                                // 6
	`{"role":"assistant","content":"done","toolCalls":[]}`,                                              // 7
}

func didChange(h *harness, uri protocol.DocumentURI, version int, changes ...any) {
	h.t.Helper()
	n := h.client.publications(uri)
	h.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes,
	})
	require.Eventually(h.t, func() bool { return h.client.publications(uri) > n }, wait, time.Millisecond, "no diagnostics after version %d", version)
}

func rangeChange(sl, sc, el, ec int, text string) map[string]any {
	return map[string]any{
		"range": map[string]any{"start": map[string]any{"line": sl, "character": sc}, "end": map[string]any{"line": el, "character": ec}},
		"text":  text,
	}
}

func codeActionsAt(h *harness, uri protocol.DocumentURI, line int) []protocol.CodeAction {
	h.t.Helper()
	pos := map[string]any{"line": line, "character": 0}
	var actions []protocol.CodeAction
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": map[string]any{"start": pos, "end": pos},
		"context": map[string]any{"diagnostics": []any{}},
	}, &actions)
	return actions
}

// TestLoneCR: every position the server sends or receives is in the
// client's line numbering, where a lone '\r' ends a line; messages name
// the runtime's lines.
func TestLoneCR(t *testing.T) {
	text := strings.Join(loneCRSession, "\n")
	rep := analysis.Analyze([]byte(text), analysis.Options{})
	require.True(t, rep.Loads(), "a lone CR between tokens is JSON whitespace")
	require.Len(t, rep.Messages, 5)
	// A budget that keeps the last two units: the cutoff is runtime line 4,
	// the client's line 6.
	budget := rep.Units[len(rep.Units)-2].FromNewest
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": budget}})
	uri := h.open("lonecr.jsonl", "jsonl", text)
	opts := analysis.Options{Budget: budget}
	rep = analysis.Analyze([]byte(text), opts)
	require.Equal(t, 4, rep.Cutoff.FirstKeptLine)

	t.Run("diagnostics", func(t *testing.T) {
		pub := h.client.lastDiagnostics(uri)
		requireClientDiagnostics(t, text, rep, pub.Diagnostics)
		require.Equal(t, analysis.CodeBudgetCutoff, pub.Diagnostics[0].Code)
		require.Equal(t, uint32(6), pub.Diagnostics[0].Range.Start.Line, "the cutoff's runtime line 4 is the client's line 6")
		require.Contains(t, pub.Diagnostics[0].Message, "keeps lines 4–5", "messages name the runtime's lines")
	})

	t.Run("lenses", func(t *testing.T) {
		var lenses []protocol.CodeLens
		h.call("textDocument/codeLens", textDoc(uri), &lenses)
		var want []string
		for _, u := range rep.Units {
			want = append(want, fmt.Sprintf("%d: %s [sessionls.setBudget [%d]]", clientPos(text, runtimeOffset(text, u.StartLine, 0)).Line, unitTitle(u), u.FromNewest))
		}
		want = append(want, fmt.Sprintf("6: %s [sessionls.setBudget]", cutoffTitle(rep, rep.Cutoff, "")))
		require.ElementsMatch(t, want, lensTitles(lenses))
		require.Contains(t, lensTitles(lenses), fmt.Sprintf("2: %s [sessionls.setBudget [%d]]", unitTitle(rep.Units[1]), rep.Units[1].FromNewest), "the second unit starts on the client's line 2")
	})

	t.Run("trim action", func(t *testing.T) {
		// Client line 5 is the second part of runtime line 3, above the cut.
		actions := codeActionsAt(h, uri, 5)
		require.Len(t, actions, 1)
		require.Equal(t, "Trim 3 lines above the budget cutoff", actions[0].Title, "the title counts runtime lines")
		edits := actions[0].Edit.DocumentChanges[0].Edits
		require.Equal(t, []protocol.TextEdit{{Range: protocol.Range{End: protocol.Position{Line: 6}}, NewText: ""}}, edits)
		// Applied as a client applies it, the edit leaves the kept lines.
		end := clientOffset(t, text, edits[0].Range.End)
		require.Equal(t, strings.Join(loneCRSession[3:], "\n"), text[end:])
		require.Empty(t, codeActionsAt(h, uri, 7), "below the cutoff")
		require.Len(t, codeActionsAt(h, uri, 6), 1, "on the cutoff line")
	})

	t.Run("navigation", func(t *testing.T) {
		var hv protocol.Hover
		h.call("textDocument/hover", at(uri, 5, 3), &hv)
		require.Contains(t, hv.Contents.Value, "**tool** message · line 3")
		require.Equal(t, protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 5, Character: uint32(len(`"content":"ok"}`))}}, *hv.Range)

		// From the result's toolCallId (client line 4, before its lone CR)
		// to the call's id (client line 3, after the call's lone CR).
		idCol := strings.Index(loneCRSession[2], `"c1"`) + 1
		var locs []protocol.Location
		h.call("textDocument/definition", at(uri, 4, idCol), &locs)
		require.Len(t, locs, 1)
		declared := strings.Index(text, `"c1"`)
		require.Equal(t, protocol.Range{Start: clientPos(text, declared), End: clientPos(text, declared+4)}, locs[0].Range)
		require.Equal(t, uint32(3), locs[0].Range.Start.Line)

		p := at(uri, 3, int(locs[0].Range.Start.Character)+1)
		p["context"] = map[string]any{"includeDeclaration": true}
		h.call("textDocument/references", p, &locs)
		require.Len(t, locs, 2)
		require.Equal(t, uint32(3), locs[0].Range.Start.Line)
		require.Equal(t, protocol.Position{Line: 4, Character: uint32(idCol - 1)}, locs[1].Range.Start)

		var folds []protocol.FoldingRange
		h.call("textDocument/foldingRange", textDoc(uri), &folds)
		var got [][2]uint32
		for _, f := range folds {
			got = append(got, [2]uint32{f.StartLine, f.EndLine})
		}
		require.Equal(t, [][2]uint32{{0, 1}, {2, 5}}, got, "units on the client's lines")

		var syms []protocol.DocumentSymbol
		h.call("textDocument/documentSymbol", textDoc(uri), &syms)
		require.Equal(t, "lines 2–3 · "+textfmt.Thousands(rep.Units[1].Chars)+" chars", syms[1].Name, "names keep the runtime's lines")
		require.Equal(t, uint32(2), syms[1].Range.Start.Line)
		require.Equal(t, uint32(5), syms[1].Range.End.Line)
		require.Equal(t, uint32(4), syms[1].Children[1].Range.Start.Line)
	})

	t.Run("ranged edits after a lone CR", func(t *testing.T) {
		// "ok" is at characters 11–13 of the client's line 5.
		didChange(h, uri, 2, rangeChange(5, 11, 5, 13, "okay"))
		text = strings.Replace(text, `"content":"ok"}`, `"content":"okay"}`, 1)
		rep = analysis.Analyze([]byte(text), opts)
		requireClientDiagnostics(t, text, rep, h.client.lastDiagnostics(uri).Diagnostics)
		require.Equal(t, float64(rep.TotalChars), statusOf(h, uri)["totalChars"])
		require.Empty(t, h.client.shownMessages())

		// Break the JSON after the lone CR: the diagnostic is on line 5.
		didChange(h, uri, 3, rangeChange(5, 16, 5, 16, ","))
		text = strings.Replace(text, `"content":"okay"}`, `"content":"okay",}`, 1)
		rep = analysis.Analyze([]byte(text), opts)
		pub := h.client.lastDiagnostics(uri)
		requireClientDiagnostics(t, text, rep, pub.Diagnostics)
		var invalid *protocol.Diagnostic
		for i := range pub.Diagnostics {
			if pub.Diagnostics[i].Code == analysis.CodeInvalidJSON {
				invalid = &pub.Diagnostics[i]
			}
		}
		require.NotNil(t, invalid)
		require.Equal(t, uint32(5), invalid.Range.Start.Line)
		require.Contains(t, invalid.Message, "line 3")

		// Join the first two client lines by deleting the lone CR, and
		// split the last runtime line with one.
		didChange(h, uri, 4, rangeChange(0, 15, 1, 0, ""), rangeChange(5, 15, 5, 15, "\r"))
		text = strings.Replace(text, "\r", "", 1)
		text = strings.Replace(text, `{"role":"user","content":"second"}`, `{"role":"user",`+"\r"+`"content":"second"}`, 1)
		rep = analysis.Analyze([]byte(text), opts)
		requireClientDiagnostics(t, text, rep, h.client.lastDiagnostics(uri).Diagnostics)
		require.Equal(t, float64(rep.TotalChars), statusOf(h, uri)["totalChars"])
		require.Empty(t, h.client.shownMessages())
	})
}

// TestLoneCRFaded: for a client that fades the trimmed region, the region
// ends on the client's last line of the last trimmed runtime line, and
// the trim action is offered on every client line above the cutoff only.
func TestLoneCRFaded(t *testing.T) {
	text := strings.Join(loneCRSession, "\n")
	budget := analysis.Analyze([]byte(text), analysis.Options{}).Units[2].FromNewest
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": budget}, capabilities: withDiagnosticTags(map[string]any{"valueSet": []any{1}})})
	uri := h.open("lonecr.jsonl", "jsonl", text)
	var faded []protocol.Diagnostic
	for _, d := range h.client.lastDiagnostics(uri).Diagnostics {
		if d.Code == analysis.CodeBudgetCutoff {
			faded = append(faded, d)
		}
	}
	require.Len(t, faded, 1)
	end := clientPos(text, runtimeOffset(text, 3, utf16Len(loneCRSession[2])))
	require.Equal(t, protocol.Position{Line: 5, Character: uint32(len(`"content":"ok"}`))}, end)
	require.Equal(t, protocol.Range{End: end}, faded[0].Range)
	require.Contains(t, faded[0].Message, "lines 1–3")
	for l := range 6 {
		require.Len(t, codeActionsAt(h, uri, l), 1, "client line %d is trimmed", l)
	}
	require.Empty(t, codeActionsAt(h, uri, 6), "the cutoff line, faded client")
}

// TestCRLFRanges: a "\r\n" is one line end; the server's ranges end after
// a line's '\r' as the engine counts it (clients take that as the line's
// end), a finding about a whole line leaves it out, and an edit past the
// end of a line lands before its '\r'.
func TestCRLFRanges(t *testing.T) {
	text := `{"role":"user","content":"a"}` + "\r\n" + `{"role":"user"}` + "\r\n"
	h := startHarness(t, harnessOptions{})
	uri := h.open("crlf.jsonl", "jsonl", text)
	rep := analysis.Analyze([]byte(text), analysis.Options{})
	requireClientDiagnostics(t, text, rep, h.client.lastDiagnostics(uri).Diagnostics)
	var hv protocol.Hover
	h.call("textDocument/hover", at(uri, 0, 0), &hv)
	require.Equal(t, uint32(30), hv.Range.End.Character, "29 characters and the '\\r'")

	// Past the end of line 0: before its "\r\n".
	didChange(h, uri, 2, rangeChange(0, 40, 0, 40, " "))
	text = strings.Replace(text, "}\r\n", "} \r\n", 1)
	require.Equal(t, float64(analysis.Analyze([]byte(text), analysis.Options{}).TotalChars), statusOf(h, uri)["totalChars"])
	didChange(h, uri, 3, rangeChange(0, 29, 1, 99, ""))
	text = `{"role":"user","content":"a"}` + "\r\n"
	rep = analysis.Analyze([]byte(text), analysis.Options{})
	requireClientDiagnostics(t, text, rep, h.client.lastDiagnostics(uri).Diagnostics)
	require.Empty(t, rep.Findings)
	require.Empty(t, h.client.shownMessages())
}

// TestPastEndCharacter: as the LSP specification says, a character past
// the end of its line is the line's end, not an error.
func TestPastEndCharacter(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	lines := strings.Split(clean, "\n")
	opts := analysis.Options{Budget: 300}
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 300}})
	uri := h.open("clean.jsonl", "jsonl", clean)

	// Past the end of line 1: "x" ends the line.
	didChange(h, uri, 2, rangeChange(0, 500, 0, 900, "x"))
	text := strings.Replace(clean, "\n", "x\n", 1)
	pub := h.client.lastDiagnostics(uri)
	require.Equal(t, uint32(2), pub.Version)
	requireDiagnosticsMatch(t, uri, text, analysis.Analyze([]byte(text), opts), pub.Diagnostics)
	require.Equal(t, analysis.CodeInvalidJSON, pub.Diagnostics[0].Code)
	// And deleted again, from the line's end to past it.
	didChange(h, uri, 3, rangeChange(0, utf16Len(lines[0]), 0, 1000, ""))
	requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), opts), h.client.lastDiagnostics(uri).Diagnostics)
	// Past the end of the last line.
	didChange(h, uri, 4, rangeChange(6, 99, 6, 99, "\n"+lines[6]))
	text = strings.Join(slices.Insert(lines, 7, lines[6]), "\n")
	requireDiagnosticsMatch(t, uri, text, analysis.Analyze([]byte(text), opts), h.client.lastDiagnostics(uri).Diagnostics)
	require.Empty(t, h.client.shownMessages(), "a character past the end is not an error")
	require.Len(t, codeActionsAt(h, uri, 0), 1)
}

// TestOutOfSync: an edit that cannot apply puts the document out of sync,
// which is said once, replaces the findings with one diagnostic, and
// withdraws code actions and lenses until a full-text change or a reopen.
func TestOutOfSync(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	lines := strings.Split(clean, "\n")
	pair := utf16Len(lines[4][:strings.Index(lines[4], "🎉")]) + 1 // between the halves of 🎉
	tests := []struct {
		name   string
		change map[string]any
	}{
		{"a line past the document", rangeChange(100, 0, 100, 0, "x")},
		{"a range ending before its start", rangeChange(2, 5, 1, 0, "x")},
		{"inside a surrogate pair", rangeChange(4, pair, 4, pair, "x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 300}})
			uri := h.open("clean.jsonl", "jsonl", clean)
			require.Len(t, codeActionsAt(h, uri, 0), 1, "the trim action before any edit")

			// The edit that cannot apply.
			n := h.client.publications(uri)
			h.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": uri, "version": 4}, "contentChanges": []any{tt.change},
			})
			require.Eventually(t, func() bool { return len(h.client.shownMessages()) > 0 }, wait, time.Millisecond)
			h.sync()
			require.Equal(t, n+1, h.client.publications(uri), "the out-of-sync diagnostic is published")
			pub := h.client.lastDiagnostics(uri)
			require.Equal(t, uint32(4), pub.Version)
			require.Len(t, pub.Diagnostics, 1, "only the out-of-sync diagnostic: the findings describe a text the client does not have")
			d := pub.Diagnostics[0]
			require.Equal(t, codeOutOfSync, d.Code)
			require.Equal(t, protocol.DiagnosticSeverityError, d.Severity)
			require.Equal(t, protocol.Range{}, d.Range, "on line 1")
			require.Contains(t, d.Message, "reopen the file")

			// No code action, no lens, however the client asks.
			for l := range 7 {
				require.Empty(t, codeActionsAt(h, uri, l), "line %d", l)
			}
			var lenses []protocol.CodeLens
			h.call("textDocument/codeLens", textDoc(uri), &lenses)
			require.NotNil(t, lenses)
			require.Empty(t, lenses)
			require.Len(t, h.client.shownMessages(), 1)
			msg := h.client.shownMessages()[0]
			require.Equal(t, protocol.MessageTypeError, msg.Type)
			require.Contains(t, msg.Message, "out of sync")

			// Later ranged edits are ignored without a word; a settings
			// change publishes the out-of-sync diagnostic again.
			n = h.client.publications(uri)
			h.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": uri, "version": 5}, "contentChanges": []any{rangeChange(0, 0, 0, 0, "{")},
			})
			h.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": uri, "version": 6}, "contentChanges": []any{tt.change},
			})
			h.sync()
			require.Equal(t, n, h.client.publications(uri))
			require.Len(t, h.client.shownMessages(), 1, "said once")
			h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 250}}})
			h.sync()
			pub = h.client.lastDiagnostics(uri)
			require.Len(t, pub.Diagnostics, 1)
			require.Equal(t, codeOutOfSync, pub.Diagnostics[0].Code)
			require.Empty(t, codeActionsAt(h, uri, 0))

			// A full-text change brings it back.
			didChange(h, uri, 7, map[string]any{"text": clean})
			pub = h.client.lastDiagnostics(uri)
			require.Equal(t, uint32(7), pub.Version)
			requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), analysis.Options{Budget: 250}), pub.Diagnostics)
			actions := codeActionsAt(h, uri, 0)
			require.Len(t, actions, 1)
			require.Equal(t, int32(7), *actions[0].Edit.DocumentChanges[0].TextDocument.Version)
			h.call("textDocument/codeLens", textDoc(uri), &lenses)
			require.NotEmpty(t, lenses)

			// Out of sync again, then a reopen brings it back too.
			didChange(h, uri, 8, tt.change)
			require.Len(t, h.client.shownMessages(), 2)
			require.Empty(t, codeActionsAt(h, uri, 0))
			h.open("clean.jsonl", "jsonl", clean)
			require.Len(t, codeActionsAt(h, uri, 0), 1)
			require.NotEqual(t, codeOutOfSync, h.client.lastDiagnostics(uri).Diagnostics[0].Code)
		})
	}
}

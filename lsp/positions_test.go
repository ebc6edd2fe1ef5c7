package lsp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
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
	if got == nil {
		t.Fatal("got is nil, want non-nil")
	}
	if want := len(rep.Findings); len(got) != want {
		t.Fatalf("len(got) = %d, want %d: %+v", len(got), want, got)
	}
	for i, f := range rep.Findings {
		if !reflect.DeepEqual(got[i].Code, f.Code) {
			t.Fatalf("got[i].Code = %+v, want %q", got[i].Code, f.Code)
		}
		if got[i].Message != f.Message {
			t.Fatalf("got[i].Message = %q, want %q", got[i].Message, f.Message)
		}
		if want := clientRange(text, f.Line, f.Span); !reflect.DeepEqual(got[i].Range, want) {
			t.Fatalf("%s on runtime line %d: got[i].Range = %+v, want %+v", f.Code, f.Line, got[i].Range, want)
		}
		for k, r := range f.Related {
			if want := clientRange(text, r.Line, r.Span); !reflect.DeepEqual(got[i].RelatedInformation[k].Location.Range, want) {
				t.Fatalf("got[i].RelatedInformation[k].Location.Range = %+v, want %+v", got[i].RelatedInformation[k].Location.Range, want)
			}
		}
	}
}

// requireEditApplied checks that the server holds text, whose report is
// rep, after an edit: its diagnostics are rep's on the client's lines, its
// status counts text's characters, and it showed the user no message.
func requireEditApplied(t *testing.T, h *harness, uri protocol.DocumentURI, text string, rep *analysis.Report) {
	t.Helper()
	requireClientDiagnostics(t, text, rep, h.client.lastDiagnostics(uri).Diagnostics)
	if want, got := float64(rep.TotalChars), statusOf(h, uri)["totalChars"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`statusOf(h, uri)["totalChars"] = %+v, want %v`, got, want)
	}
	requireLen(t, "h.client.shownMessages()", h.client.shownMessages(), 0)
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
	eventually(h.t, func() bool { return h.client.publications(uri) > n }, "no diagnostics after version %d: h.client.publications(uri) > n", version)
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
	if !rep.Loads() {
		t.Fatal("a lone CR between tokens is JSON whitespace: rep.Loads() is false, want true")
	}
	requireLen(t, "rep.Messages", rep.Messages, 5)
	// A budget that keeps the last two units: the cutoff is runtime line 4,
	// the client's line 6.
	budget := rep.Units[len(rep.Units)-2].FromNewest
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": budget}})
	uri := h.open("lonecr.jsonl", "jsonl", text)
	opts := analysis.Options{Budget: budget}
	rep = analysis.Analyze([]byte(text), opts)
	if rep.Cutoff.FirstKeptLine != 4 {
		t.Fatalf("rep.Cutoff.FirstKeptLine = %v, want %v", rep.Cutoff.FirstKeptLine, 4)
	}

	t.Run("diagnostics", func(t *testing.T) {
		pub := h.client.lastDiagnostics(uri)
		requireClientDiagnostics(t, text, rep, pub.Diagnostics)
		if !reflect.DeepEqual(pub.Diagnostics[0].Code, analysis.CodeBudgetCutoff) {
			t.Fatalf("pub.Diagnostics[0].Code = %+v, want %q", pub.Diagnostics[0].Code, analysis.CodeBudgetCutoff)
		}
		if want := uint32(6); pub.Diagnostics[0].Range.Start.Line != want {
			t.Fatalf("the cutoff's runtime line 4 is the client's line 6: pub.Diagnostics[0].Range.Start.Line = %v, want %v", pub.Diagnostics[0].Range.Start.Line, want)
		}
		if !strings.Contains(pub.Diagnostics[0].Message, "keeps lines 4–5") {
			t.Fatalf("messages name the runtime's lines: pub.Diagnostics[0].Message = %q, want it to contain %q", pub.Diagnostics[0].Message, "keeps lines 4–5")
		}
	})

	t.Run("lenses", func(t *testing.T) {
		var lenses []protocol.CodeLens
		h.call("textDocument/codeLens", textDoc(uri), &lenses)
		var want []string
		for _, u := range rep.Units {
			want = append(want, fmt.Sprintf("%d: %s [sessionls.setBudget [%d]]", clientPos(text, runtimeOffset(text, u.StartLine, 0)).Line, unitTitle(u), u.FromNewest))
		}
		want = append(want, fmt.Sprintf("6: %s [sessionls.setBudget]", cutoffTitle(rep, rep.Cutoff, "")))
		if got := lensTitles(lenses); !sameElements(want, got) {
			t.Fatalf("lensTitles(lenses) = %q, want %q in any order", got, want)
		}
		if got, want := lensTitles(lenses), fmt.Sprintf("2: %s [sessionls.setBudget [%d]]", unitTitle(rep.Units[1]), rep.Units[1].FromNewest); !slices.Contains(got, want) {
			t.Fatalf("the second unit starts on the client's line 2: lensTitles(lenses) = %+v, want it to contain %q", got, want)
		}
	})

	t.Run("trim action", func(t *testing.T) {
		// Client line 5 is the second part of runtime line 3, above the cut.
		actions := codeActionsAt(h, uri, 5)
		requireLen(t, "actions", actions, 1)
		if actions[0].Title != "Trim 3 lines above the budget cutoff" {
			t.Fatalf("the title counts runtime lines: actions[0].Title = %q, want %q", actions[0].Title, "Trim 3 lines above the budget cutoff")
		}
		edits := actions[0].Edit.DocumentChanges[0].Edits
		if want := ([]protocol.TextEdit{{Range: protocol.Range{End: protocol.Position{Line: 6}}, NewText: ""}}); !reflect.DeepEqual(edits, want) {
			t.Fatalf("edits = %+v, want %+v", edits, want)
		}
		// Applied as a client applies it, the edit leaves the kept lines.
		end := clientOffset(t, text, edits[0].Range.End)
		if want, got := strings.Join(loneCRSession[3:], "\n"), text[end:]; got != want {
			t.Fatalf("text[end:] = %q, want %q", got, want)
		}
		if got := codeActionsAt(h, uri, 7); len(got) != 0 {
			t.Fatalf("below the cutoff: codeActionsAt(h, uri, 7) = %+v, want empty", got)
		}
		if got := len(codeActionsAt(h, uri, 6)); got != 1 {
			t.Fatalf("on the cutoff line: len(codeActionsAt(h, uri, 6)) = %d, want %d", got, 1)
		}
	})

	t.Run("navigation", func(t *testing.T) {
		var hv protocol.Hover
		h.call("textDocument/hover", at(uri, 5, 3), &hv)
		if !strings.Contains(hv.Contents.Value, "**tool** message · line 3") {
			t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, "**tool** message · line 3")
		}
		if want := (protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 5, Character: uint32(len(`"content":"ok"}`))}}); !reflect.DeepEqual(*hv.Range, want) {
			t.Fatalf("*hv.Range = %+v, want %+v", *hv.Range, want)
		}

		// From the result's toolCallId (client line 4, before its lone CR)
		// to the call's id (client line 3, after the call's lone CR).
		idCol := strings.Index(loneCRSession[2], `"c1"`) + 1
		var locs []protocol.Location
		h.call("textDocument/definition", at(uri, 4, idCol), &locs)
		requireLen(t, "locs", locs, 1)
		declared := strings.Index(text, `"c1"`)
		if want := (protocol.Range{Start: clientPos(text, declared), End: clientPos(text, declared+4)}); !reflect.DeepEqual(locs[0].Range, want) {
			t.Fatalf("locs[0].Range = %+v, want %+v", locs[0].Range, want)
		}
		if want := uint32(3); locs[0].Range.Start.Line != want {
			t.Fatalf("locs[0].Range.Start.Line = %v, want %v", locs[0].Range.Start.Line, want)
		}

		p := at(uri, 3, int(locs[0].Range.Start.Character)+1)
		p["context"] = map[string]any{"includeDeclaration": true}
		h.call("textDocument/references", p, &locs)
		requireLen(t, "locs", locs, 2)
		if got, want := startLines(locs), []uint32{3, 4}; !reflect.DeepEqual(got, want) {
			t.Fatalf("startLines(locs) = %v, want %v", got, want)
		}
		if want := (protocol.Position{Line: 4, Character: uint32(idCol - 1)}); !reflect.DeepEqual(locs[1].Range.Start, want) {
			t.Fatalf("locs[1].Range.Start = %+v, want %+v", locs[1].Range.Start, want)
		}

		if got, want := foldLines(h, uri), [][2]uint32{{0, 1}, {2, 5}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("units on the client's lines: foldLines(h, uri) = %+v, want %+v", got, want)
		}

		var syms []protocol.DocumentSymbol
		h.call("textDocument/documentSymbol", textDoc(uri), &syms)
		if want := "lines 2–3 · " + textfmt.Thousands(rep.Units[1].Chars) + " chars"; syms[1].Name != want {
			t.Fatalf("names keep the runtime's lines: syms[1].Name = %q, want %q", syms[1].Name, want)
		}
		if got, want := lineSpan(syms[1].Range), [2]uint32{2, 5}; got != want {
			t.Fatalf("lineSpan(syms[1].Range) = %v, want %v", got, want)
		}
		if want := uint32(4); syms[1].Children[1].Range.Start.Line != want {
			t.Fatalf("syms[1].Children[1].Range.Start.Line = %v, want %v", syms[1].Children[1].Range.Start.Line, want)
		}
	})

	t.Run("ranged edits after a lone CR", func(t *testing.T) {
		// "ok" is at characters 11–13 of the client's line 5.
		didChange(h, uri, 2, rangeChange(5, 11, 5, 13, "okay"))
		text = strings.Replace(text, `"content":"ok"}`, `"content":"okay"}`, 1)
		rep = analysis.Analyze([]byte(text), opts)
		requireEditApplied(t, h, uri, text, rep)

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
		if invalid == nil {
			t.Fatal("invalid is nil, want non-nil")
		}
		if want := uint32(5); invalid.Range.Start.Line != want {
			t.Fatalf("invalid.Range.Start.Line = %v, want %v", invalid.Range.Start.Line, want)
		}
		if !strings.Contains(invalid.Message, "line 3") {
			t.Fatalf("invalid.Message = %q, want it to contain %q", invalid.Message, "line 3")
		}

		// Join the first two client lines by deleting the lone CR, and
		// split the last runtime line with one.
		didChange(h, uri, 4, rangeChange(0, 15, 1, 0, ""), rangeChange(5, 15, 5, 15, "\r"))
		text = strings.Replace(text, "\r", "", 1)
		text = strings.Replace(text, `{"role":"user","content":"second"}`, `{"role":"user",`+"\r"+`"content":"second"}`, 1)
		rep = analysis.Analyze([]byte(text), opts)
		requireEditApplied(t, h, uri, text, rep)
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
	requireLen(t, "faded", faded, 1)
	end := clientPos(text, runtimeOffset(text, 3, utf16Len(loneCRSession[2])))
	if want := (protocol.Position{Line: 5, Character: uint32(len(`"content":"ok"}`))}); !reflect.DeepEqual(end, want) {
		t.Fatalf("end = %+v, want %+v", end, want)
	}
	if want := (protocol.Range{End: end}); !reflect.DeepEqual(faded[0].Range, want) {
		t.Fatalf("faded[0].Range = %+v, want %+v", faded[0].Range, want)
	}
	if !strings.Contains(faded[0].Message, "lines 1–3") {
		t.Fatalf("faded[0].Message = %q, want it to contain %q", faded[0].Message, "lines 1–3")
	}
	for l := range 6 {
		if got := len(codeActionsAt(h, uri, l)); got != 1 {
			t.Fatalf("client line %d is trimmed: len(codeActionsAt(h, uri, l)) = %d, want %d", l, got, 1)
		}
	}
	if got := codeActionsAt(h, uri, 6); len(got) != 0 {
		t.Fatalf("the cutoff line, faded client: codeActionsAt(h, uri, 6) = %+v, want empty", got)
	}
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
	if want := uint32(30); hv.Range.End.Character != want {
		t.Fatalf(`29 characters and the '\r': hv.Range.End.Character = %v, want %v`, hv.Range.End.Character, want)
	}

	// Past the end of line 0: before its "\r\n".
	didChange(h, uri, 2, rangeChange(0, 40, 0, 40, " "))
	text = strings.Replace(text, "}\r\n", "} \r\n", 1)
	if want, got := float64(analysis.Analyze([]byte(text), analysis.Options{}).TotalChars), statusOf(h, uri)["totalChars"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`statusOf(h, uri)["totalChars"] = %+v, want %v`, got, want)
	}
	didChange(h, uri, 3, rangeChange(0, 29, 1, 99, ""))
	text = `{"role":"user","content":"a"}` + "\r\n"
	rep = analysis.Analyze([]byte(text), analysis.Options{})
	requireClientDiagnostics(t, text, rep, h.client.lastDiagnostics(uri).Diagnostics)
	requireLen(t, "rep.Findings", rep.Findings, 0)
	requireLen(t, "h.client.shownMessages()", h.client.shownMessages(), 0)
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
	if want := uint32(2); pub.Version != want {
		t.Fatalf("pub.Version = %v, want %v", pub.Version, want)
	}
	requireDiagnosticsMatch(t, uri, text, analysis.Analyze([]byte(text), opts), pub.Diagnostics)
	if !reflect.DeepEqual(pub.Diagnostics[0].Code, analysis.CodeInvalidJSON) {
		t.Fatalf("pub.Diagnostics[0].Code = %+v, want %q", pub.Diagnostics[0].Code, analysis.CodeInvalidJSON)
	}
	// And deleted again, from the line's end to past it.
	didChange(h, uri, 3, rangeChange(0, utf16Len(lines[0]), 0, 1000, ""))
	requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), opts), h.client.lastDiagnostics(uri).Diagnostics)
	// Past the end of the last line.
	didChange(h, uri, 4, rangeChange(6, 99, 6, 99, "\n"+lines[6]))
	text = strings.Join(slices.Insert(lines, 7, lines[6]), "\n")
	requireDiagnosticsMatch(t, uri, text, analysis.Analyze([]byte(text), opts), h.client.lastDiagnostics(uri).Diagnostics)
	if got := h.client.shownMessages(); len(got) != 0 {
		t.Fatalf("a character past the end is not an error: h.client.shownMessages() = %+v, want empty", got)
	}
	if got := len(codeActionsAt(h, uri, 0)); got != 1 {
		t.Fatalf("len(codeActionsAt(h, uri, 0)) = %d, want %d", got, 1)
	}
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
			if got := len(codeActionsAt(h, uri, 0)); got != 1 {
				t.Fatalf("the trim action before any edit: len(codeActionsAt(h, uri, 0)) = %d, want %d", got, 1)
			}

			// The edit that cannot apply.
			n := h.client.publications(uri)
			h.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": uri, "version": 4}, "contentChanges": []any{tt.change},
			})
			eventually(t, func() bool { return len(h.client.shownMessages()) > 0 }, "len(h.client.shownMessages()) > 0")
			h.sync()
			if want, got := n+1, h.client.publications(uri); got != want {
				t.Fatalf("the out-of-sync diagnostic is published: h.client.publications(uri) = %v, want %v", got, want)
			}
			pub := h.client.lastDiagnostics(uri)
			if want := uint32(4); pub.Version != want {
				t.Fatalf("pub.Version = %v, want %v", pub.Version, want)
			}
			if len(pub.Diagnostics) != 1 {
				t.Fatalf("only the out-of-sync diagnostic: the findings describe a text the client does not have: len(pub.Diagnostics) = %d, want %d: %+v", len(pub.Diagnostics), 1, pub.Diagnostics)
			}
			d := pub.Diagnostics[0]
			if !reflect.DeepEqual(d.Code, codeOutOfSync) {
				t.Fatalf("d.Code = %+v, want %q", d.Code, codeOutOfSync)
			}
			if d.Severity != protocol.DiagnosticSeverityError {
				t.Fatalf("d.Severity = %v, want %v", d.Severity, protocol.DiagnosticSeverityError)
			}
			if want := (protocol.Range{}); !reflect.DeepEqual(d.Range, want) {
				t.Fatalf("on line 1: d.Range = %+v, want %+v", d.Range, want)
			}
			if !strings.Contains(d.Message, "reopen the file") {
				t.Fatalf("d.Message = %q, want it to contain %q", d.Message, "reopen the file")
			}

			// No code action, no lens, however the client asks.
			for l := range 7 {
				if got := codeActionsAt(h, uri, l); len(got) != 0 {
					t.Fatalf("line %d: codeActionsAt(h, uri, l) = %+v, want empty", l, got)
				}
			}
			var lenses []protocol.CodeLens
			h.call("textDocument/codeLens", textDoc(uri), &lenses)
			if lenses == nil {
				t.Fatal("lenses is nil, want non-nil")
			}
			requireLen(t, "lenses", lenses, 0)
			if got := len(h.client.shownMessages()); got != 1 {
				t.Fatalf("len(h.client.shownMessages()) = %d, want %d", got, 1)
			}
			msg := h.client.shownMessages()[0]
			if msg.Type != protocol.MessageTypeError {
				t.Fatalf("msg.Type = %v, want %v", msg.Type, protocol.MessageTypeError)
			}
			if !strings.Contains(msg.Message, "out of sync") {
				t.Fatalf("msg.Message = %q, want it to contain %q", msg.Message, "out of sync")
			}

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
			if got := h.client.publications(uri); got != n {
				t.Fatalf("h.client.publications(uri) = %v, want %v", got, n)
			}
			if got := len(h.client.shownMessages()); got != 1 {
				t.Fatalf("said once: len(h.client.shownMessages()) = %d, want %d", got, 1)
			}
			h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 250}}})
			h.sync()
			pub = h.client.lastDiagnostics(uri)
			requireLen(t, "pub.Diagnostics", pub.Diagnostics, 1)
			if !reflect.DeepEqual(pub.Diagnostics[0].Code, codeOutOfSync) {
				t.Fatalf("pub.Diagnostics[0].Code = %+v, want %q", pub.Diagnostics[0].Code, codeOutOfSync)
			}
			requireLen(t, "codeActionsAt(h, uri, 0)", codeActionsAt(h, uri, 0), 0)

			// A full-text change brings it back.
			didChange(h, uri, 7, map[string]any{"text": clean})
			pub = h.client.lastDiagnostics(uri)
			if want := uint32(7); pub.Version != want {
				t.Fatalf("pub.Version = %v, want %v", pub.Version, want)
			}
			requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), analysis.Options{Budget: 250}), pub.Diagnostics)
			actions := codeActionsAt(h, uri, 0)
			requireLen(t, "actions", actions, 1)
			if want := int32(7); *actions[0].Edit.DocumentChanges[0].TextDocument.Version != want {
				t.Fatalf("*actions[0].Edit.DocumentChanges[0].TextDocument.Version = %v, want %v", *actions[0].Edit.DocumentChanges[0].TextDocument.Version, want)
			}
			h.call("textDocument/codeLens", textDoc(uri), &lenses)
			if len(lenses) == 0 {
				t.Fatal("lenses is empty, want some")
			}

			// Out of sync again, then a reopen brings it back too.
			didChange(h, uri, 8, tt.change)
			if got := len(h.client.shownMessages()); got != 2 {
				t.Fatalf("len(h.client.shownMessages()) = %d, want %d", got, 2)
			}
			requireLen(t, "codeActionsAt(h, uri, 0)", codeActionsAt(h, uri, 0), 0)
			h.open("clean.jsonl", "jsonl", clean)
			if got := len(codeActionsAt(h, uri, 0)); got != 1 {
				t.Fatalf("len(codeActionsAt(h, uri, 0)) = %d, want %d", got, 1)
			}
			if got := h.client.lastDiagnostics(uri).Diagnostics[0].Code; reflect.DeepEqual(got, codeOutOfSync) {
				t.Fatalf("h.client.lastDiagnostics(uri).Diagnostics[0].Code = %+v, want anything else", got)
			}
		})
	}
}

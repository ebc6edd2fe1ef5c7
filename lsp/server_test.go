package lsp

import (
	"fmt"
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

func textDoc(uri protocol.DocumentURI) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}}
}

func at(uri protocol.DocumentURI, line, char int) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": line, "character": char},
	}
}

// requireDiagnosticsMatch checks that got is rep, a report on text, as a
// client should see it. A whole-line finding (zero span) covers the line's
// text, less a trailing '\r'.
func requireDiagnosticsMatch(t *testing.T, uri protocol.DocumentURI, text string, rep *analysis.Report, got []protocol.Diagnostic) {
	t.Helper()
	lines := strings.Split(text, "\n")
	require.NotNil(t, got, "diagnostics must be [], never null")
	require.Len(t, got, len(rep.Findings))
	for i, f := range rep.Findings {
		d := got[i]
		require.Equal(t, f.Code, d.Code, "finding %d", i)
		require.Equal(t, "sessionls", d.Source)
		require.Equal(t, f.Message, d.Message)
		require.Equal(t, uint32(f.Line-1), d.Range.Start.Line, f.Code)
		require.Equal(t, uint32(f.Line-1), d.Range.End.Line, f.Code)
		require.Equal(t, uint32(f.Span.StartCol), d.Range.Start.Character, f.Code)
		wantEnd := f.Span.EndCol
		if f.Span == (line.Span{}) {
			wantEnd = len(utf16.Encode([]rune(strings.TrimSuffix(lines[f.Line-1], "\r"))))
		}
		require.Equal(t, uint32(wantEnd), d.Range.End.Character, f.Code)
		wantSev := map[analysis.Severity]protocol.DiagnosticSeverity{
			analysis.SeverityError:   protocol.DiagnosticSeverityError,
			analysis.SeverityWarning: protocol.DiagnosticSeverityWarning,
			analysis.SeverityInfo:    protocol.DiagnosticSeverityInformation,
		}[f.Severity]
		require.Equal(t, wantSev, d.Severity, f.Code)
		require.Len(t, d.RelatedInformation, len(f.Related), f.Code)
		for k, r := range f.Related {
			require.Equal(t, uri, d.RelatedInformation[k].Location.URI)
			require.Equal(t, uint32(r.Line-1), d.RelatedInformation[k].Location.Range.Start.Line)
			require.Equal(t, r.Message, d.RelatedInformation[k].Message)
		}
	}
}

func TestDiagnostics(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	demo := readSession(t, "demo.jsonl")
	uri := h.open("demo.jsonl", "jsonl", demo)
	pub := h.client.lastDiagnostics(uri)
	require.Equal(t, uint32(1), pub.Version)
	rep := analysis.Analyze([]byte(demo), analysis.Options{})
	require.NotEmpty(t, rep.Findings, "the demo session has problems to report")
	requireDiagnosticsMatch(t, uri, demo, rep, pub.Diagnostics)

	// Fix line 8 (the unterminated object) with an incremental edit.
	lines := strings.Split(demo, "\n")
	end := utf16Len(lines[7])
	h.insert(uri, 2, 7, end, "}")
	pub = h.client.lastDiagnostics(uri)
	require.Equal(t, uint32(2), pub.Version)
	lines[7] += "}"
	requireDiagnosticsMatch(t, uri, strings.Join(lines, "\n"), analysis.Analyze([]byte(strings.Join(lines, "\n")), analysis.Options{}), pub.Diagnostics)

	// A full-text change (no range) replaces everything.
	clean := readSession(t, "clean.jsonl")
	n := h.client.publications(uri)
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": clean}},
	})
	require.Eventually(t, func() bool { return h.client.publications(uri) > n }, wait, time.Millisecond)
	pub = h.client.lastDiagnostics(uri)
	require.Equal(t, uint32(3), pub.Version)
	require.NotNil(t, pub.Diagnostics)
	require.Empty(t, pub.Diagnostics)

	// Closing clears the diagnostics with [].
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": docURI("notes.txt"), "languageId": "plaintext", "version": 1, "text": "{"}})
	n = h.client.publications(uri)
	h.notify("textDocument/didClose", textDoc(uri))
	require.Eventually(t, func() bool { return h.client.publications(uri) > n }, wait, time.Millisecond)
	pub = h.client.lastDiagnostics(uri)
	require.NotNil(t, pub.Diagnostics)
	require.Empty(t, pub.Diagnostics)
	h.sync()
	require.Zero(t, h.client.publications(docURI("notes.txt")), "a plain-text document is not analysed")
	require.Empty(t, h.client.shownMessages())
}

func lensTitles(lenses []protocol.CodeLens) []string {
	out := make([]string, len(lenses))
	for i, l := range lenses {
		out[i] = fmt.Sprintf("%d: %s [%s]", l.Range.Start.Line, l.Command.Title, l.Command.Command)
		if len(l.Command.Arguments) > 0 {
			out[i] = fmt.Sprintf("%d: %s [%s %v]", l.Range.Start.Line, l.Command.Title, l.Command.Command, l.Command.Arguments)
		}
	}
	return out
}

func TestCodeLenses(t *testing.T) {
	demo := readSession(t, "demo.jsonl")
	clean := readSession(t, "clean.jsonl")
	tests := []struct {
		name   string
		text   string
		budget any
		want   []string
	}{
		{"demo, no budget", demo, nil, []string{
			"0: Σ 1,351 chars · 10 messages · the file does not load (line 7 is invalid) [sessionls.setBudget]",
			"0: 95 chars · 1 message · 1,351 from newest [sessionls.setBudget [1351]]",
			"1: 590 chars · 3 messages · 1,256 from newest [sessionls.setBudget [1256]]",
			"4: 283 chars · 2 messages · 666 from newest [sessionls.setBudget [666]]",
			"8: 234 chars · 2 messages · 383 from newest [sessionls.setBudget [383]]",
			"10: 79 chars · 1 message · 149 from newest [sessionls.setBudget [149]]",
			"11: 70 chars · 1 message · 70 from newest [sessionls.setBudget [70]]",
		}},
		{"demo does not load", demo, 8000, []string{
			"0: ✂ budget 8,000: the file does not load (line 7 is invalid) [sessionls.setBudget]",
			"0: 95 chars · 1 message · 1,351 from newest [sessionls.setBudget [1351]]",
			"1: 590 chars · 3 messages · 1,256 from newest [sessionls.setBudget [1256]]",
			"4: 283 chars · 2 messages · 666 from newest [sessionls.setBudget [666]]",
			"8: 234 chars · 2 messages · 383 from newest [sessionls.setBudget [383]]",
			"10: 79 chars · 1 message · 149 from newest [sessionls.setBudget [149]]",
			"11: 70 chars · 1 message · 70 from newest [sessionls.setBudget [70]]",
		}},
		{"clean, cut", clean, 300, []string{
			"0: 81 chars · 1 message · 719 from newest [sessionls.setBudget [719]]",
			"1: 210 chars · 2 messages · 638 from newest [sessionls.setBudget [638]]",
			"3: 247 chars · 2 messages · 428 from newest [sessionls.setBudget [428]]",
			"5: ✂ budget 300 · keeps lines 6–7 · 181 chars · 5 messages above are trimmed [sessionls.setBudget]",
			"5: 138 chars · 1 message · 181 from newest [sessionls.setBudget [181]]",
			"6: 43 chars · 1 message · 43 from newest [sessionls.setBudget [43]]",
		}},
		{"clean, all kept", clean, 100000, []string{
			"0: ✂ budget 100,000 · keeps lines 1–7 · 719 chars · nothing trimmed [sessionls.setBudget]",
			"0: 81 chars · 1 message · 719 from newest [sessionls.setBudget [719]]",
			"1: 210 chars · 2 messages · 638 from newest [sessionls.setBudget [638]]",
			"3: 247 chars · 2 messages · 428 from newest [sessionls.setBudget [428]]",
			"5: 138 chars · 1 message · 181 from newest [sessionls.setBudget [181]]",
			"6: 43 chars · 1 message · 43 from newest [sessionls.setBudget [43]]",
		}},
		{"clean, too small", clean, 42, []string{
			"0: 81 chars · 1 message · 719 from newest [sessionls.setBudget [719]]",
			"1: 210 chars · 2 messages · 638 from newest [sessionls.setBudget [638]]",
			"3: 247 chars · 2 messages · 428 from newest [sessionls.setBudget [428]]",
			"5: 138 chars · 1 message · 181 from newest [sessionls.setBudget [181]]",
			"6: ✂ budget 42: context budget cannot contain the smallest consistent message unit; the least budget that works is 43 [sessionls.setBudget]",
			"6: 43 chars · 1 message · 43 from newest [sessionls.setBudget [43]]",
		}},
		{"empty file", "", 100, []string{
			"0: ✂ budget 100: context budget cannot be empty [sessionls.setBudget]",
		}},
		{"empty file, no budget", "", nil, []string{
			"0: Σ 0 chars · 0 messages · set a context budget [sessionls.setBudget]",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := harnessOptions{}
			if tt.budget != nil {
				opts.initOptions = map[string]any{"budget": tt.budget}
			}
			h := startHarness(t, opts)
			uri := h.open("s.jsonl", "jsonl", tt.text)
			var lenses []protocol.CodeLens
			h.call("textDocument/codeLens", textDoc(uri), &lenses)
			got := lensTitles(lenses)
			// The lenses are sorted by line for comparison; the server
			// sends the budget lens first.
			require.ElementsMatch(t, tt.want, got)

			// Unit lenses carry exactly the engine's unit costs.
			b, _ := tt.budget.(int)
			rep := analysis.Analyze([]byte(tt.text), analysis.Options{Budget: int64(b)})
			for _, u := range rep.Units {
				require.Contains(t, got, fmt.Sprintf("%d: %s [sessionls.setBudget [%d]]", u.StartLine-1, unitTitle(u), u.FromNewest))
				require.Contains(t, unitTitle(u), textfmt.Thousands(u.Chars)+" chars")
			}
		})
	}
}

// TestUnitLensBudgetToHere runs every unit lens's command as a client does
// (workspace/executeCommand with the lens's arguments): the budget becomes
// the unit's chars from newest and the cut lands on that unit.
func TestUnitLensBudgetToHere(t *testing.T) {
	for _, name := range []string{"clean.jsonl", "units.jsonl"} {
		t.Run(name, func(t *testing.T) {
			text := readSession(t, name)
			h := startHarness(t, harnessOptions{})
			uri := h.open(name, "jsonl", text)
			var lenses []protocol.CodeLens
			h.call("textDocument/codeLens", textDoc(uri), &lenses)
			units := analysis.Analyze([]byte(text), analysis.Options{}).Units
			ran := 0
			for _, l := range lenses {
				if len(l.Command.Arguments) == 0 {
					continue // the Σ lens: the client prompts
				}
				ran++
				require.Equal(t, commandSetBudget, l.Command.Command)
				h.call("workspace/executeCommand", map[string]any{"command": l.Command.Command, "arguments": l.Command.Arguments}, nil)
				st := statusOf(h, uri)
				require.Equal(t, l.Command.Arguments[0], st["budget"])
				require.Equal(t, float64(l.Range.Start.Line+1), st["firstKeptLine"], "%s: the cut lands on the lens's unit", l.Command.Title)
				require.Equal(t, st["budget"], st["keptChars"], "the unit and every newer one fill the budget exactly")
			}
			require.Equal(t, len(units), ran, "one budget-to-here lens per unit")
		})
	}
}

func statusOf(h *harness, uri protocol.DocumentURI) map[string]any {
	h.t.Helper()
	var st map[string]any
	h.call("sessionls/status", map[string]any{"uri": uri}, &st)
	return st
}

func TestBudgetRoutes(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 300}})
	uri := h.open("clean.jsonl", "jsonl", clean)

	st := statusOf(h, uri)
	require.Equal(t, map[string]any{
		"budget": float64(300), "totalChars": float64(719), "keptChars": float64(181), "firstKeptLine": float64(6),
		"messages": float64(7), "loads": true, "error": nil, "minBudget": float64(43),
		"budgetSource": "editor setting sessionls.budget",
		"dialect":      "seed", "dialectWhy": "auto (default), detected: line 1, the first line JSON.parse accepts, is a seed record",
	}, st, "initializationOptions.budget")
	requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), analysis.Options{Budget: 300}), h.client.lastDiagnostics(uri).Diagnostics)

	// workspace/didChangeConfiguration with settings.sessionls.budget.
	n, r := h.client.publications(uri), h.client.refreshCount()
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 100}}})
	require.Eventually(t, func() bool { return h.client.publications(uri) > n }, wait, time.Millisecond)
	require.Equal(t, float64(100), statusOf(h, uri)["budget"])
	requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), analysis.Options{Budget: 100}), h.client.lastDiagnostics(uri).Diagnostics)
	require.Eventually(t, func() bool { return h.client.refreshCount() > r }, wait, time.Millisecond, "codeLens refresh")

	// null: no budget.
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": nil}}})
	st = statusOf(h, uri)
	require.Nil(t, st["budget"])
	require.Nil(t, st["keptChars"])
	require.Nil(t, st["firstKeptLine"])

	// workspace/executeCommand, a number and a numeric string.
	for _, arg := range []any{250, "42"} {
		n, r = h.client.publications(uri), h.client.refreshCount()
		h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{arg}}, nil)
		require.Eventually(t, func() bool { return h.client.publications(uri) > n }, wait, time.Millisecond)
		require.Eventually(t, func() bool { return h.client.refreshCount() > r }, wait, time.Millisecond)
	}
	st = statusOf(h, uri)
	require.Equal(t, float64(42), st["budget"])
	require.Equal(t, "context budget cannot contain the smallest consistent message unit", st["error"], "the runtime's words")
	require.Equal(t, float64(43), st["minBudget"], "the least budget that works: the newest unit's cost")
	require.Nil(t, st["keptChars"])
	rep := analysis.Analyze([]byte(clean), analysis.Options{Budget: 42})
	requireDiagnosticsMatch(t, uri, clean, rep, h.client.lastDiagnostics(uri).Diagnostics)
	require.Equal(t, analysis.CodeBudgetExceeded, rep.Findings[len(rep.Findings)-1].Code)

	// Bad budgets: an error message, and the budget stays.
	bad := []struct {
		args []any
		got  string
	}{
		{[]any{-5}, "got -5"},
		{[]any{2.5}, "got 2.5"},
		{[]any{"many"}, `got "many"`},
		{[]any{}, "got nothing"},
		{nil, "got nothing"},
	}
	for _, b := range bad {
		before := len(h.client.shownMessages())
		params := map[string]any{"command": "sessionls.setBudget"}
		if b.args != nil {
			params["arguments"] = b.args
		}
		err := h.callErr("workspace/executeCommand", params, nil)
		require.Error(t, err, "%v", b.args)
		require.Eventually(t, func() bool { return len(h.client.shownMessages()) == before+1 }, wait, time.Millisecond, "%v", b.args)
		msgs := h.client.shownMessages()
		require.Equal(t, protocol.MessageTypeError, msgs[before].Type)
		require.Equal(t, `sessionls.setBudget needs a positive whole number of characters (or null, 0 or "off" to clear the budget), `+b.got, msgs[before].Message)
	}
	require.Equal(t, float64(42), statusOf(h, uri)["budget"])

	// null, 0, "off" and "" clear the budget: the Σ lens is back.
	for _, clear := range []any{nil, 0, "off", ""} {
		h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{42}}, nil)
		require.Equal(t, float64(42), statusOf(h, uri)["budget"])
		h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{clear}}, nil)
		require.Nil(t, statusOf(h, uri)["budget"], "after setBudget(%#v)", clear)
	}
	h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{42}}, nil)

	// A bad budget in configuration is reported too, and ignored.
	before := len(h.client.shownMessages())
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": "lots"}}})
	require.Equal(t, float64(42), statusOf(h, uri)["budget"])
	require.Eventually(t, func() bool { return len(h.client.shownMessages()) == before+1 }, wait, time.Millisecond)
}

// TestConfigurationPull: a didChangeConfiguration without a sessionls
// section (VS Code sends null) makes the server ask workspace/configuration.
func TestConfigurationPull(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startHarness(t, harnessOptions{})
	uri := h.open("clean.jsonl", "jsonl", clean)
	require.Nil(t, statusOf(h, uri)["budget"])
	h.client.mu.Lock()
	h.client.config = map[string]any{"budget": 300, "checks": []any{"budget-cutoff"}}
	h.client.mu.Unlock()
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
	st := statusOf(h, uri)
	require.Equal(t, float64(300), st["budget"])
	require.Equal(t, float64(6), st["firstKeptLine"])
	// budget-cutoff is turned off.
	pub := h.client.lastDiagnostics(uri)
	require.NotNil(t, pub.Diagnostics)
	require.Empty(t, pub.Diagnostics)
}

func TestNavigation(t *testing.T) {
	demo := readSession(t, "demo.jsonl")
	h := startHarness(t, harnessOptions{})
	uri := h.open("demo.jsonl", "jsonl", demo)
	lines := strings.Split(demo, "\n")
	col := func(line int, s string) int {
		i := strings.Index(lines[line], s)
		require.GreaterOrEqual(t, i, 0, s)
		return utf16Len(lines[line][:i])
	}

	t.Run("hover", func(t *testing.T) {
		var hv protocol.Hover
		h.call("textDocument/hover", at(uri, 2, 5), &hv)
		require.Equal(t, protocol.Markdown, hv.Contents.Kind)
		v := hv.Contents.Value
		require.Contains(t, v, "**tool** message · line 3")
		require.Contains(t, v, "result of `call_1`, declared on line 2")
		require.Contains(t, v, "unit lines 2–4 · 3 messages · 590 chars · 1,256 chars from the newest")
		require.Contains(t, v, "The file does not load")
		require.Equal(t, uint32(2), hv.Range.Start.Line)

		h.call("textDocument/hover", at(uri, 6, 0), &hv)
		require.Contains(t, hv.Contents.Value, "**invalid-record** · line 7")
		require.Contains(t, hv.Contents.Value, `unknown role "system"`)
		require.Contains(t, hv.Contents.Value, "first invalid line")
		h.call("textDocument/hover", at(uri, 7, 0), &hv)
		require.Contains(t, hv.Contents.Value, "**invalid-json** · line 8")
		require.Contains(t, hv.Contents.Value, "already refuses the file at line 7")
	})

	t.Run("definition", func(t *testing.T) {
		var locs []protocol.Location
		h.call("textDocument/definition", at(uri, 3, col(3, `"call_2"`)+2), &locs)
		require.Len(t, locs, 1)
		require.Equal(t, uri, locs[0].URI)
		require.Equal(t, uint32(1), locs[0].Range.Start.Line)
		require.Equal(t, uint32(col(1, `"call_2"`)), locs[0].Range.Start.Character)
		require.Equal(t, uint32(col(1, `"call_2"`)+len(`"call_2"`)), locs[0].Range.End.Character)
		// The orphan result has no declaration; a position off the id has none.
		h.call("textDocument/definition", at(uri, 10, col(10, `"call_9"`)+1), &locs)
		require.Empty(t, locs)
		h.call("textDocument/definition", at(uri, 3, 0), &locs)
		require.Empty(t, locs)
	})

	t.Run("references", func(t *testing.T) {
		var locs []protocol.Location
		params := at(uri, 1, col(1, `"call_1"`)+3)
		params["context"] = map[string]any{"includeDeclaration": false}
		h.call("textDocument/references", params, &locs)
		require.Len(t, locs, 1)
		require.Equal(t, uint32(2), locs[0].Range.Start.Line)
		require.Equal(t, uint32(col(2, `"call_1"`)), locs[0].Range.Start.Character)
		params["context"] = map[string]any{"includeDeclaration": true}
		h.call("textDocument/references", params, &locs)
		require.Len(t, locs, 2)
		require.Equal(t, uint32(1), locs[0].Range.Start.Line)
		require.Equal(t, uint32(2), locs[1].Range.Start.Line)
	})

	t.Run("symbols", func(t *testing.T) {
		var syms []protocol.DocumentSymbol
		h.call("textDocument/documentSymbol", textDoc(uri), &syms)
		names := make([]string, len(syms))
		for i, s := range syms {
			names[i] = s.Name
			require.Equal(t, protocol.SymbolKindNamespace, s.Kind)
		}
		require.Equal(t, []string{
			"line 1 · 95 chars", "lines 2–4 · 590 chars", "lines 5–6 · 283 chars",
			"lines 9–10 · 234 chars", "line 11 · 79 chars", "line 12 · 70 chars",
		}, names)
		var kids []string
		for _, c := range syms[1].Children {
			kids = append(kids, c.Name)
		}
		require.Equal(t, []string{"assistant: read_file, run", "tool call_1", "tool call_2 (error)"}, kids)
		require.Equal(t, "user: Fix the failing test in parser.go — it s…", syms[0].Children[0].Name)
		require.Equal(t, "assistant: All tests pass now. ✅", syms[5].Children[0].Name)
		require.Equal(t, uint32(1), syms[1].Range.Start.Line)
		require.Equal(t, uint32(3), syms[1].Range.End.Line)
	})

	t.Run("folding", func(t *testing.T) {
		var folds []protocol.FoldingRange
		h.call("textDocument/foldingRange", textDoc(uri), &folds)
		var got [][2]uint32
		for _, f := range folds {
			got = append(got, [2]uint32{f.StartLine, f.EndLine})
		}
		require.Equal(t, [][2]uint32{{1, 3}, {4, 5}, {8, 9}}, got)
	})
}

func TestCodeAction(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 300}})
	uri := h.open("clean.jsonl", "jsonl", clean)
	rangeAt := func(line int) map[string]any {
		p := map[string]any{"line": line, "character": 0}
		return map[string]any{"start": p, "end": p}
	}
	var actions []protocol.CodeAction
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rangeAt(5), "context": map[string]any{"diagnostics": []any{}},
	}, &actions)
	require.Len(t, actions, 1)
	a := actions[0]
	require.Equal(t, "Trim 5 lines above the budget cutoff", a.Title)
	require.Equal(t, protocol.RefactorRewrite, a.Kind)
	require.Len(t, a.Edit.DocumentChanges, 1)
	dc := a.Edit.DocumentChanges[0]
	require.Equal(t, uri, dc.TextDocument.URI)
	require.NotNil(t, dc.TextDocument.Version)
	require.Equal(t, int32(1), *dc.TextDocument.Version)
	require.Equal(t, []protocol.TextEdit{{Range: protocol.Range{End: protocol.Position{Line: 5}}, NewText: ""}}, dc.Edits)
	require.Len(t, a.Diagnostics, 1)
	require.Equal(t, analysis.CodeBudgetCutoff, a.Diagnostics[0].Code)

	// Applying the edit leaves exactly what the budget keeps.
	lines := strings.Split(clean, "\n")
	kept := strings.Join(lines[5:], "\n")
	rep := analysis.Analyze([]byte(kept), analysis.Options{Budget: 300})
	require.Equal(t, rep.TotalChars, rep.Cutoff.KeptChars)

	// Below the cutoff, or with a filter for other kinds: nothing.
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rangeAt(6), "context": map[string]any{"diagnostics": []any{}},
	}, &actions)
	require.Empty(t, actions)
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rangeAt(0), "context": map[string]any{"diagnostics": []any{}, "only": []any{"quickfix"}},
	}, &actions)
	require.Empty(t, actions)
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rangeAt(0), "context": map[string]any{"diagnostics": []any{}, "only": []any{"refactor"}},
	}, &actions)
	require.Len(t, actions, 1)
}

// TestAstralEdit edits after non-ASCII and astral characters: positions
// are UTF-16 code units.
func TestAstralEdit(t *testing.T) {
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 10000}})
	prefix := `{"role":"user","content":"é🙏`
	text := prefix + `"}` + "\n" + `{"role":"user","content":"ok"}`
	uri := h.open("astral.jsonl", "jsonl", text)
	require.Empty(t, h.client.lastDiagnostics(uri).Diagnostics[:0])

	// Insert "ß🎉" just before the closing quote: UTF-16 column 26+1+2.
	c := utf16Len(prefix)
	require.Equal(t, 29, c)
	h.insert(uri, 2, 0, c, "ß🎉")
	want := prefix + `ß🎉"}` + "\n" + `{"role":"user","content":"ok"}`
	rep := analysis.Analyze([]byte(want), analysis.Options{Budget: 10000})
	require.True(t, rep.Loads())
	requireDiagnosticsMatch(t, uri, want, rep, h.client.lastDiagnostics(uri).Diagnostics)
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	require.Contains(t, lensTitles(lenses), fmt.Sprintf("0: %s [sessionls.setBudget [%d]]", unitTitle(rep.Units[0]), rep.Units[0].FromNewest))
	require.Equal(t, float64(rep.TotalChars), statusOf(h, uri)["totalChars"])
}

// TestBadEdits: an edit to a document that is not open is reported; one
// out of range puts the document out of sync (see TestOutOfSync) and keeps
// the last good text; a full-text change resyncs.
func TestBadEdits(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startHarness(t, harnessOptions{})
	uri := h.open("clean.jsonl", "jsonl", clean)
	change := func(uri protocol.DocumentURI, version, line, char int, text string) {
		h.notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{
				"range": map[string]any{"start": map[string]any{"line": line, "character": char}, "end": map[string]any{"line": line, "character": char}},
				"text":  text,
			}},
		})
	}
	change(docURI("never-opened.jsonl"), 2, 0, 0, "x")
	require.Eventually(t, func() bool { return len(h.client.shownMessages()) == 1 }, wait, time.Millisecond)
	require.Contains(t, h.client.shownMessages()[0].Message, "never-opened.jsonl")

	n := h.client.publications(uri)
	change(uri, 2, 100, 0, "x") // no line 100
	require.Eventually(t, func() bool { return len(h.client.shownMessages()) == 2 }, wait, time.Millisecond)
	require.Equal(t, protocol.MessageTypeError, h.client.shownMessages()[1].Type)
	change(uri, 3, 0, 0, "garbage") // ignored: the document is out of step
	h.sync()
	require.Equal(t, n+1, h.client.publications(uri), "one publication, the out-of-sync diagnostic, for the failure")
	require.Equal(t, codeOutOfSync, h.client.lastDiagnostics(uri).Diagnostics[0].Code)
	require.Equal(t, float64(719), statusOf(h, uri)["totalChars"], "the last good text is kept")
	require.Len(t, h.client.shownMessages(), 2, "one message per failure, not per ignored edit")

	n = h.client.publications(uri)
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 4},
		"contentChanges": []any{map[string]any{"text": "{"}},
	})
	require.Eventually(t, func() bool { return h.client.publications(uri) > n }, wait, time.Millisecond)
	pub := h.client.lastDiagnostics(uri)
	require.Equal(t, uint32(4), pub.Version)
	require.Len(t, pub.Diagnostics, 1)
	require.Equal(t, analysis.CodeTruncatedRecord, pub.Diagnostics[0].Code, "a lone { is a record cut short")
}

// TestFileSelection: language id, .jsonl and the configurable globs.
func TestFileSelection(t *testing.T) {
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"files": []any{"**/*.session", "logs/*.txt"}}})
	open := func(name, lang string) {
		h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": docURI(name), "languageId": lang, "version": 1, "text": "{}"}})
	}
	open("a.session", "plaintext")
	open("logs/b.txt", "plaintext")
	open("c.txt", "plaintext")
	open("d.JSONL", "json")
	open("e.log", "jsonl")
	h.sync()
	for name, want := range map[string]bool{"a.session": true, "logs/b.txt": true, "c.txt": false, "d.JSONL": true, "e.log": true} {
		require.Equal(t, want, h.client.publications(docURI(name)) > 0, name)
	}
	// Narrowing the globs drops a.session (its diagnostics are cleared).
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"files": []any{"logs/*.txt"}}}})
	h.sync()
	pub := h.client.lastDiagnostics(docURI("a.session"))
	require.Empty(t, pub.Diagnostics)
	require.Error(t, h.callErr("sessionls/status", map[string]any{"uri": docURI("a.session")}, nil))
	require.Equal(t, 2, h.client.publications(docURI("logs/b.txt")), "still analysed, published again")
}

// TestRedeclaredCallID: results link to the nearest earlier declaration,
// as trimContext groups them.
func TestRedeclaredCallID(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	call := `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"run","input":null}]}`
	result := `{"role":"tool","toolCallId":"a","isError":false,"content":"ok"}`
	text := strings.Join([]string{call, result, call, result, result}, "\n")
	uri := h.open("redeclared.jsonl", "jsonl", text)
	idCol := strings.Index(call, `"a"`) + 1
	resCol := strings.Index(result, `"a"`) + 1

	refs := func(line, col int) []uint32 {
		var locs []protocol.Location
		p := at(uri, line, col)
		p["context"] = map[string]any{"includeDeclaration": false}
		h.call("textDocument/references", p, &locs)
		var lines []uint32
		for _, l := range locs {
			lines = append(lines, l.Range.Start.Line)
		}
		return lines
	}
	require.Equal(t, []uint32{1}, refs(0, idCol))
	require.Equal(t, []uint32{3, 4}, refs(2, idCol))
	require.Equal(t, []uint32{3, 4}, refs(4, resCol), "from a result: the results of its call")

	for line, want := range map[int]uint32{1: 0, 3: 2, 4: 2} {
		var locs []protocol.Location
		h.call("textDocument/definition", at(uri, line, resCol), &locs)
		require.Len(t, locs, 1)
		require.Equal(t, want, locs[0].Range.Start.Line, "definition from line %d", line)
	}
}

// withDiagnosticTags is defaultCapabilities plus
// textDocument.publishDiagnostics.tagSupport (raw JSON value).
func withDiagnosticTags(tagSupport any) map[string]any {
	caps := defaultCapabilities()
	caps["textDocument"] = map[string]any{"publishDiagnostics": map[string]any{"tagSupport": tagSupport}}
	return caps
}

// TestTrimmedRegionFaded: for a client that fades Unnecessary-tagged
// ranges, the budget-cutoff finding is published as a hint spanning the
// lines the model will not see; other clients keep the info diagnostic on
// the first kept line, and the other findings are the same either way.
func TestTrimmedRegionFaded(t *testing.T) {
	tests := []struct {
		session string
		budget  int64
		last    int    // last trimmed line, 1-based; 0: nothing faded
		message string // of the faded hint
	}{
		{"clean.jsonl", 300, 5, "trimmed by budget 300: the model will not see lines 1–5 (5 messages)"},
		{"clean.jsonl", 700, 1, "trimmed by budget 700: the model will not see line 1 (1 message)"},
		{"clean.jsonl", 100000, 0, ""}, // keeps everything: nothing to fade
		{"crlf_ok.jsonl", 150, 0, ""},  // filled in below from the engine
		{"units.jsonl", 600, 0, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d", tt.session, tt.budget), func(t *testing.T) {
			text := readSession(t, tt.session)
			rep := analysis.Analyze([]byte(text), analysis.Options{Budget: tt.budget})
			require.NotNil(t, rep.Cutoff)
			if tt.message == "" && rep.Cutoff.FirstKeptLine > 1 {
				tt.last = rep.Cutoff.FirstKeptLine - 1
				tt.message = fmt.Sprintf("trimmed by budget %s: the model will not see %s (%s)", textfmt.Thousands(tt.budget),
					textfmt.LineRange(1, tt.last), textfmt.Plural(len(rep.Messages)-rep.Cutoff.KeptMessages, "message", "messages"))
			}
			require.Equal(t, rep.Cutoff.FirstKeptLine-1, tt.last)

			h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": tt.budget}, capabilities: withDiagnosticTags(map[string]any{"valueSet": []any{1, 2}})})
			uri := h.open(tt.session, "jsonl", text)
			got := h.client.lastDiagnostics(uri).Diagnostics
			var others []protocol.Diagnostic
			var faded []protocol.Diagnostic
			for _, d := range got {
				if d.Code == analysis.CodeBudgetCutoff {
					faded = append(faded, d)
				} else {
					others = append(others, d)
				}
			}
			var otherFindings []analysis.Finding
			for _, f := range rep.Findings {
				if f.Code != analysis.CodeBudgetCutoff {
					otherFindings = append(otherFindings, f)
				}
			}
			requireDiagnosticsMatch(t, uri, text, &analysis.Report{Findings: otherFindings}, append([]protocol.Diagnostic{}, others...))
			if tt.last == 0 {
				require.Empty(t, faded, "no line is trimmed, nothing is faded")
				return
			}
			require.Len(t, faded, 1)
			d := faded[0]
			lines := strings.Split(text, "\n")
			lastWidth := len(utf16.Encode([]rune(strings.TrimSuffix(lines[tt.last-1], "\r"))))
			require.Equal(t, protocol.Range{End: protocol.Position{Line: uint32(tt.last - 1), Character: uint32(lastWidth)}}, d.Range,
				"from line 1 to the end of the line before the first kept line")
			require.Equal(t, protocol.DiagnosticSeverityHint, d.Severity)
			require.Equal(t, []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary}, d.Tags)
			require.Equal(t, "sessionls", d.Source)
			require.Equal(t, tt.message, d.Message)

			// The trim action resolves the faded diagnostic.
			var actions []protocol.CodeAction
			p := map[string]any{"line": 0, "character": 0}
			h.call("textDocument/codeAction", map[string]any{
				"textDocument": map[string]any{"uri": uri}, "range": map[string]any{"start": p, "end": p}, "context": map[string]any{"diagnostics": []any{}},
			}, &actions)
			require.Len(t, actions, 1)
			require.Equal(t, []protocol.Diagnostic{d}, actions[0].Diagnostics)

			// Offered on every faded line, not on the first kept line (no
			// lightbulb there: its diagnostic is gone).
			for l := 0; l <= tt.last; l++ {
				p := map[string]any{"line": l, "character": 0}
				h.call("textDocument/codeAction", map[string]any{
					"textDocument": map[string]any{"uri": uri}, "range": map[string]any{"start": p, "end": p}, "context": map[string]any{"diagnostics": []any{}},
				}, &actions)
				trims := 0 // the quick fixes of a line's own findings aside
				for _, a := range actions {
					if a.Kind == protocol.RefactorRewrite {
						trims++
					}
				}
				require.Equal(t, map[bool]int{true: 1, false: 0}[l < tt.last], trims, "trim actions on 0-based line %d", l)
			}
		})
	}
}

// TestTrimmedRegionNeedsTagSupport: without Unnecessary in tagSupport (or
// with a tagSupport that cannot be read) the cutoff stays an info
// diagnostic on the first kept line, and initialize still succeeds.
func TestTrimmedRegionNeedsTagSupport(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	rep := analysis.Analyze([]byte(clean), analysis.Options{Budget: 300})
	for _, ts := range []any{nil, map[string]any{"valueSet": []any{2}}, true, "yes", map[string]any{"valueSet": "1"}, map[string]any{"valueSet": []any{"1", nil}}} {
		h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 300}, capabilities: withDiagnosticTags(ts)})
		uri := h.open("clean.jsonl", "jsonl", clean)
		requireDiagnosticsMatch(t, uri, clean, rep, h.client.lastDiagnostics(uri).Diagnostics)
	}
}

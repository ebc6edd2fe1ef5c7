package lsp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
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

// startLines are the lines the locations start on, in order.
func startLines(locs []protocol.Location) []uint32 {
	lines := make([]uint32, len(locs))
	for i, l := range locs {
		lines[i] = l.Range.Start.Line
	}
	return lines
}

// foldLines are the first and last lines of the document's folding ranges.
func foldLines(h *harness, uri protocol.DocumentURI) [][2]uint32 {
	h.t.Helper()
	var folds []protocol.FoldingRange
	h.call("textDocument/foldingRange", textDoc(uri), &folds)
	var lines [][2]uint32
	for _, f := range folds {
		lines = append(lines, [2]uint32{f.StartLine, f.EndLine})
	}
	return lines
}

// lineSpan is the first and the last line of r.
func lineSpan(r protocol.Range) [2]uint32 { return [2]uint32{r.Start.Line, r.End.Line} }

// requireDiagnosticsMatch checks that got is rep, a report on text, as a
// client should see it. A whole-line finding (zero span) covers the line's
// text, less a trailing '\r'.
func requireDiagnosticsMatch(t *testing.T, uri protocol.DocumentURI, text string, rep *analysis.Report, got []protocol.Diagnostic) {
	t.Helper()
	lines := strings.Split(text, "\n")
	if got == nil {
		t.Fatal("diagnostics must be [], never null: got is nil, want non-nil")
	}
	if want := len(rep.Findings); len(got) != want {
		t.Fatalf("len(got) = %d, want %d: %+v", len(got), want, got)
	}
	for i, f := range rep.Findings {
		d := got[i]
		if !reflect.DeepEqual(d.Code, f.Code) {
			t.Fatalf("finding %d: d.Code = %+v, want %q", i, d.Code, f.Code)
		}
		if d.Source != "sessionls" {
			t.Fatalf("d.Source = %q, want %q", d.Source, "sessionls")
		}
		if d.Message != f.Message {
			t.Fatalf("d.Message = %q, want %q", d.Message, f.Message)
		}
		if want := uint32(f.Line - 1); d.Range.Start.Line != want {
			t.Fatalf("%v: d.Range.Start.Line = %v, want %v", f.Code, d.Range.Start.Line, want)
		}
		if want := uint32(f.Line - 1); d.Range.End.Line != want {
			t.Fatalf("%v: d.Range.End.Line = %v, want %v", f.Code, d.Range.End.Line, want)
		}
		if want := uint32(f.Span.StartCol); d.Range.Start.Character != want {
			t.Fatalf("%v: d.Range.Start.Character = %v, want %v", f.Code, d.Range.Start.Character, want)
		}
		wantEnd := f.Span.EndCol
		if f.Span == (line.Span{}) {
			wantEnd = utf16Len(strings.TrimSuffix(lines[f.Line-1], "\r"))
		}
		if want := uint32(wantEnd); d.Range.End.Character != want {
			t.Fatalf("%v: d.Range.End.Character = %v, want %v", f.Code, d.Range.End.Character, want)
		}
		wantSev := map[analysis.Severity]protocol.DiagnosticSeverity{
			analysis.SeverityError:   protocol.DiagnosticSeverityError,
			analysis.SeverityWarning: protocol.DiagnosticSeverityWarning,
			analysis.SeverityInfo:    protocol.DiagnosticSeverityInformation,
		}[f.Severity]
		if d.Severity != wantSev {
			t.Fatalf("%v: d.Severity = %v, want %v", f.Code, d.Severity, wantSev)
		}
		if want := len(f.Related); len(d.RelatedInformation) != want {
			t.Fatalf("%v: len(d.RelatedInformation) = %d, want %d: %+v", f.Code, len(d.RelatedInformation), want, d.RelatedInformation)
		}
		for k, r := range f.Related {
			if d.RelatedInformation[k].Location.URI != uri {
				t.Fatalf("d.RelatedInformation[k].Location.URI = %q, want %q", d.RelatedInformation[k].Location.URI, uri)
			}
			if want := uint32(r.Line - 1); d.RelatedInformation[k].Location.Range.Start.Line != want {
				t.Fatalf("d.RelatedInformation[k].Location.Range.Start.Line = %v, want %v", d.RelatedInformation[k].Location.Range.Start.Line, want)
			}
			if d.RelatedInformation[k].Message != r.Message {
				t.Fatalf("d.RelatedInformation[k].Message = %q, want %q", d.RelatedInformation[k].Message, r.Message)
			}
		}
	}
}

func TestDiagnostics(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	demo := readSession(t, "demo.jsonl")
	uri := h.open("demo.jsonl", "jsonl", demo)
	pub := h.client.lastDiagnostics(uri)
	if want := uint32(1); pub.Version != want {
		t.Fatalf("pub.Version = %v, want %v", pub.Version, want)
	}
	rep := analysis.Analyze([]byte(demo), analysis.Options{})
	if len(rep.Findings) == 0 {
		t.Fatal("the demo session has problems to report: rep.Findings is empty, want some")
	}
	requireDiagnosticsMatch(t, uri, demo, rep, pub.Diagnostics)

	// Fix line 8 (the unterminated object) with an incremental edit.
	lines := strings.Split(demo, "\n")
	end := utf16Len(lines[7])
	h.insert(uri, 2, 7, end, "}")
	pub = h.client.lastDiagnostics(uri)
	if want := uint32(2); pub.Version != want {
		t.Fatalf("pub.Version = %v, want %v", pub.Version, want)
	}
	lines[7] += "}"
	requireDiagnosticsMatch(t, uri, strings.Join(lines, "\n"), analysis.Analyze([]byte(strings.Join(lines, "\n")), analysis.Options{}), pub.Diagnostics)

	// A full-text change (no range) replaces everything.
	clean := readSession(t, "clean.jsonl")
	n := h.client.publications(uri)
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": clean}},
	})
	eventually(t, func() bool { return h.client.publications(uri) > n }, "h.client.publications(uri) > n")
	pub = h.client.lastDiagnostics(uri)
	if want := uint32(3); pub.Version != want {
		t.Fatalf("pub.Version = %v, want %v", pub.Version, want)
	}
	if pub.Diagnostics == nil {
		t.Fatal("pub.Diagnostics is nil, want non-nil")
	}
	requireLen(t, "pub.Diagnostics", pub.Diagnostics, 0)

	// Closing clears the diagnostics with [].
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": docURI("notes.txt"), "languageId": "plaintext", "version": 1, "text": "{"}})
	n = h.client.publications(uri)
	h.notify("textDocument/didClose", textDoc(uri))
	eventually(t, func() bool { return h.client.publications(uri) > n }, "h.client.publications(uri) > n")
	pub = h.client.lastDiagnostics(uri)
	if pub.Diagnostics == nil {
		t.Fatal("pub.Diagnostics is nil, want non-nil")
	}
	requireLen(t, "pub.Diagnostics", pub.Diagnostics, 0)
	h.sync()
	if got := h.client.publications(docURI("notes.txt")); got != 0 {
		t.Fatalf(`a plain-text document is not analysed: h.client.publications(docURI("notes.txt")) = %v, want 0`, got)
	}
	requireLen(t, "h.client.shownMessages()", h.client.shownMessages(), 0)
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
	// The unit lenses are the same whatever the budget; the budget lens
	// (first here, the comparison takes any order) is what changes.
	demoUnits := []string{
		"0: 95 chars · 1 message · 1,351 from newest [sessionls.setBudget [1351]]",
		"1: 590 chars · 3 messages · 1,256 from newest [sessionls.setBudget [1256]]",
		"4: 283 chars · 2 messages · 666 from newest [sessionls.setBudget [666]]",
		"8: 234 chars · 2 messages · 383 from newest [sessionls.setBudget [383]]",
		"10: 79 chars · 1 message · 149 from newest [sessionls.setBudget [149]]",
		"11: 70 chars · 1 message · 70 from newest [sessionls.setBudget [70]]",
	}
	cleanUnits := []string{
		"0: 81 chars · 1 message · 719 from newest [sessionls.setBudget [719]]",
		"1: 210 chars · 2 messages · 638 from newest [sessionls.setBudget [638]]",
		"3: 247 chars · 2 messages · 428 from newest [sessionls.setBudget [428]]",
		"5: 138 chars · 1 message · 181 from newest [sessionls.setBudget [181]]",
		"6: 43 chars · 1 message · 43 from newest [sessionls.setBudget [43]]",
	}
	with := func(budgetLens string, units []string) []string { return append([]string{budgetLens}, units...) }
	tests := []struct {
		name   string
		text   string
		budget any
		want   []string
	}{
		{"demo, no budget", demo, nil, with("0: Σ 1,351 chars · 10 messages · the file does not load (line 7 is invalid) [sessionls.setBudget]", demoUnits)},
		{"demo does not load", demo, 8000, with("0: ✂ budget 8,000: the file does not load (line 7 is invalid) [sessionls.setBudget]", demoUnits)},
		{"clean, cut", clean, 300, with("5: ✂ budget 300 · keeps lines 6–7 · 181 chars · 5 messages above are trimmed [sessionls.setBudget]", cleanUnits)},
		{"clean, all kept", clean, 100000, with("0: ✂ budget 100,000 · keeps lines 1–7 · 719 chars · nothing trimmed [sessionls.setBudget]", cleanUnits)},
		{"clean, too small", clean, 42, with("6: ✂ budget 42: context budget cannot contain the smallest consistent message unit; the least budget that works is 43 [sessionls.setBudget]", cleanUnits)},
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
			if !sameElements(tt.want, got) {
				t.Fatalf("lensTitles(lenses) = %q, want %q in any order", got, tt.want)
			}

			// Unit lenses carry exactly the engine's unit costs.
			b, _ := tt.budget.(int)
			rep := analysis.Analyze([]byte(tt.text), analysis.Options{Budget: int64(b)})
			for _, u := range rep.Units {
				if want := fmt.Sprintf("%d: %s [sessionls.setBudget [%d]]", u.StartLine-1, unitTitle(u), u.FromNewest); !slices.Contains(got, want) {
					t.Fatalf("got = %+v, want it to contain %q", got, want)
				}
				if got, want := unitTitle(u), textfmt.Thousands(u.Chars)+" chars"; !strings.Contains(got, want) {
					t.Fatalf("unitTitle(u) = %q, want it to contain %q", got, want)
				}
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
				if l.Command.Command != commandSetBudget {
					t.Fatalf("l.Command.Command = %q, want %q", l.Command.Command, commandSetBudget)
				}
				h.call("workspace/executeCommand", map[string]any{"command": l.Command.Command, "arguments": l.Command.Arguments}, nil)
				st := statusOf(h, uri)
				if !reflect.DeepEqual(st["budget"], l.Command.Arguments[0]) {
					t.Fatalf(`st["budget"] = %+v, want %+v`, st["budget"], l.Command.Arguments[0])
				}
				if want := float64(l.Range.Start.Line + 1); !reflect.DeepEqual(st["firstKeptLine"], want) {
					t.Fatalf(`%s: the cut lands on the lens's unit: st["firstKeptLine"] = %+v, want %v`, l.Command.Title, st["firstKeptLine"], want)
				}
				if !reflect.DeepEqual(st["keptChars"], st["budget"]) {
					t.Fatalf(`the unit and every newer one fill the budget exactly: st["keptChars"] = %+v, want %+v`, st["keptChars"], st["budget"])
				}
			}
			if want := len(units); ran != want {
				t.Fatalf("one budget-to-here lens per unit: ran = %v, want %v", ran, want)
			}
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
	if want := (map[string]any{
		"budget": float64(300), "totalChars": float64(719), "keptChars": float64(181), "firstKeptLine": float64(6),
		"messages": float64(7), "loads": true, "error": nil, "minBudget": float64(43),
		"budgetSource": "editor setting sessionls.budget",
		"dialect":      "seed", "dialectWhy": "auto (default), detected: line 1, the first line JSON.parse accepts, is a seed record",
	}); !reflect.DeepEqual(st, want) {
		t.Fatalf("initializationOptions.budget: st = %+v, want %+v", st, want)
	}
	requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), analysis.Options{Budget: 300}), h.client.lastDiagnostics(uri).Diagnostics)

	// workspace/didChangeConfiguration with settings.sessionls.budget.
	n, r := h.client.publications(uri), h.client.refreshCount()
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 100}}})
	eventually(t, func() bool { return h.client.publications(uri) > n }, "h.client.publications(uri) > n")
	if want, got := float64(100), statusOf(h, uri)["budget"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`statusOf(h, uri)["budget"] = %+v, want %v`, got, want)
	}
	requireDiagnosticsMatch(t, uri, clean, analysis.Analyze([]byte(clean), analysis.Options{Budget: 100}), h.client.lastDiagnostics(uri).Diagnostics)
	eventually(t, func() bool { return h.client.refreshCount() > r }, "codeLens refresh: h.client.refreshCount() > r")

	// null: no budget.
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": nil}}})
	st = statusOf(h, uri)
	if st["budget"] != nil {
		t.Fatalf(`st["budget"] = %+v, want nil`, st["budget"])
	}
	if st["keptChars"] != nil {
		t.Fatalf(`st["keptChars"] = %+v, want nil`, st["keptChars"])
	}
	if st["firstKeptLine"] != nil {
		t.Fatalf(`st["firstKeptLine"] = %+v, want nil`, st["firstKeptLine"])
	}

	// workspace/executeCommand, a number and a numeric string.
	for _, arg := range []any{250, "42"} {
		n, r = h.client.publications(uri), h.client.refreshCount()
		h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{arg}}, nil)
		eventually(t, func() bool { return h.client.publications(uri) > n }, "h.client.publications(uri) > n")
		eventually(t, func() bool { return h.client.refreshCount() > r }, "h.client.refreshCount() > r")
	}
	st = statusOf(h, uri)
	if want := float64(42); !reflect.DeepEqual(st["budget"], want) {
		t.Fatalf(`st["budget"] = %+v, want %v`, st["budget"], want)
	}
	if !reflect.DeepEqual(st["error"], "context budget cannot contain the smallest consistent message unit") {
		t.Fatalf(`the runtime's words: st["error"] = %+v, want %q`, st["error"], "context budget cannot contain the smallest consistent message unit")
	}
	if want := float64(43); !reflect.DeepEqual(st["minBudget"], want) {
		t.Fatalf(`the least budget that works: the newest unit's cost: st["minBudget"] = %+v, want %v`, st["minBudget"], want)
	}
	if st["keptChars"] != nil {
		t.Fatalf(`st["keptChars"] = %+v, want nil`, st["keptChars"])
	}
	rep := analysis.Analyze([]byte(clean), analysis.Options{Budget: 42})
	requireDiagnosticsMatch(t, uri, clean, rep, h.client.lastDiagnostics(uri).Diagnostics)
	if got := rep.Findings[len(rep.Findings)-1].Code; got != analysis.CodeBudgetExceeded {
		t.Fatalf("rep.Findings[len(rep.Findings)-1].Code = %q, want %q", got, analysis.CodeBudgetExceeded)
	}

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
		if err == nil {
			t.Fatalf("%v: err = nil, want an error", b.args)
		}
		eventually(t, func() bool { return len(h.client.shownMessages()) == before+1 }, "%v: len(h.client.shownMessages()) == before+1", b.args)
		msgs := h.client.shownMessages()
		if msgs[before].Type != protocol.MessageTypeError {
			t.Fatalf("msgs[before].Type = %v, want %v", msgs[before].Type, protocol.MessageTypeError)
		}
		if want := `sessionls.setBudget needs a positive whole number of characters (or null, 0 or "off" to clear the budget), ` + b.got; msgs[before].Message != want {
			t.Fatalf("msgs[before].Message = %q, want %q", msgs[before].Message, want)
		}
	}
	if want, got := float64(42), statusOf(h, uri)["budget"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`statusOf(h, uri)["budget"] = %+v, want %v`, got, want)
	}

	// null, 0, "off" and "" clear the budget: the Σ lens is back.
	for _, clear := range []any{nil, 0, "off", ""} {
		h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{42}}, nil)
		if want, got := float64(42), statusOf(h, uri)["budget"]; !reflect.DeepEqual(got, want) {
			t.Fatalf(`statusOf(h, uri)["budget"] = %+v, want %v`, got, want)
		}
		h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{clear}}, nil)
		if got := statusOf(h, uri)["budget"]; got != nil {
			t.Fatalf(`after setBudget(%#v): statusOf(h, uri)["budget"] = %+v, want nil`, clear, got)
		}
	}
	h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{42}}, nil)

	// A bad budget in configuration is reported too, and ignored.
	before := len(h.client.shownMessages())
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": "lots"}}})
	if want, got := float64(42), statusOf(h, uri)["budget"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`statusOf(h, uri)["budget"] = %+v, want %v`, got, want)
	}
	eventually(t, func() bool { return len(h.client.shownMessages()) == before+1 }, "len(h.client.shownMessages()) == before+1")
}

// TestConfigurationPull: a didChangeConfiguration without a sessionls
// section (VS Code sends null) makes the server ask workspace/configuration.
func TestConfigurationPull(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startHarness(t, harnessOptions{})
	uri := h.open("clean.jsonl", "jsonl", clean)
	if got := statusOf(h, uri)["budget"]; got != nil {
		t.Fatalf(`statusOf(h, uri)["budget"] = %+v, want nil`, got)
	}
	h.client.mu.Lock()
	h.client.config = map[string]any{"budget": 300, "checks": []any{"budget-cutoff"}}
	h.client.mu.Unlock()
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
	st := statusOf(h, uri)
	if want := float64(300); !reflect.DeepEqual(st["budget"], want) {
		t.Fatalf(`st["budget"] = %+v, want %v`, st["budget"], want)
	}
	if want := float64(6); !reflect.DeepEqual(st["firstKeptLine"], want) {
		t.Fatalf(`st["firstKeptLine"] = %+v, want %v`, st["firstKeptLine"], want)
	}
	// budget-cutoff is turned off.
	pub := h.client.lastDiagnostics(uri)
	if pub.Diagnostics == nil {
		t.Fatal("pub.Diagnostics is nil, want non-nil")
	}
	requireLen(t, "pub.Diagnostics", pub.Diagnostics, 0)
}

func TestNavigation(t *testing.T) {
	demo := readSession(t, "demo.jsonl")
	h := startHarness(t, harnessOptions{})
	uri := h.open("demo.jsonl", "jsonl", demo)
	lines := strings.Split(demo, "\n")
	col := func(line int, s string) int {
		i := strings.Index(lines[line], s)
		if i < 0 {
			t.Fatalf("%v: i = %v, want >= %v", s, i, 0)
		}
		return utf16Len(lines[line][:i])
	}

	t.Run("hover", func(t *testing.T) {
		var hv protocol.Hover
		h.call("textDocument/hover", at(uri, 2, 5), &hv)
		if hv.Contents.Kind != protocol.Markdown {
			t.Fatalf("hv.Contents.Kind = %q, want %q", hv.Contents.Kind, protocol.Markdown)
		}
		v := hv.Contents.Value
		if !strings.Contains(v, "**tool** message · line 3") {
			t.Fatalf("v = %q, want it to contain %q", v, "**tool** message · line 3")
		}
		if !strings.Contains(v, "result of `call_1`, declared on line 2") {
			t.Fatalf("v = %q, want it to contain %q", v, "result of `call_1`, declared on line 2")
		}
		if !strings.Contains(v, "unit lines 2–4 · 3 messages · 590 chars · 1,256 chars from the newest") {
			t.Fatalf("v = %q, want it to contain %q", v, "unit lines 2–4 · 3 messages · 590 chars · 1,256 chars from the newest")
		}
		if !strings.Contains(v, "The file does not load") {
			t.Fatalf("v = %q, want it to contain %q", v, "The file does not load")
		}
		if want := uint32(2); hv.Range.Start.Line != want {
			t.Fatalf("hv.Range.Start.Line = %v, want %v", hv.Range.Start.Line, want)
		}

		h.call("textDocument/hover", at(uri, 6, 0), &hv)
		if !strings.Contains(hv.Contents.Value, "**invalid-record** · line 7") {
			t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, "**invalid-record** · line 7")
		}
		if !strings.Contains(hv.Contents.Value, `unknown role "system"`) {
			t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, `unknown role "system"`)
		}
		if !strings.Contains(hv.Contents.Value, "first invalid line") {
			t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, "first invalid line")
		}
		h.call("textDocument/hover", at(uri, 7, 0), &hv)
		if !strings.Contains(hv.Contents.Value, "**invalid-json** · line 8") {
			t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, "**invalid-json** · line 8")
		}
		if !strings.Contains(hv.Contents.Value, "already refuses the file at line 7") {
			t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, "already refuses the file at line 7")
		}
	})

	t.Run("definition", func(t *testing.T) {
		var locs []protocol.Location
		h.call("textDocument/definition", at(uri, 3, col(3, `"call_2"`)+2), &locs)
		requireLen(t, "locs", locs, 1)
		// The call's id on line 1, quotes included.
		start := uint32(col(1, `"call_2"`))
		want := protocol.Location{URI: uri, Range: protocol.Range{
			Start: protocol.Position{Line: 1, Character: start},
			End:   protocol.Position{Line: 1, Character: start + uint32(len(`"call_2"`))},
		}}
		if locs[0] != want {
			t.Fatalf("locs[0] = %+v, want %+v", locs[0], want)
		}
		// The orphan result has no declaration; a position off the id has none.
		h.call("textDocument/definition", at(uri, 10, col(10, `"call_9"`)+1), &locs)
		requireLen(t, "locs", locs, 0)
		h.call("textDocument/definition", at(uri, 3, 0), &locs)
		requireLen(t, "locs", locs, 0)
	})

	t.Run("references", func(t *testing.T) {
		var locs []protocol.Location
		params := at(uri, 1, col(1, `"call_1"`)+3)
		params["context"] = map[string]any{"includeDeclaration": false}
		h.call("textDocument/references", params, &locs)
		requireLen(t, "locs", locs, 1)
		if want := (protocol.Position{Line: 2, Character: uint32(col(2, `"call_1"`))}); locs[0].Range.Start != want {
			t.Fatalf("locs[0].Range.Start = %+v, want %+v", locs[0].Range.Start, want)
		}
		params["context"] = map[string]any{"includeDeclaration": true}
		h.call("textDocument/references", params, &locs)
		requireLen(t, "locs", locs, 2)
		if got, want := startLines(locs), []uint32{1, 2}; !reflect.DeepEqual(got, want) {
			t.Fatalf("startLines(locs) = %v, want %v", got, want)
		}
	})

	t.Run("symbols", func(t *testing.T) {
		var syms []protocol.DocumentSymbol
		h.call("textDocument/documentSymbol", textDoc(uri), &syms)
		names := make([]string, len(syms))
		for i, s := range syms {
			names[i] = s.Name
			if s.Kind != protocol.SymbolKindNamespace {
				t.Fatalf("s.Kind = %v, want %v", s.Kind, protocol.SymbolKindNamespace)
			}
		}
		if want := ([]string{
			"line 1 · 95 chars", "lines 2–4 · 590 chars", "lines 5–6 · 283 chars",
			"lines 9–10 · 234 chars", "line 11 · 79 chars", "line 12 · 70 chars",
		}); !reflect.DeepEqual(names, want) {
			t.Fatalf("names = %+v, want %+v", names, want)
		}
		var kids []string
		for _, c := range syms[1].Children {
			kids = append(kids, c.Name)
		}
		if want := ([]string{"assistant: read_file, run", "tool call_1", "tool call_2 (error)"}); !reflect.DeepEqual(kids, want) {
			t.Fatalf("kids = %+v, want %+v", kids, want)
		}
		if syms[0].Children[0].Name != "user: Fix the failing test in parser.go — it s…" {
			t.Fatalf("syms[0].Children[0].Name = %q, want %q", syms[0].Children[0].Name, "user: Fix the failing test in parser.go — it s…")
		}
		if syms[5].Children[0].Name != "assistant: All tests pass now. ✅" {
			t.Fatalf("syms[5].Children[0].Name = %q, want %q", syms[5].Children[0].Name, "assistant: All tests pass now. ✅")
		}
		if got, want := lineSpan(syms[1].Range), [2]uint32{1, 3}; got != want {
			t.Fatalf("lineSpan(syms[1].Range) = %v, want %v", got, want)
		}
	})

	t.Run("folding", func(t *testing.T) {
		if got, want := foldLines(h, uri), [][2]uint32{{1, 3}, {4, 5}, {8, 9}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("foldLines(h, uri) = %+v, want %+v", got, want)
		}
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
	requireLen(t, "actions", actions, 1)
	a := actions[0]
	if a.Title != "Trim 5 lines above the budget cutoff" {
		t.Fatalf("a.Title = %q, want %q", a.Title, "Trim 5 lines above the budget cutoff")
	}
	if a.Kind != protocol.RefactorRewrite {
		t.Fatalf("a.Kind = %q, want %q", a.Kind, protocol.RefactorRewrite)
	}
	requireLen(t, "a.Edit.DocumentChanges", a.Edit.DocumentChanges, 1)
	dc := a.Edit.DocumentChanges[0]
	if dc.TextDocument.URI != uri {
		t.Fatalf("dc.TextDocument.URI = %q, want %q", dc.TextDocument.URI, uri)
	}
	if dc.TextDocument.Version == nil {
		t.Fatal("dc.TextDocument.Version is nil, want non-nil")
	}
	if want := int32(1); *dc.TextDocument.Version != want {
		t.Fatalf("*dc.TextDocument.Version = %v, want %v", *dc.TextDocument.Version, want)
	}
	if want := ([]protocol.TextEdit{{Range: protocol.Range{End: protocol.Position{Line: 5}}, NewText: ""}}); !reflect.DeepEqual(dc.Edits, want) {
		t.Fatalf("dc.Edits = %+v, want %+v", dc.Edits, want)
	}
	requireLen(t, "a.Diagnostics", a.Diagnostics, 1)
	if !reflect.DeepEqual(a.Diagnostics[0].Code, analysis.CodeBudgetCutoff) {
		t.Fatalf("a.Diagnostics[0].Code = %+v, want %q", a.Diagnostics[0].Code, analysis.CodeBudgetCutoff)
	}

	// Applying the edit leaves exactly what the budget keeps.
	lines := strings.Split(clean, "\n")
	kept := strings.Join(lines[5:], "\n")
	rep := analysis.Analyze([]byte(kept), analysis.Options{Budget: 300})
	if rep.Cutoff.KeptChars != rep.TotalChars {
		t.Fatalf("rep.Cutoff.KeptChars = %v, want %v", rep.Cutoff.KeptChars, rep.TotalChars)
	}

	// Below the cutoff, or with a filter for other kinds: nothing.
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rangeAt(6), "context": map[string]any{"diagnostics": []any{}},
	}, &actions)
	requireLen(t, "actions", actions, 0)
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rangeAt(0), "context": map[string]any{"diagnostics": []any{}, "only": []any{"quickfix"}},
	}, &actions)
	requireLen(t, "actions", actions, 0)
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "range": rangeAt(0), "context": map[string]any{"diagnostics": []any{}, "only": []any{"refactor"}},
	}, &actions)
	requireLen(t, "actions", actions, 1)
}

// TestAstralEdit edits after non-ASCII and astral characters: positions
// are UTF-16 code units.
func TestAstralEdit(t *testing.T) {
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 10000}})
	prefix := `{"role":"user","content":"é🙏`
	text := prefix + `"}` + "\n" + `{"role":"user","content":"ok"}`
	uri := h.open("astral.jsonl", "jsonl", text)
	requireLen(t, "h.client.lastDiagnostics(uri).Diagnostics[:0]", h.client.lastDiagnostics(uri).Diagnostics[:0], 0)

	// Insert "ß🎉" just before the closing quote: UTF-16 column 26+1+2.
	c := utf16Len(prefix)
	if c != 29 {
		t.Fatalf("c = %v, want %v", c, 29)
	}
	h.insert(uri, 2, 0, c, "ß🎉")
	want := prefix + `ß🎉"}` + "\n" + `{"role":"user","content":"ok"}`
	rep := analysis.Analyze([]byte(want), analysis.Options{Budget: 10000})
	if !rep.Loads() {
		t.Fatal("rep.Loads() is false, want true")
	}
	requireDiagnosticsMatch(t, uri, want, rep, h.client.lastDiagnostics(uri).Diagnostics)
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	if got, want := lensTitles(lenses), fmt.Sprintf("0: %s [sessionls.setBudget [%d]]", unitTitle(rep.Units[0]), rep.Units[0].FromNewest); !slices.Contains(got, want) {
		t.Fatalf("lensTitles(lenses) = %+v, want it to contain %q", got, want)
	}
	if want, got := float64(rep.TotalChars), statusOf(h, uri)["totalChars"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`statusOf(h, uri)["totalChars"] = %+v, want %v`, got, want)
	}
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
	eventually(t, func() bool { return len(h.client.shownMessages()) == 1 }, "len(h.client.shownMessages()) == 1")
	if got := h.client.shownMessages()[0].Message; !strings.Contains(got, "never-opened.jsonl") {
		t.Fatalf("h.client.shownMessages()[0].Message = %q, want it to contain %q", got, "never-opened.jsonl")
	}

	n := h.client.publications(uri)
	change(uri, 2, 100, 0, "x") // no line 100
	eventually(t, func() bool { return len(h.client.shownMessages()) == 2 }, "len(h.client.shownMessages()) == 2")
	if got := h.client.shownMessages()[1].Type; got != protocol.MessageTypeError {
		t.Fatalf("h.client.shownMessages()[1].Type = %v, want %v", got, protocol.MessageTypeError)
	}
	change(uri, 3, 0, 0, "garbage") // ignored: the document is out of step
	h.sync()
	if want, got := n+1, h.client.publications(uri); got != want {
		t.Fatalf("one publication, the out-of-sync diagnostic, for the failure: h.client.publications(uri) = %v, want %v", got, want)
	}
	if got := h.client.lastDiagnostics(uri).Diagnostics[0].Code; !reflect.DeepEqual(got, codeOutOfSync) {
		t.Fatalf("h.client.lastDiagnostics(uri).Diagnostics[0].Code = %+v, want %q", got, codeOutOfSync)
	}
	if want, got := float64(719), statusOf(h, uri)["totalChars"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`the last good text is kept: statusOf(h, uri)["totalChars"] = %+v, want %v`, got, want)
	}
	if got := len(h.client.shownMessages()); got != 2 {
		t.Fatalf("one message per failure, not per ignored edit: len(h.client.shownMessages()) = %d, want %d", got, 2)
	}

	n = h.client.publications(uri)
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 4},
		"contentChanges": []any{map[string]any{"text": "{"}},
	})
	eventually(t, func() bool { return h.client.publications(uri) > n }, "h.client.publications(uri) > n")
	pub := h.client.lastDiagnostics(uri)
	if want := uint32(4); pub.Version != want {
		t.Fatalf("pub.Version = %v, want %v", pub.Version, want)
	}
	requireLen(t, "pub.Diagnostics", pub.Diagnostics, 1)
	if !reflect.DeepEqual(pub.Diagnostics[0].Code, analysis.CodeTruncatedRecord) {
		t.Fatalf("a lone { is a record cut short: pub.Diagnostics[0].Code = %+v, want %q", pub.Diagnostics[0].Code, analysis.CodeTruncatedRecord)
	}
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
		if got := h.client.publications(docURI(name)) > 0; got != want {
			t.Fatalf("%v: h.client.publications(docURI(name)) > 0 = %v, want %v", name, got, want)
		}
	}
	// Narrowing the globs drops a.session (its diagnostics are cleared).
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"files": []any{"logs/*.txt"}}}})
	h.sync()
	pub := h.client.lastDiagnostics(docURI("a.session"))
	requireLen(t, "pub.Diagnostics", pub.Diagnostics, 0)
	if err := h.callErr("sessionls/status", map[string]any{"uri": docURI("a.session")}, nil); err == nil {
		t.Fatal(`h.callErr("sessionls/status", map[string]any{"uri": docURI("a.session")}, nil) = nil, want an error`)
	}
	if got := h.client.publications(docURI("logs/b.txt")); got != 2 {
		t.Fatalf(`still analysed, published again: h.client.publications(docURI("logs/b.txt")) = %v, want %v`, got, 2)
	}
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
	if want, got := ([]uint32{1}), refs(0, idCol); !reflect.DeepEqual(got, want) {
		t.Fatalf("refs(0, idCol) = %+v, want %+v", got, want)
	}
	if want, got := ([]uint32{3, 4}), refs(2, idCol); !reflect.DeepEqual(got, want) {
		t.Fatalf("refs(2, idCol) = %+v, want %+v", got, want)
	}
	if want, got := ([]uint32{3, 4}), refs(4, resCol); !reflect.DeepEqual(got, want) {
		t.Fatalf("from a result: the results of its call: refs(4, resCol) = %+v, want %+v", got, want)
	}

	for line, want := range map[int]uint32{1: 0, 3: 2, 4: 2} {
		var locs []protocol.Location
		h.call("textDocument/definition", at(uri, line, resCol), &locs)
		requireLen(t, "locs", locs, 1)
		if locs[0].Range.Start.Line != want {
			t.Fatalf("definition from line %d: locs[0].Range.Start.Line = %v, want %v", line, locs[0].Range.Start.Line, want)
		}
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
			if rep.Cutoff == nil {
				t.Fatal("rep.Cutoff is nil, want non-nil")
			}
			if tt.message == "" && rep.Cutoff.FirstKeptLine > 1 {
				tt.last = rep.Cutoff.FirstKeptLine - 1
				tt.message = fmt.Sprintf("trimmed by budget %s: the model will not see %s (%s)", textfmt.Thousands(tt.budget),
					textfmt.LineRange(1, tt.last), textfmt.Plural(len(rep.Messages)-rep.Cutoff.KeptMessages, "message", "messages"))
			}
			if want := rep.Cutoff.FirstKeptLine - 1; tt.last != want {
				t.Fatalf("tt.last = %v, want %v", tt.last, want)
			}

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
				if len(faded) != 0 {
					t.Fatalf("no line is trimmed, nothing is faded: faded = %+v, want empty", faded)
				}
				return
			}
			requireLen(t, "faded", faded, 1)
			d := faded[0]
			lines := strings.Split(text, "\n")
			lastWidth := utf16Len(strings.TrimSuffix(lines[tt.last-1], "\r"))
			if want := (protocol.Range{End: protocol.Position{Line: uint32(tt.last - 1), Character: uint32(lastWidth)}}); !reflect.DeepEqual(d.Range, want) {
				t.Fatalf("from line 1 to the end of the line before the first kept line: d.Range = %+v, want %+v", d.Range, want)
			}
			if d.Severity != protocol.DiagnosticSeverityHint {
				t.Fatalf("d.Severity = %v, want %v", d.Severity, protocol.DiagnosticSeverityHint)
			}
			if want := ([]protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary}); !reflect.DeepEqual(d.Tags, want) {
				t.Fatalf("d.Tags = %+v, want %+v", d.Tags, want)
			}
			if d.Source != "sessionls" {
				t.Fatalf("d.Source = %q, want %q", d.Source, "sessionls")
			}
			if d.Message != tt.message {
				t.Fatalf("d.Message = %q, want %q", d.Message, tt.message)
			}

			// The trim action resolves the faded diagnostic.
			var actions []protocol.CodeAction
			p := map[string]any{"line": 0, "character": 0}
			h.call("textDocument/codeAction", map[string]any{
				"textDocument": map[string]any{"uri": uri}, "range": map[string]any{"start": p, "end": p}, "context": map[string]any{"diagnostics": []any{}},
			}, &actions)
			requireLen(t, "actions", actions, 1)
			if want := ([]protocol.Diagnostic{d}); !reflect.DeepEqual(actions[0].Diagnostics, want) {
				t.Fatalf("actions[0].Diagnostics = %+v, want %+v", actions[0].Diagnostics, want)
			}

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
				if want := (map[bool]int{true: 1, false: 0}[l < tt.last]); trims != want {
					t.Fatalf("trim actions on 0-based line %d: trims = %v, want %v", l, trims, want)
				}
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

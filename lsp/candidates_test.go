package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// ambiguousText is an assistant record and its two tool results, each
// over 512 KiB and ASCII, laid out as node's appendFile leaves two such
// appends in flight at once: 524,288-byte writes, the second append's
// first write between the first's two. The pieces pair validly either way.
func ambiguousText() string {
	const asst = `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}},{"id":"b","name":"ls","input":{}}]}`
	res := func(id, ch string) string {
		return `{"role":"tool","content":"` + strings.Repeat(ch, 700000) + `","toolCallId":"` + id + `","isError":false}` + "\n"
	}
	a, b := res("a", "a"), res("b", "b")
	c := analysis.ChunkSize
	return asst + "\n" + a[:c] + b[:c] + a[c:] + b[c:]
}

// TestCandidateQuickFixes: on an ambiguous run's diagnostic, each
// candidate is its own quick fix (not preferred, titles distinct), whose
// edit makes exactly that candidate; none is in source.fixAll.
func TestCandidateQuickFixes(t *testing.T) {
	text := ambiguousText()
	_, ambs := fix.Plan([]byte(text), analysis.Analyze([]byte(text), analysis.Options{}).Findings)
	if len(ambs) != 1 || len(ambs[0].Candidates) != 2 {
		t.Fatalf("the text has %d ambiguities, want 1 with 2 candidates", len(ambs))
	}
	want := map[string]string{} // title → the text the candidate makes
	for _, c := range ambs[0].Candidates {
		want[c.Title] = string(fix.Apply([]byte(text), []fix.Fix{c}))
	}
	if len(want) != 2 {
		t.Fatalf("the candidates' titles are not distinct: %q", ambs[0].Candidates[0].Title)
	}

	h := startHarness(t, harnessOptions{})
	d := &fixDoc{h: h, uri: h.open("f.jsonl", "jsonl", text), text: text, version: 1}
	var diag *protocol.Diagnostic
	for _, dg := range d.diagnostics() {
		if dg.Code == analysis.CodeInterleavedRecord && dg.Range.Start.Line == 2 {
			diag = &dg
		}
	}
	if diag == nil {
		t.Fatal("no interleaved-record diagnostic on line 3")
	}
	// With the diagnostic in the context (as a client sends it), and
	// without (VS Code's Ctrl+. sends the range only).
	for _, diags := range [][]protocol.Diagnostic{{*diag}, nil} {
		got := map[string]bool{}
		for _, a := range d.actions(diag.Range, diags, protocol.QuickFix) {
			w, ok := want[a.Title]
			if !ok {
				continue
			}
			if got[a.Title] {
				t.Errorf("candidate %q offered twice", a.Title)
			}
			got[a.Title] = true
			if a.Kind != protocol.QuickFix || a.IsPreferred {
				t.Errorf("candidate %q: kind %q, preferred %v; want quickfix, not preferred", a.Title, a.Kind, a.IsPreferred)
			}
			if !strings.Contains(a.Title, "unsafe") {
				t.Errorf("candidate %q does not say it is unsafe", a.Title)
			}
			if len(a.Diagnostics) != 1 || a.Diagnostics[0].Code != analysis.CodeInterleavedRecord {
				t.Errorf("candidate %q is linked to %+v", a.Title, a.Diagnostics)
			}
			if out := applyWorkspaceEdit(t, text, d.uri, d.version, a.Edit); out != w {
				t.Errorf("candidate %q makes %d bytes, not the candidate's %d", a.Title, len(out), len(w))
			}
		}
		if len(got) != len(want) {
			t.Errorf("context %d diagnostics: %d of %d candidates offered", len(diags), len(got), len(want))
		}
	}
	for _, a := range d.actions(diag.Range, []protocol.Diagnostic{*diag}, codeActionFixAll) {
		if _, ok := want[a.Title]; ok || a.Kind != codeActionFixAll {
			t.Errorf("fix-all offers %q (%s)", a.Title, a.Kind)
		}
		if a.Edit != nil && applyWorkspaceEdit(t, text, d.uri, d.version, a.Edit) != string(fix.FixAll([]byte(text), analysis.Options{}, false).Data) {
			t.Error("fix-all does more than the safe fixes")
		}
	}
}

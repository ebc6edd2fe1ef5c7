package lsp

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// applyWorkspaceEdit applies the edits a workspace edit makes to uri (a
// versioned one must name version) to text, as a client does: positions
// are resolved in the text before any edit.
func applyWorkspaceEdit(t *testing.T, text string, uri protocol.DocumentURI, version int32, we *protocol.WorkspaceEdit) string {
	t.Helper()
	if we == nil {
		t.Fatal("we is nil, want non-nil")
	}
	var edits []protocol.TextEdit
	if len(we.DocumentChanges) > 0 {
		requireLen(t, "we.DocumentChanges", we.DocumentChanges, 1)
		dc := we.DocumentChanges[0]
		if dc.TextDocument.URI != uri {
			t.Fatalf("dc.TextDocument.URI = %q, want %q", dc.TextDocument.URI, uri)
		}
		if dc.TextDocument.Version == nil {
			t.Fatal("a versioned edit: dc.TextDocument.Version is nil, want non-nil")
		}
		if *dc.TextDocument.Version != version {
			t.Fatalf("*dc.TextDocument.Version = %v, want %v", *dc.TextDocument.Version, version)
		}
		edits = dc.Edits
	} else {
		edits = we.Changes[uri]
	}
	type span struct {
		start, end int
		text       string
	}
	var spans []span
	for _, e := range edits {
		s, ok1 := refOffset(text, e.Range.Start)
		en, ok2 := refOffset(text, e.Range.End)
		if !(ok1 && ok2 && s <= en) {
			t.Fatalf("edit range %+v outside the text: ok1 && ok2 && s <= en is false, want true", e.Range)
		}
		spans = append(spans, span{s, en, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	prev := 0
	for _, s := range spans {
		if s.start < prev {
			t.Fatalf("overlapping edits: s.start = %v, want >= %v", s.start, prev)
		}
		b.WriteString(text[prev:s.start])
		b.WriteString(s.text)
		prev = s.end
	}
	b.WriteString(text[prev:])
	return b.String()
}

// fixDoc is an open document the test edits as a client would.
type fixDoc struct {
	h       *harness
	uri     protocol.DocumentURI
	text    string
	version int32
}

// change replaces the whole text and waits for the new diagnostics.
func (d *fixDoc) change(text string) {
	d.h.t.Helper()
	n := d.h.client.publications(d.uri)
	d.version++
	d.text = text
	d.h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": d.uri, "version": d.version},
		"contentChanges": []any{map[string]any{"text": text}},
	})
	eventually(d.h.t, func() bool { return d.h.client.publications(d.uri) > n }, "d.h.client.publications(d.uri) > n")
}

func (d *fixDoc) diagnostics() []protocol.Diagnostic {
	p := d.h.client.lastDiagnostics(d.uri)
	if want, got := int32(d.version), int32(p.Version); got != want {
		d.h.t.Fatalf("int32(p.Version) = %v, want %v", got, want)
	}
	return p.Diagnostics
}

// fixOf returns the "fix" in a diagnostic's data, "" when there is none.
func fixOf(t *testing.T, d protocol.Diagnostic) diagnosticData {
	t.Helper()
	var dd diagnosticData
	if d.Data == nil {
		return dd
	}
	b, err := json.Marshal(d.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dd); err != nil {
		t.Fatalf("json.Unmarshal(b, &dd): %v", err)
	}
	return dd
}

func (d *fixDoc) actions(rng protocol.Range, diags []protocol.Diagnostic, only ...protocol.CodeActionKind) []protocol.CodeAction {
	d.h.t.Helper()
	ctx := map[string]any{"diagnostics": diags}
	if len(only) > 0 {
		ctx["only"] = only
	}
	var out []protocol.CodeAction
	d.h.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": d.uri}, "range": rng, "context": ctx}, &out)
	return out
}

// fixSessions are texts with every kind of fixable finding, alone and
// together.
func fixSessions(t *testing.T) map[string]string {
	t.Helper()
	const u = `{"role":"user","content":"x"}`
	const a = `{"role":"assistant","content":"c","toolCalls":[{"id":"t1","name":"ls","input":{}}]}`
	return map[string]string{
		"demo":       readSession(t, "demo.jsonl"),
		"crlf":       readSession(t, "crlf.jsonl"),
		"badrecords": readSession(t, "badrecords.jsonl"),
		"units":      readSession(t, "units.jsonl"),
		"mixed": "\ufeff" + u + "\r\n \t\r\n" + u + ` ` + a + "\n" + `{"role":"tool","content":"é🙏","toolCallId":"t1","isError":false,}` + "\n" +
			`{"role":"user","content":"trunc` + u + "\n" + `{"role":"tool","content":"r","toolCallId":"t1"}` + "\n" +
			`{"role":"assistant","content":"🙏 no calls"}` + "\n" + `{"role":"tool","content":"o","toolCallId":"nobody","isError":true}` + "\n" +
			`{"role":"user","content":"a` + "\t" + `b"}` + "\n" + `{"role":"user","con`,
		"one safe": u + "\n" + `{"role":"user","content":"x",}` + "\n",
		// A lone '\r' is JSON whitespace for the runtime and a line break for
		// the client: the edits must land on the client's lines.
		"lone cr": `{"role":"user",` + "\r" + `"content":"x"}` + "\n" + " \r \n" + `{"role":"user","content":"y",}` + "\n" +
			u + `{"role":"user",` + "\r" + `"content":"w"}` + "\n" + `{"role":"tool","content":"o","toolCallId":"nobody",` + "\r" + `"isError":true}`,
	}
}

// TestQuickFixesMatchCheckFix: fixing a document one quick fix at a time
// (the first fixable diagnostic each time, as a person going down the file
// would) ends with exactly the bytes `check --fix` writes (fix.FixAll, which
// the CLI tests pin to --fix's output), safe fixes only or all of them; each
// quick fix is linked to its diagnostic by data, versioned, preferred when
// safe, and the diagnostics are republished after each edit.
func TestQuickFixesMatchCheckFix(t *testing.T) {
	for name, text := range fixSessions(t) {
		for _, unsafe := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/safe", true: "/unsafe"}[unsafe], func(t *testing.T) {
				h := startHarness(t, harnessOptions{})
				d := &fixDoc{h: h, uri: h.open("f.jsonl", "jsonl", text), text: text, version: 1}
				applied := 0
				for step := 0; ; step++ {
					if step >= 100 {
						t.Fatalf("the quick fixes do not converge: step = %v, want < %v", step, 100)
					}
					var next *protocol.Diagnostic
					for _, dg := range d.diagnostics() {
						dd := fixOf(t, dg)
						if dd.Fix == "" || (dd.Fix == "unsafe" && !unsafe) {
							continue
						}
						if dd.Version != d.version {
							t.Fatalf("data names the version: dd.Version = %v, want %v", dd.Version, d.version)
						}
						next = &dg
						break
					}
					if next == nil {
						break
					}
					var acts []protocol.CodeAction
					for _, a := range d.actions(next.Range, []protocol.Diagnostic{*next}, protocol.QuickFix) {
						// Fix-all rides along in the menu (fixallquick.go);
						// this test goes one finding at a time.
						if !strings.HasPrefix(a.Title, "Fix all safe sessionls findings") {
							acts = append(acts, a)
						}
					}
					if len(acts) != 1 {
						t.Fatalf("one quick fix for %+v: len(acts) = %d, want %d: %+v", next, len(acts), 1, acts)
					}
					a := acts[0]
					if a.Kind != protocol.QuickFix {
						t.Fatalf("a.Kind = %q, want %q", a.Kind, protocol.QuickFix)
					}
					if want := fixOf(t, *next).Fix == "safe"; a.IsPreferred != want {
						t.Fatalf("preferred exactly when safe: %q: a.IsPreferred = %v, want %v", a.Title, a.IsPreferred, want)
					}
					requireLen(t, "a.Diagnostics", a.Diagnostics, 1)
					if !reflect.DeepEqual(a.Diagnostics[0].Code, next.Code) {
						t.Fatalf("a.Diagnostics[0].Code = %+v, want %+v", a.Diagnostics[0].Code, next.Code)
					}
					if a.Title == "" {
						t.Fatal("a.Title is empty, want some")
					}
					d.change(applyWorkspaceEdit(t, d.text, d.uri, d.version, a.Edit))
					applied++
				}
				want := fix.FixAll([]byte(text), analysis.Options{}, unsafe)
				if expected := string(want.Data); d.text != expected {
					t.Fatalf("after %d quick fixes: d.text = %q, want %q", applied, d.text, expected)
				}
				if applied != want.Fixed {
					t.Fatalf("applied = %v, want %v", applied, want.Fixed)
				}
				// The diagnostics are those of the fixed text.
				if got, findings := len(d.diagnostics()), len(want.Report.Findings); got != findings {
					t.Fatalf("len(d.diagnostics()) = %d, want %d", got, findings)
				}
			})
		}
	}
}

// TestFixAllMatchesCheckFix: source.fixAll.sessionls makes, in one
// versioned edit, exactly what `check --fix` writes; afterwards the safe
// findings are gone and lenses answer for the new text.
func TestFixAllMatchesCheckFix(t *testing.T) {
	for name, text := range fixSessions(t) {
		for _, versioned := range []bool{true, false} {
			t.Run(name+map[bool]string{true: "/versioned", false: "/changes"}[versioned], func(t *testing.T) {
				opts := harnessOptions{}
				if !versioned {
					opts.capabilities = map[string]any{"workspace": map[string]any{"configuration": true}}
				}
				h := startHarness(t, opts)
				d := &fixDoc{h: h, uri: h.open("f.jsonl", "jsonl", text), text: text, version: 1}
				want := fix.FixAll([]byte(text), analysis.Options{}, false)
				acts := d.actions(protocol.Range{}, nil, codeActionFixAll)
				if want.Fixed == 0 {
					requireLen(t, "acts", acts, 0)
					return
				}
				requireLen(t, "acts", acts, 1)
				if acts[0].Kind != codeActionFixAll {
					t.Fatalf("acts[0].Kind = %q, want %q", acts[0].Kind, codeActionFixAll)
				}
				if versioned {
					if len(acts[0].Edit.DocumentChanges) == 0 {
						t.Fatal("acts[0].Edit.DocumentChanges is empty, want some")
					}
				} else {
					requireLen(t, "acts[0].Edit.DocumentChanges", acts[0].Edit.DocumentChanges, 0)
				}
				got := applyWorkspaceEdit(t, d.text, d.uri, d.version, acts[0].Edit)
				if expected := string(want.Data); got != expected {
					t.Fatalf("got %q, want %q", got, expected)
				}

				// The generic kinds admit it too (what codeActionsOnSave
				// with "source.fixAll" and the Source Action menu ask for),
				// a request without kinds (the light bulb's) does not.
				if got := len(d.actions(protocol.Range{}, nil, "source.fixAll")); got != 1 {
					t.Fatalf(`len(d.actions(protocol.Range{}, nil, "source.fixAll")) = %d, want %d`, got, 1)
				}
				if got := len(d.actions(protocol.Range{}, nil, protocol.Source)); got != 1 {
					t.Fatalf("len(d.actions(protocol.Range{}, nil, protocol.Source)) = %d, want %d", got, 1)
				}
				for _, a := range d.actions(protocol.Range{}, nil) {
					if a.Kind == codeActionFixAll {
						t.Fatalf("a.Kind = %q, want anything else", a.Kind)
					}
				}

				d.change(got)
				for _, dg := range d.diagnostics() {
					if got := fixOf(t, dg).Fix; got == "safe" {
						t.Fatalf("a safe fix left after fix-all: %+v: fixOf(t, dg).Fix = %q, want anything else", dg, got)
					}
				}
				if got, findings := len(d.diagnostics()), len(want.Report.Findings); got != findings {
					t.Fatalf("len(d.diagnostics()) = %d, want %d", got, findings)
				}
				if got := d.actions(protocol.Range{}, nil, codeActionFixAll); len(got) != 0 {
					t.Fatalf("nothing left to fix: d.actions(protocol.Range{}, nil, codeActionFixAll) = %+v, want empty", got)
				}
				var lenses []protocol.CodeLens
				h.call("textDocument/codeLens", textDoc(d.uri), &lenses)
				if len(lenses) == 0 {
					t.Fatal("lenses is empty, want some")
				}
			})
		}
	}
}

func TestQuickFixLinkage(t *testing.T) {
	text := `{"role":"user","content":"x",}` + "\n" + `{"role":"system","content":"s"}` + "\n" + `{"role":"tool","content":"o","toolCallId":"n","isError":false}`
	h := startHarness(t, harnessOptions{})
	d := &fixDoc{h: h, uri: h.open("f.jsonl", "jsonl", text), text: text, version: 1}
	diags := d.diagnostics()
	requireLen(t, "diags", diags, 3)
	if want, got := (diagnosticData{Fix: "safe", Version: 1}), fixOf(t, diags[0]); !reflect.DeepEqual(got, want) {
		t.Fatalf("fixOf(t, diags[0]) = %+v, want %+v", got, want)
	}
	if diags[1].Data != nil {
		t.Fatalf("no fix, no data: diags[1].Data = %+v, want nil", diags[1].Data)
	}
	if want, got := (diagnosticData{Fix: "unsafe", Version: 1}), fixOf(t, diags[2]); !reflect.DeepEqual(got, want) {
		t.Fatalf("fixOf(t, diags[2]) = %+v, want %+v", got, want)
	}

	// Without context diagnostics: the fixable findings on the lines.
	acts := d.actions(protocol.Range{End: protocol.Position{Line: 2}}, nil, protocol.QuickFix)
	requireLen(t, "acts", acts, 2)
	if acts[0].Title != "Remove the trailing comma" {
		t.Fatalf("acts[0].Title = %q, want %q", acts[0].Title, "Remove the trailing comma")
	}
	if !acts[0].IsPreferred {
		t.Fatal("acts[0].IsPreferred is false, want true")
	}
	if acts[1].Title != "Delete the orphan tool result (its content is lost)" {
		t.Fatalf("acts[1].Title = %q, want %q", acts[1].Title, "Delete the orphan tool result (its content is lost)")
	}
	if acts[1].IsPreferred {
		t.Fatal("acts[1].IsPreferred is true, want false")
	}
	// The orphan is the last line, without a line break: only its text goes.
	if want, got := `{"role":"user","content":"x",}`+"\n"+`{"role":"system","content":"s"}`+"\n", applyWorkspaceEdit(t, d.text, d.uri, 1, acts[1].Edit); got != want {
		t.Fatalf("applyWorkspaceEdit(t, d.text, d.uri, 1, acts[1].Edit) = %q, want %q", got, want)
	}

	// A diagnostic of an older version is not fixed: its line may have moved.
	d.change("\n" + text)
	stale := diags[0]
	requireLen(t, "d.actions(stale.Range, []protocol.Diagnostic{stale}, protocol.QuickFix)", d.actions(stale.Range, []protocol.Diagnostic{stale}, protocol.QuickFix), 0)
	// Nor is one of another source or without data.
	other := d.diagnostics()[0]
	other.Source = "other"
	requireLen(t, "d.actions(other.Range, []protocol.Diagnostic{other}, protocol.QuickFix)", d.actions(other.Range, []protocol.Diagnostic{other}, protocol.QuickFix), 0)

	// The capabilities name the kinds.
	var res struct {
		Capabilities struct {
			CodeActionProvider protocol.CodeActionOptions `json:"codeActionProvider"`
		} `json:"capabilities"`
	}
	h2 := startHarness(t, harnessOptions{noInitialize: true})
	h2.call("initialize", map[string]any{"processId": nil, "rootUri": "file:///work", "capabilities": defaultCapabilities()}, &res)
	kinds := res.Capabilities.CodeActionProvider.CodeActionKinds
	if !slices.Contains(kinds, protocol.QuickFix) {
		t.Fatalf("%v: slices.Contains(kinds, protocol.QuickFix) is false, want true", kinds)
	}
	if !slices.Contains(kinds, codeActionFixAll) {
		t.Fatalf("%v: slices.Contains(kinds, codeActionFixAll) is false, want true", kinds)
	}
	if !slices.Contains(kinds, protocol.RefactorRewrite) {
		t.Fatalf("%v: slices.Contains(kinds, protocol.RefactorRewrite) is false, want true", kinds)
	}
}

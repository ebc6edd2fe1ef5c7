package lsp

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// applyWorkspaceEdit applies the edits a workspace edit makes to uri (a
// versioned one must name version) to text, as a client does: positions
// are resolved in the text before any edit.
func applyWorkspaceEdit(t *testing.T, text string, uri protocol.DocumentURI, version int32, we *protocol.WorkspaceEdit) string {
	t.Helper()
	require.NotNil(t, we)
	var edits []protocol.TextEdit
	if len(we.DocumentChanges) > 0 {
		require.Len(t, we.DocumentChanges, 1)
		dc := we.DocumentChanges[0]
		require.Equal(t, uri, dc.TextDocument.URI)
		require.NotNil(t, dc.TextDocument.Version, "a versioned edit")
		require.Equal(t, version, *dc.TextDocument.Version)
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
		require.True(t, ok1 && ok2 && s <= en, "edit range %+v outside the text", e.Range)
		spans = append(spans, span{s, en, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	prev := 0
	for _, s := range spans {
		require.GreaterOrEqual(t, s.start, prev, "overlapping edits")
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
	require.Eventually(d.h.t, func() bool { return d.h.client.publications(d.uri) > n }, wait, time.Millisecond)
}

func (d *fixDoc) diagnostics() []protocol.Diagnostic {
	p := d.h.client.lastDiagnostics(d.uri)
	require.Equal(d.h.t, int32(d.version), int32(p.Version))
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
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &dd))
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
					require.Less(t, step, 100, "the quick fixes do not converge")
					var next *protocol.Diagnostic
					for _, dg := range d.diagnostics() {
						dd := fixOf(t, dg)
						if dd.Fix == "" || (dd.Fix == "unsafe" && !unsafe) {
							continue
						}
						require.Equal(t, d.version, dd.Version, "data names the version")
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
					require.Len(t, acts, 1, "one quick fix for %+v", next)
					a := acts[0]
					require.Equal(t, protocol.QuickFix, a.Kind)
					require.Equal(t, fixOf(t, *next).Fix == "safe", a.IsPreferred, "preferred exactly when safe: %q", a.Title)
					require.Len(t, a.Diagnostics, 1)
					require.Equal(t, next.Code, a.Diagnostics[0].Code)
					require.NotEmpty(t, a.Title)
					d.change(applyWorkspaceEdit(t, d.text, d.uri, d.version, a.Edit))
					applied++
				}
				want := fix.FixAll([]byte(text), analysis.Options{}, unsafe)
				require.Equal(t, string(want.Data), d.text, "after %d quick fixes", applied)
				require.Equal(t, want.Fixed, applied)
				// The diagnostics are those of the fixed text.
				require.Len(t, d.diagnostics(), len(want.Report.Findings))
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
					require.Empty(t, acts)
					return
				}
				require.Len(t, acts, 1)
				require.Equal(t, codeActionFixAll, acts[0].Kind)
				if versioned {
					require.NotEmpty(t, acts[0].Edit.DocumentChanges)
				} else {
					require.Empty(t, acts[0].Edit.DocumentChanges)
				}
				got := applyWorkspaceEdit(t, d.text, d.uri, d.version, acts[0].Edit)
				require.Equal(t, string(want.Data), got)

				// The generic kinds admit it too (what codeActionsOnSave
				// with "source.fixAll" and the Source Action menu ask for),
				// a request without kinds (the light bulb's) does not.
				require.Len(t, d.actions(protocol.Range{}, nil, "source.fixAll"), 1)
				require.Len(t, d.actions(protocol.Range{}, nil, protocol.Source), 1)
				for _, a := range d.actions(protocol.Range{}, nil) {
					require.NotEqual(t, codeActionFixAll, a.Kind)
				}

				d.change(got)
				for _, dg := range d.diagnostics() {
					require.NotEqual(t, "safe", fixOf(t, dg).Fix, "a safe fix left after fix-all: %+v", dg)
				}
				require.Len(t, d.diagnostics(), len(want.Report.Findings))
				require.Empty(t, d.actions(protocol.Range{}, nil, codeActionFixAll), "nothing left to fix")
				var lenses []protocol.CodeLens
				h.call("textDocument/codeLens", textDoc(d.uri), &lenses)
				require.NotEmpty(t, lenses)
			})
		}
	}
}

func TestQuickFixLinkage(t *testing.T) {
	text := `{"role":"user","content":"x",}` + "\n" + `{"role":"system","content":"s"}` + "\n" + `{"role":"tool","content":"o","toolCallId":"n","isError":false}`
	h := startHarness(t, harnessOptions{})
	d := &fixDoc{h: h, uri: h.open("f.jsonl", "jsonl", text), text: text, version: 1}
	diags := d.diagnostics()
	require.Len(t, diags, 3)
	require.Equal(t, diagnosticData{Fix: "safe", Version: 1}, fixOf(t, diags[0]))
	require.Nil(t, diags[1].Data, "no fix, no data")
	require.Equal(t, diagnosticData{Fix: "unsafe", Version: 1}, fixOf(t, diags[2]))

	// Without context diagnostics: the fixable findings on the lines.
	acts := d.actions(protocol.Range{End: protocol.Position{Line: 2}}, nil, protocol.QuickFix)
	require.Len(t, acts, 2)
	require.Equal(t, "Remove the trailing comma", acts[0].Title)
	require.True(t, acts[0].IsPreferred)
	require.Equal(t, "Delete the orphan tool result (its content is lost)", acts[1].Title)
	require.False(t, acts[1].IsPreferred)
	// The orphan is the last line, without a line break: only its text goes.
	require.Equal(t, `{"role":"user","content":"x",}`+"\n"+`{"role":"system","content":"s"}`+"\n",
		applyWorkspaceEdit(t, d.text, d.uri, 1, acts[1].Edit))

	// A diagnostic of an older version is not fixed: its line may have moved.
	d.change("\n" + text)
	stale := diags[0]
	require.Empty(t, d.actions(stale.Range, []protocol.Diagnostic{stale}, protocol.QuickFix))
	// Nor is one of another source or without data.
	other := d.diagnostics()[0]
	other.Source = "other"
	require.Empty(t, d.actions(other.Range, []protocol.Diagnostic{other}, protocol.QuickFix))

	// The capabilities name the kinds.
	var res struct {
		Capabilities struct {
			CodeActionProvider protocol.CodeActionOptions `json:"codeActionProvider"`
		} `json:"capabilities"`
	}
	h2 := startHarness(t, harnessOptions{noInitialize: true})
	h2.call("initialize", map[string]any{"processId": nil, "rootUri": "file:///work", "capabilities": defaultCapabilities()}, &res)
	kinds := res.Capabilities.CodeActionProvider.CodeActionKinds
	require.True(t, slices.Contains(kinds, protocol.QuickFix), "%v", kinds)
	require.True(t, slices.Contains(kinds, codeActionFixAll), "%v", kinds)
	require.True(t, slices.Contains(kinds, protocol.RefactorRewrite), "%v", kinds)
}

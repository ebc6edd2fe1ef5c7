package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/dialect/dialectfake"
	"github.com/sessionls/sessionls/analysis/dialect/dialecttest"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// newFakeDialect stands for claude-code and codex until they land: it
// claims the records that have a "fake" key and reads them as the engine
// does (the seed rules ignore the key), counting what the server asks of
// it, so a test sees a non-seed document go through its Dialect: Analyze
// on the whole text, Plan, FixAll, Sniff.
func newFakeDialect() dialectfake.Counting { return dialectfake.New([]byte(`"fake":`)) }

// fakeText is a fake document: its first record claims it, its second
// line has a trailing comma (a safe fix), its third an orphan tool result
// (an unsafe fix).
const fakeText = `{"role":"user","content":"a","fake":1}` + "\n" +
	`{"role":"user","content":"b",}` + "\n" +
	`{"role":"tool","toolCallId":"nope","content":"c"}` + "\n"

func change(h *harness, uri protocol.DocumentURI, version int, line, char uint32, text string) {
	h.t.Helper()
	pos := map[string]any{"line": line, "character": char}
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": text}},
	})
}

// TestDialectDocument: a document another dialect claims is analysed by
// it, whole; its diagnostics, hover, quick fixes and fix-all come from
// that dialect's report, plan and repair; status names it and why.
func TestDialectDocument(t *testing.T) {
	fk := newFakeDialect()
	h := startHarness(t, harnessOptions{dialects: []dialect.Dialect{fk, dialect.Seed{}}})
	uri := h.open("fake.jsonl", "jsonl", fakeText)

	st := statusOf(h, uri)
	if !reflect.DeepEqual(st["dialect"], "fake") {
		t.Fatalf(`st["dialect"] = %+v, want %q`, st["dialect"], "fake")
	}
	if !reflect.DeepEqual(st["dialectWhy"], "auto (default), detected: line 1, the first line JSON.parse accepts, is a fake record") {
		t.Fatalf(`st["dialectWhy"] = %+v, want %q`, st["dialectWhy"], "auto (default), detected: line 1, the first line JSON.parse accepts, is a fake record")
	}
	if want, got := int64(1), fk.Analyses.Load(); got != want {
		t.Fatalf("one analysis of the whole text on open: fk.Analyses.Load() = %v, want %v", got, want)
	}
	if want, got := int64(1), fk.Plans.Load(); got != want {
		t.Fatalf("its fixes planned with it: fk.Plans.Load() = %v, want %v", got, want)
	}
	pub := h.client.lastDiagnostics(uri)
	requireDiagnosticsMatch(t, uri, fakeText, analysis.Analyze([]byte(fakeText), analysis.Options{}), pub.Diagnostics)
	for _, d := range pub.Diagnostics {
		if d.Data == nil {
			t.Fatalf("%s on line %d: its fix is marked: d.Data is nil, want non-nil", d.Code, d.Range.Start.Line)
		}
	}

	// A quick fix on line 2, from the dialect's plan.
	var acts []protocol.CodeAction
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1}},
		"context":      map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}},
	}, &acts)
	requireLen(t, "acts", acts, 1)
	if !acts[0].IsPreferred {
		t.Fatal("a safe fix: acts[0].IsPreferred is false, want true")
	}
	edits := acts[0].Edit.DocumentChanges[0].Edits
	if want := ([]protocol.TextEdit{{Range: protocol.Range{
		Start: protocol.Position{Line: 1, Character: 28}, End: protocol.Position{Line: 1, Character: 29}}}}); !reflect.DeepEqual(edits, want) {
		t.Fatalf("edits = %+v, want %+v", edits, want)
	}

	// Fix-all, by the dialect's FixAll.
	fixAlls := fk.FixAlls.Load()
	h.call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        protocol.Range{},
		"context":      map[string]any{"diagnostics": []any{}, "only": []string{string(codeActionFixAll)}},
	}, &acts)
	requireLen(t, "acts", acts, 1)
	if acts[0].Title != "Fix all safe sessionls findings (1 fix)" {
		t.Fatalf("acts[0].Title = %q, want %q", acts[0].Title, "Fix all safe sessionls findings (1 fix)")
	}
	if want, got := fixAlls+1, fk.FixAlls.Load(); got != want {
		t.Fatalf("fk.FixAlls.Load() = %v, want %v", got, want)
	}

	// Hover on a message: the model's message, from the dialect's report.
	var hv protocol.Hover
	h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": protocol.Position{Line: 0}}, &hv)
	if !strings.Contains(hv.Contents.Value, "**user** message · line 1") {
		t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, "**user** message · line 1")
	}
	h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": protocol.Position{Line: 1}}, &hv)
	if !strings.Contains(hv.Contents.Value, "**invalid-json** · line 2") {
		t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, "**invalid-json** · line 2")
	}

	// Requests reuse the report; the hover of a message's tokens makes one
	// more analysis, with a token counter, kept for the next hover.
	if want, got := int64(2), fk.Analyses.Load(); got != want {
		t.Fatalf("requests reuse the report: fk.Analyses.Load() = %v, want %v", got, want)
	}
	h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": protocol.Position{Line: 0}}, &hv)
	if !strings.Contains(hv.Contents.Value, " tokens · ") {
		t.Fatalf("hv.Contents.Value = %q, want it to contain %q", hv.Contents.Value, " tokens · ")
	}
	if want, got := int64(2), fk.Analyses.Load(); got != want {
		t.Fatalf("the hover reuses the report with tokens: fk.Analyses.Load() = %v, want %v", got, want)
	}
}

// TestDialectBurstOfEdits: edits to a non-seed document only mark its
// report stale; one job behind the queued edits publishes, so a burst of
// five didChanges costs one analysis, and the publication is of the last
// version. The first edit is held on the worker until the queue (bounded
// at five) is full, so the other four are surely queued behind it.
func TestDialectBurstOfEdits(t *testing.T) {
	fk := newFakeDialect()
	full := make(chan struct{}, 1)
	var gated atomic.Bool
	h := startHarness(t, harnessOptions{
		dialects:  []dialect.Dialect{fk, dialect.Seed{}},
		maxQueued: 5,
		onFull: func() {
			select {
			case full <- struct{}{}:
			default:
			}
		},
		beforeRun: func(_ context.Context, method string) {
			if method == "textDocument/didChange" && gated.CompareAndSwap(false, true) {
				select {
				case <-full:
				case <-time.After(wait):
				}
			}
		},
	})
	uri := h.open("fake.jsonl", "jsonl", fakeText)
	if want, got := int64(1), fk.Analyses.Load(); got != want {
		t.Fatalf("fk.Analyses.Load() = %v, want %v", got, want)
	}
	n := h.client.publications(uri)
	sniffs := fk.Sniffs.Load()
	for v := 2; v <= 6; v++ {
		change(h, uri, v, 2, 0, " ") // on line 3: past what detection read
	}
	h.sync()
	eventually(t, func() bool { return h.client.lastDiagnostics(uri).Version == 6 }, "h.client.lastDiagnostics(uri).Version == 6")
	h.sync()
	if want, got := n+1, h.client.publications(uri); got != want {
		t.Fatalf("one publication for the burst: h.client.publications(uri) = %v, want %v", got, want)
	}
	if want, got := int64(2), fk.Analyses.Load(); got != want {
		t.Fatalf("one analysis for the burst: fk.Analyses.Load() = %v, want %v", got, want)
	}
	if got := fk.Sniffs.Load(); got != sniffs {
		t.Fatalf("edits past the first record do not detect again: fk.Sniffs.Load() = %v, want %v", got, sniffs)
	}
	text := strings.Replace(fakeText, "\n{\"role\":\"tool\"", "\n     {\"role\":\"tool\"", 1)
	requireDiagnosticsMatch(t, uri, text, analysis.Analyze([]byte(text), analysis.Options{}), h.client.lastDiagnostics(uri).Diagnostics)
}

// TestDialectRedetected: an edit of the first record detects the dialect
// again (a fake document becomes seed, and back), and the setting wins
// over detection.
func TestDialectRedetected(t *testing.T) {
	fk := newFakeDialect()
	h := startHarness(t, harnessOptions{dialects: []dialect.Dialect{fk, dialect.Seed{}}})
	uri := h.open("fake.jsonl", "jsonl", fakeText)
	if got := statusOf(h, uri)["dialect"]; !reflect.DeepEqual(got, "fake") {
		t.Fatalf(`statusOf(h, uri)["dialect"] = %+v, want %q`, got, "fake")
	}

	// Line 1 loses its key: a seed record now (`"fake":1` → `"fakx":1`).
	h.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": protocol.Range{
			Start: protocol.Position{Line: 0, Character: 33}, End: protocol.Position{Line: 0, Character: 34}}, "text": "x"}},
	})
	st := statusOf(h, uri)
	if !reflect.DeepEqual(st["dialect"], "seed") {
		t.Fatalf(`st["dialect"] = %+v, want %q`, st["dialect"], "seed")
	}
	if !reflect.DeepEqual(st["dialectWhy"], "auto (default), detected: line 1, the first line JSON.parse accepts, is a seed record") {
		t.Fatalf(`st["dialectWhy"] = %+v, want %q`, st["dialectWhy"], "auto (default), detected: line 1, the first line JSON.parse accepts, is a seed record")
	}
	analyses := fk.Analyses.Load()
	text := strings.Replace(fakeText, `"fake":1`, `"fakx":1`, 1)
	eventually(t, func() bool { return h.client.lastDiagnostics(uri).Version == 2 }, "h.client.lastDiagnostics(uri).Version == 2")
	requireDiagnosticsMatch(t, uri, text, analysis.Analyze([]byte(text), analysis.Options{}), h.client.lastDiagnostics(uri).Diagnostics)

	// Back.
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": fakeText}},
	})
	if got := statusOf(h, uri)["dialect"]; !reflect.DeepEqual(got, "fake") {
		t.Fatalf(`statusOf(h, uri)["dialect"] = %+v, want %q`, got, "fake")
	}
	if want, got := analyses+1, fk.Analyses.Load(); got != want {
		t.Fatalf("fk.Analyses.Load() = %v, want %v", got, want)
	}

	// The editor's setting wins over detection.
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"dialect": "seed"}}})
	st = statusOf(h, uri)
	if !reflect.DeepEqual(st["dialect"], "seed") {
		t.Fatalf(`st["dialect"] = %+v, want %q`, st["dialect"], "seed")
	}
	if !reflect.DeepEqual(st["dialectWhy"], "set by editor setting sessionls.dialect") {
		t.Fatalf(`st["dialectWhy"] = %+v, want %q`, st["dialectWhy"], "set by editor setting sessionls.dialect")
	}
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"dialect": "auto"}}})
	if got := statusOf(h, uri)["dialect"]; !reflect.DeepEqual(got, "fake") {
		t.Fatalf(`statusOf(h, uri)["dialect"] = %+v, want %q`, got, "fake")
	}
}

func TestTouchesHead(t *testing.T) {
	at := func(line uint32) contentChange {
		return contentChange{Range: &protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}}}
	}
	for _, tc := range []struct {
		cs    []contentChange
		limit int
		want  bool
	}{
		{[]contentChange{at(3)}, 3, false},
		{[]contentChange{at(2)}, 3, true},
		{[]contentChange{at(5), at(0)}, 3, true},
		{[]contentChange{{Text: "full"}}, 3, true},
		{[]contentChange{at(100)}, -1, true},
	} {
		if got := touchesHead(tc.cs, tc.limit); got != tc.want {
			t.Fatalf("%+v limit %d: touchesHead(tc.cs, tc.limit) = %v, want %v", tc.cs, tc.limit, got, tc.want)
		}
	}
}

// TestDocReader: the document's text, read from its lines in pieces of any
// size, is its text.
func TestDocReader(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "ab\ncd\n\nef", "\n\n", fakeText} {
		doc := analysis.NewDocument(text, analysis.Options{})
		for _, n := range []int{1, 2, 3, 64} {
			var got []byte
			r := &docReader{doc: doc}
			buf := make([]byte, n)
			for {
				k, err := r.Read(buf)
				got = append(got, buf[:k]...)
				if err != nil {
					break
				}
			}
			if actual := string(got); actual != text {
				t.Fatalf("chunks of %d: string(got) = %q, want %q", n, actual, text)
			}
		}
	}
}

// TestDialectHoverText: a line another dialect reads as a message is
// described from its report, not from the seed rules' verdict on the line
// (here an invalid record), and a line with no message by its findings.
func TestDialectHoverText(t *testing.T) {
	doc := analysis.NewDocument(`{"type":"user","text":"hi"}`+"\n"+`{"type":"meta"}`, analysis.Options{})
	rep := analysis.Analyze([]byte(`{"role":"user","content":"hi"}`+"\n"+`{"role":"user",}`), analysis.Options{})
	got := dialectHoverText(doc, rep, "fake", 0, noTokens)
	if !strings.HasPrefix(got, "**user** message · line 1 · ") {
		t.Fatalf(`%v: strings.HasPrefix(got, "**user** message · line 1 · ") is false, want true`, got)
	}
	if strings.Contains(got, "invalid-record") {
		t.Fatalf("got = %q, want it not to contain %q", got, "invalid-record")
	}
	got = dialectHoverText(doc, rep, "fake", 1, noTokens)
	if !strings.HasPrefix(got, "**invalid-json** · line 2\n\n") {
		t.Fatalf(`%v: strings.HasPrefix(got, "**invalid-json** · line 2\n\n") is false, want true`, got)
	}
	rep = analysis.Analyze([]byte(`{"role":"user","content":"hi"}`+"\n"), analysis.Options{})
	if got := dialectHoverText(doc, rep, "fake", 1, noTokens); got != "line 2 is a fake record that holds no message the model sees" {
		t.Fatalf(`dialectHoverText(doc, rep, "fake", 1, noTokens) = %q, want %q`, got, "line 2 is a fake record that holds no message the model sees")
	}
}

// TestDialectFromConfigFile: a document's sessionls.toml sets its dialect
// (an [[overrides]] table for part of the tree), and a change of the file
// reads the open documents again in the dialect it now names.
func TestDialectFromConfigFile(t *testing.T) {
	root := t.TempDir()
	toml := filepath.Join(root, "sessionls.toml")
	writeFile(t, toml, "[[overrides]]\nfiles = [\"seedy/**\"]\ndialect = \"seed\"\n")
	fk := newFakeDialect()
	caps := defaultCapabilities()
	caps["workspace"].(map[string]any)["didChangeWatchedFiles"] = map[string]any{"dynamicRegistration": true}
	h := &configHarness{harness: startHarness(t, harnessOptions{capabilities: caps, dialects: []dialect.Dialect{fk, dialect.Seed{}}}), root: root}

	a := h.openDoc("a.jsonl", "jsonl", fakeText)
	b := h.openDoc("seedy/b.jsonl", "jsonl", fakeText)
	st := statusOf(h.harness, a)
	if !reflect.DeepEqual(st["dialect"], "fake") {
		t.Fatalf(`st["dialect"] = %+v, want %q`, st["dialect"], "fake")
	}
	st = statusOf(h.harness, b)
	if !reflect.DeepEqual(st["dialect"], "seed") {
		t.Fatalf(`st["dialect"] = %+v, want %q`, st["dialect"], "seed")
	}
	if want := "set by " + toml + ":3:1 ([[overrides]] #1)"; !reflect.DeepEqual(st["dialectWhy"], want) {
		t.Fatalf(`st["dialectWhy"] = %+v, want %q`, st["dialectWhy"], want)
	}

	n := h.client.publications(a)
	h.changed("sessionls.toml", "dialect = \"seed\"\n")
	st = statusOf(h.harness, a)
	if !reflect.DeepEqual(st["dialect"], "seed") {
		t.Fatalf(`st["dialect"] = %+v, want %q`, st["dialect"], "seed")
	}
	if want := "set by " + toml + ":1:1"; !reflect.DeepEqual(st["dialectWhy"], want) {
		t.Fatalf(`st["dialectWhy"] = %+v, want %q`, st["dialectWhy"], want)
	}
	if got := h.client.publications(a); got <= n {
		t.Fatalf("republished in its new dialect: h.client.publications(a) = %v, want > %v", got, n)
	}
}

// TestDialectTokens: a document of another dialect is counted by its
// dialect (its lines are records, not seed messages' text): the status's
// totalTokens and keptTokens, the ✂ lens's kept tokens and each unit
// lens's tokens are those of the dialect's analysis with a token counter,
// as `sessionls budget --tokens` counts them; a fake dialect that reads
// seed messages counts as seed does.
func TestDialectTokens(t *testing.T) {
	fk := newFakeDialect()
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"tokens": true, "budget": 1500}, dialects: append([]dialect.Dialect{fk}, dialect.All()...)})
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	fakeLine := `{"role":"user","content":"a","fake":1}` + "\n"
	uri := h.open("fake.jsonl", "jsonl", fakeLine)
	st := statusOf(h, uri)
	if want := analysis.Analyze([]byte(fakeLine), analysis.Options{Tokens: counter}).TotalTokens; st["totalTokens"] != float64(want) || want == 0 {
		t.Errorf("fake document: totalTokens %v, want %d (tokensError %v)", st["totalTokens"], want, st["tokensError"])
	}

	for _, file := range []string{"claude-code/clean.jsonl", "codex/clean.jsonl"} {
		data := dialecttest.Read(t, filepath.Join("..", "testdata", "dialects"), file)
		d, ok := dialect.ByName(filepath.Dir(file))
		if !ok {
			t.Fatalf("no dialect %s", filepath.Dir(file))
		}
		want := d.Analyze(data, analysis.Options{Tokens: counter, Budget: 1500})
		if want.TotalTokens == 0 || want.TokensErr != nil || want.Cutoff == nil {
			t.Fatalf("%s: the dialect counts %d tokens (%v), cutoff %+v: the check would prove nothing", file, want.TotalTokens, want.TokensErr, want.Cutoff)
		}
		uri := h.open(file, "jsonl", string(data))
		st := statusOf(h, uri)
		if st["totalTokens"] != float64(want.TotalTokens) || st["keptTokens"] != float64(want.Cutoff.KeptTokens) {
			t.Errorf("%s: status totalTokens %v, keptTokens %v; want %d, %d (tokensError %v)",
				file, st["totalTokens"], st["keptTokens"], want.TotalTokens, want.Cutoff.KeptTokens, st["tokensError"])
		}
		var lenses []protocol.CodeLens
		h.call("textDocument/codeLens", textDoc(uri), &lenses)
		units := map[int]analysis.Unit{}
		for _, u := range want.Units {
			units[u.StartLine] = u
		}
		resolved := 0
		for _, l := range lenses {
			if l.Command != nil && l.Command.Title != "" {
				continue // resolved already (usage, compaction)
			}
			var got protocol.CodeLens
			h.call("codeLens/resolve", l, &got)
			title := got.Command.Title
			line := int(l.Range.Start.Line) + 1
			if u, ok := units[line]; ok && !strings.HasPrefix(title, "✂") {
				if w := fmt.Sprintf("≈ %s tokens", textfmt.Thousands(u.Tokens)); !strings.Contains(title, w) {
					t.Errorf("%s:%d: unit lens %q lacks %q", file, line, title, w)
				}
				resolved++
			}
			if strings.HasPrefix(title, "✂") {
				if w := fmt.Sprintf("≈ %s tokens", textfmt.Thousands(want.Cutoff.KeptTokens)); !strings.Contains(title, w) {
					t.Errorf("%s: ✂ lens %q lacks %q", file, title, w)
				}
			}
		}
		if resolved != len(want.Units) {
			t.Errorf("%s: %d unit lenses resolved with tokens, want %d", file, resolved, len(want.Units))
		}
	}
}

// TestRealDialects: the Claude Code and Codex CLI corpora in the server,
// with the dialects of this build: each file is detected as its dialect,
// published with its dialect's findings (the same codes at the same
// lines), and every finding the dialect plans a fix for is offered that
// fix, titled as the dialect titles it.
func TestRealDialects(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	fixes := 0
	for _, dir := range []string{"claude-code", "codex"} {
		d, ok := dialect.ByName(dir)
		if !ok {
			t.Logf("%s: not in this build", dir)
			continue
		}
		corpus := filepath.Join("..", "testdata", "dialects", dir)
		files, err := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatal("files is empty, want some")
		}
		for _, path := range files {
			data := dialecttest.Read(t, corpus, filepath.Base(path))
			if !utf8.Valid(data) {
				continue // an editor's text is UTF-8: such a file is the CLI's to check
			}
			name := dir + "/" + filepath.Base(path)
			uri := h.open(name, "jsonl", string(data))
			if got := statusOf(h, uri)["dialect"]; !reflect.DeepEqual(got, dir) {
				t.Fatalf(`%v: statusOf(h, uri)["dialect"] = %+v, want %q`, name, got, dir)
			}
			rep := d.Analyze(data, analysis.Options{})
			type at struct {
				line int
				code string
			}
			var want, got []at
			for _, f := range rep.Findings {
				want = append(want, at{f.Line, f.Code})
			}
			diags := h.client.lastDiagnostics(uri).Diagnostics
			for _, dg := range diags {
				got = append(got, at{int(dg.Range.Start.Line) + 1, dg.Code.(string)})
			}
			if !sameElements(want, got) {
				t.Fatalf("%s: findings published at %v, want %v in any order", name, got, want)
			}

			titles := map[at]string{}
			for _, fx := range d.Plan(data, rep.Findings) {
				titles[at{fx.Line, fx.Code}] = fx.Title
			}
			for _, dg := range diags {
				var acts []protocol.CodeAction
				h.call("textDocument/codeAction", map[string]any{
					"textDocument": map[string]any{"uri": uri},
					"range":        dg.Range,
					"context":      map[string]any{"diagnostics": []any{dg}, "only": []string{"quickfix"}},
				}, &acts)
				k := at{int(dg.Range.Start.Line) + 1, dg.Code.(string)}
				var offered []string
				for _, a := range acts {
					if len(a.Diagnostics) == 1 && a.Diagnostics[0].Code == dg.Code {
						offered = append(offered, a.Title)
					}
				}
				if title, ok := titles[k]; ok {
					if want := ([]string{title}); !reflect.DeepEqual(offered, want) {
						t.Fatalf("%s:%d %s: offered = %+v, want %+v", name, k.line, k.code, offered, want)
					}
					fixes++
				} else {
					if len(offered) != 0 {
						t.Fatalf("%s:%d %s: offered = %+v, want empty", name, k.line, k.code, offered)
					}
				}
			}
		}
	}
	if len(dialect.All()) > 1 {
		if fixes <= 0 {
			t.Fatalf("the corpora have findings with fixes: fixes = %v, want > 0", fixes)
		}
	}
}

// noTokens is a hover's token line when none are counted.
func noTokens(string, int64) string { return "" }

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/ctxmap"
	"github.com/sessionls/sessionls/analysis/ctxmap/mappage"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/transcript"
)

// cliMap is the model `sessionls map --budget budget [--tokens] FILE`
// builds for text: the file streamed through the engine with a Builder as
// its observer (cli/map.go's runMap), not the server's Document.
func cliMap(t *testing.T, text string, budget int64, enc tokens.Encoding) *ctxmap.Map {
	t.Helper()
	b := ctxmap.NewBuilder()
	opts := analysis.Options{Budget: budget, SkipMessages: true, Observer: b}
	if enc != "" {
		c, err := tokens.New(enc)
		if err != nil {
			t.Fatal(err)
		}
		opts.Tokens = c
	}
	rep, err := analysis.AnalyzeReader(context.Background(), strings.NewReader(text), opts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Build(rep, ctxmap.Config{Budget: budget, ByTokens: enc != ""})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// contextMapOf asks the server for uri's map (and page).
func (h *harness) contextMapOf(uri any, html bool) contextMapResult {
	h.t.Helper()
	var res struct {
		Version int32           `json:"version"`
		Map     json.RawMessage `json:"map"`
		HTML    string          `json:"html"`
	}
	h.call(methodContextMap, map[string]any{"uri": uri, "html": html}, &res)
	var m ctxmap.Map
	d := json.NewDecoder(bytes.NewReader(res.Map))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		h.t.Fatalf("d.Decode(&m): %v", err)
	}
	return contextMapResult{Version: res.Version, Map: &m, HTML: res.HTML}
}

func requireSameMap(t *testing.T, want, got *ctxmap.Map) {
	t.Helper()
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := jsonEqual(string(w), string(g)); err != nil || !same {
		t.Fatalf("map = %s, want %s (%v)", g, w, err)
	}
}

// TestContextMap: over the wire, sessionls/contextMap gives the map the
// CLI builds for the same text and budget, follows edits and budget
// changes, and its page is the CLI's page of that map.
func TestContextMap(t *testing.T) {
	demo := readSession(t, "demo.jsonl")
	units := readSession(t, "units.jsonl")
	big := string(transcript.Session(9000, 7)) // more units than bins: aggregated

	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 800}})
	for _, tc := range []struct{ name, text string }{
		{"demo.jsonl", demo}, {"units.jsonl", units}, {"big.jsonl", big},
	} {
		uri := h.open(tc.name, "jsonl", tc.text)
		got := h.contextMapOf(uri, false)
		want := cliMap(t, tc.text, 800, "")
		requireSameMap(t, want, got.Map)
		if want := int32(1); got.Version != want {
			t.Fatalf("got.Version = %v, want %v", got.Version, want)
		}
		if got.HTML != "" {
			t.Fatalf("html was not asked for: got.HTML = %q, want empty", got.HTML)
		}
	}
	big1 := cliMap(t, big, 800, "")
	if big1.Threshold == 0 {
		t.Fatal("the transcript is aggregated: big1.Threshold = 0, want anything else")
	}
	if big1.Budget == nil {
		t.Fatal("big1.Budget is nil, want non-nil")
	}
	if big1.Budget.FirstKeptLine == 0 {
		t.Fatal("big1.Budget.FirstKeptLine = 0, want anything else")
	}

	// The page: the CLI's renderer with the document's path and URI.
	uri := docURI("units.jsonl")
	got := h.contextMapOf(uri, true)
	var page strings.Builder
	if err := mappage.Write(&page, cliMap(t, units, 800, ""),
		mappage.Options{Name: "/work/units.jsonl", FileURL: string(uri), Version: serverVersion}); err != nil {
		t.Fatalf("mappage.Write(&page, cliMap(t, units, 800, \"\"),\n\t\tmappage.Options{Name: \"/work/units.jsonl\", FileURL: string(uri), Version: serverVersion}): %v", err)
	}
	if want := page.String(); got.HTML != want {
		t.Fatalf("got.HTML = %q, want %q", got.HTML, want)
	}
	if want := `data-first-kept-line="` + strconv.Itoa(got.Map.Budget.FirstKeptLine) + `"`; !strings.Contains(got.HTML, want) {
		t.Fatalf("got.HTML = %q, want it to contain %q", got.HTML, want)
	}
	if !strings.Contains(got.HTML, `href="file:///work/units.jsonl#L1"`) {
		t.Fatalf("got.HTML = %q, want it to contain %q", got.HTML, `href="file:///work/units.jsonl#L1"`)
	}

	// An edit: the map is the new text's.
	lines := strings.SplitAfter(units, "\n")
	edited := strings.Join(lines[2:], "")
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": edited}},
	})
	got = h.contextMapOf(uri, false)
	if want := int32(2); got.Version != want {
		t.Fatalf("got.Version = %v, want %v", got.Version, want)
	}
	requireSameMap(t, cliMap(t, edited, 800, ""), got.Map)

	// A budget change: the map's cutoff moves; no budget, no cutoff.
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 300}}})
	got = h.contextMapOf(uri, false)
	requireSameMap(t, cliMap(t, edited, 300, ""), got.Map)
	if want := int64(300); got.Map.Budget.Limit != want {
		t.Fatalf("got.Map.Budget.Limit = %v, want %v", got.Map.Budget.Limit, want)
	}
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": nil}}})
	got = h.contextMapOf(uri, false)
	if got.Map.Budget != nil {
		t.Fatalf("got.Map.Budget = %+v, want nil", got.Map.Budget)
	}
	requireSameMap(t, cliMap(t, edited, 0, ""), got.Map)

	// A file that does not load: the map says so (and its page, at the top).
	got = h.contextMapOf(docURI("demo.jsonl"), true)
	if got.Map.LoadFailure == nil {
		t.Fatal("got.Map.LoadFailure is nil, want non-nil")
	}
	if !strings.Contains(got.HTML, `id="load-failure"`) {
		t.Fatalf("got.HTML = %q, want it to contain %q", got.HTML, `id="load-failure"`)
	}
}

// TestContextMapTokens: with the tokens setting on, the map counts tokens
// with the document's tokenizer and is sized by them, as map --tokens; a
// document past maxMapTokenBytes is mapped in chars and says why.
func TestContextMapTokens(t *testing.T) {
	small := string(transcript.Session(60, 3))
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 20000, "tokens": true, "tokenizer": "cl100k_base"}})
	uri := h.open("small.jsonl", "jsonl", small)
	got := h.contextMapOf(uri, true)
	want := cliMap(t, small, 20000, tokens.Cl100kBase)
	requireSameMap(t, want, got.Map)
	if got.Map.Measure != "tokens" {
		t.Fatalf("got.Map.Measure = %q, want %q", got.Map.Measure, "tokens")
	}
	if got.Map.Budget.Unit != "chars" {
		t.Fatalf("got.Map.Budget.Unit = %q, want %q", got.Map.Budget.Unit, "chars")
	}
	if !strings.Contains(got.HTML, "tokens: cl100k_base") {
		t.Fatalf("got.HTML = %q, want it to contain %q", got.HTML, "tokens: cl100k_base")
	}

	large := string(transcript.Session(1, 1))
	for len(large) <= maxMapTokenBytes {
		large += large
	}
	uri = h.open("large.jsonl", "jsonl", large)
	got = h.contextMapOf(uri, false)
	if got.Map.Measure != "chars" {
		t.Fatalf("got.Map.Measure = %q, want %q", got.Map.Measure, "chars")
	}
	if got.Map.TokensCounted {
		t.Fatal("got.Map.TokensCounted is true, want false")
	}
	if !strings.Contains(got.Map.TokensError, "sessionls map --tokens") {
		t.Fatalf("got.Map.TokensError = %q, want it to contain %q", got.Map.TokensError, "sessionls map --tokens")
	}
	m := cliMap(t, large, 20000, "")
	m.TokensError = got.Map.TokensError
	requireSameMap(t, m, got.Map)
}

// TestContextMapErrors: a request that names no open document, or whose
// params are malformed, is refused with InvalidParams and a reason.
func TestContextMapErrors(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	uri := h.open("a.jsonl", "jsonl", readSession(t, "units.jsonl"))
	for _, tc := range []struct {
		name   string
		params any
		want   string
	}{
		{"no params", nil, "invalid params"},
		{"no uri", map[string]any{}, "needs"},
		{"uri not a string", map[string]any{"uri": 3}, "needs"},
		{"html not a boolean", map[string]any{"uri": uri, "html": "yes"}, "not a boolean"},
		{"not open", map[string]any{"uri": "file:///work/nope.jsonl"}, "not an open session file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := h.callErr(methodContextMap, tc.params, nil)
			if err == nil {
				t.Fatal("err = nil, want an error")
			}
			if got := err.Error(); !strings.Contains(got, tc.want) {
				t.Fatalf("err.Error() = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// BenchmarkContextMap: sessionls/contextMap with the page, over the wire,
// on a document of about 40 MB (VS Code's largest is 50): the time per
// request, and the sizes of the answer and the page (a page stays under
// 5 MB whatever the session).
func BenchmarkContextMap(b *testing.B) {
	text := string(transcript.Session(14000, 1))
	h := startHarness(b, harnessOptions{initOptions: map[string]any{"budget": 1_000_000}})
	uri := docURI("large.jsonl")
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "jsonl", "version": 1, "text": text,
	}})
	var res struct {
		Map  json.RawMessage `json:"map"`
		HTML string          `json:"html"`
	}
	b.ResetTimer()
	for range b.N {
		h.call(methodContextMap, map[string]any{"uri": uri, "html": true}, &res)
	}
	b.StopTimer()
	b.ReportMetric(float64(len(text)), "doc-bytes")
	b.ReportMetric(float64(len(res.Map)), "map-bytes")
	b.ReportMetric(float64(len(res.HTML)), "page-bytes")
	if got, limit := len(res.HTML), 5<<20; got >= limit {
		b.Fatalf("len(res.HTML) = %v, want < %v", got, limit)
	}
}

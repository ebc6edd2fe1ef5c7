package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
		require.NoError(t, err)
		opts.Tokens = c
	}
	rep, err := analysis.AnalyzeReader(context.Background(), strings.NewReader(text), opts)
	require.NoError(t, err)
	m, err := b.Build(rep, ctxmap.Config{Budget: budget, ByTokens: enc != ""})
	require.NoError(t, err)
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
	require.NoError(h.t, d.Decode(&m))
	return contextMapResult{Version: res.Version, Map: &m, HTML: res.HTML}
}

func requireSameMap(t *testing.T, want, got *ctxmap.Map) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(w), string(g))
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
		require.Equal(t, int32(1), got.Version)
		require.Empty(t, got.HTML, "html was not asked for")
	}
	big1 := cliMap(t, big, 800, "")
	require.NotZero(t, big1.Threshold, "the transcript is aggregated")
	require.NotNil(t, big1.Budget)
	require.NotZero(t, big1.Budget.FirstKeptLine)

	// The page: the CLI's renderer with the document's path and URI.
	uri := docURI("units.jsonl")
	got := h.contextMapOf(uri, true)
	var page strings.Builder
	require.NoError(t, mappage.Write(&page, cliMap(t, units, 800, ""),
		mappage.Options{Name: "/work/units.jsonl", FileURL: string(uri), Version: serverVersion}))
	require.Equal(t, page.String(), got.HTML)
	require.Contains(t, got.HTML, `data-first-kept-line="`+strconv.Itoa(got.Map.Budget.FirstKeptLine)+`"`)
	require.Contains(t, got.HTML, `href="file:///work/units.jsonl#L1"`)

	// An edit: the map is the new text's.
	lines := strings.SplitAfter(units, "\n")
	edited := strings.Join(lines[2:], "")
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": edited}},
	})
	got = h.contextMapOf(uri, false)
	require.Equal(t, int32(2), got.Version)
	requireSameMap(t, cliMap(t, edited, 800, ""), got.Map)

	// A budget change: the map's cutoff moves; no budget, no cutoff.
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 300}}})
	got = h.contextMapOf(uri, false)
	requireSameMap(t, cliMap(t, edited, 300, ""), got.Map)
	require.Equal(t, int64(300), got.Map.Budget.Limit)
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": nil}}})
	got = h.contextMapOf(uri, false)
	require.Nil(t, got.Map.Budget)
	requireSameMap(t, cliMap(t, edited, 0, ""), got.Map)

	// A file that does not load: the map says so (and its page, at the top).
	got = h.contextMapOf(docURI("demo.jsonl"), true)
	require.NotNil(t, got.Map.LoadFailure)
	require.Contains(t, got.HTML, `id="load-failure"`)
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
	require.Equal(t, "tokens", got.Map.Measure)
	require.Equal(t, "chars", got.Map.Budget.Unit)
	require.Contains(t, got.HTML, "tokens: cl100k_base")

	large := string(transcript.Session(1, 1))
	for len(large) <= maxMapTokenBytes {
		large += large
	}
	uri = h.open("large.jsonl", "jsonl", large)
	got = h.contextMapOf(uri, false)
	require.Equal(t, "chars", got.Map.Measure)
	require.False(t, got.Map.TokensCounted)
	require.Contains(t, got.Map.TokensError, "sessionls map --tokens")
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
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
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
	require.Less(b, len(res.HTML), 5<<20)
}

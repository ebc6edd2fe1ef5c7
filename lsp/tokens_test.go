package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// wantUnitTokens counts a unit's tokens independently of the server.
func wantUnitTokens(t *testing.T, enc tokens.Encoding, text string, rep *analysis.Report, u analysis.Unit) int64 {
	t.Helper()
	c, err := tokens.New(enc)
	require.NoError(t, err)
	lines := strings.Split(text, "\n")
	var sum int64
	for _, m := range rep.Messages[u.First : u.Last+1] {
		n, err := c.Message([]byte(lines[m.Line-1]))
		require.NoError(t, err)
		sum += int64(n)
	}
	return sum
}

// TestTokenLenses: with tokens on, the codeLens request answers unit lenses
// unresolved (no counting), codeLens/resolve adds the unit's tokens after
// the unchanged chars part, and the budget lens is unchanged; the hover
// shows a message's tokens. End to end over net.Pipe.
func TestTokenLenses(t *testing.T) {
	for _, enc := range tokens.Encodings() {
		t.Run(string(enc), func(t *testing.T) {
			text := readSession(t, "units.jsonl")
			h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 500, "tokens": true, "tokenizer": string(enc)}})
			uri := h.open("units.jsonl", "jsonl", text)
			rep := analysis.Analyze([]byte(text), analysis.Options{Budget: 500})

			var lenses []protocol.CodeLens
			h.call("textDocument/codeLens", textDoc(uri), &lenses)
			require.Len(t, lenses, len(rep.Units)+1)
			unresolved := 0
			for _, l := range lenses {
				if l.Command != nil {
					require.Empty(t, l.Command.Arguments, "only the budget lens comes resolved")
					require.True(t, strings.HasPrefix(l.Command.Title, "✂ budget 500 · "), l.Command.Title)
					continue
				}
				unresolved++
				var got protocol.CodeLens
				h.call("codeLens/resolve", l, &got)
				line := int(l.Range.Start.Line) + 1
				var u analysis.Unit
				for _, cand := range rep.Units {
					if cand.StartLine == line {
						u = cand
					}
				}
				require.Equal(t, line, u.StartLine, "a lens on line %d, where no unit starts", line)
				want := fmt.Sprintf("%s chars · ≈ %s tokens · %s · %s from newest", textfmt.Thousands(u.Chars),
					textfmt.Thousands(wantUnitTokens(t, enc, text, rep, u)), textfmt.Plural(int64(u.Len()), "message", "messages"),
					textfmt.Thousands(u.FromNewest))
				require.NotNil(t, got.Command)
				require.Equal(t, want, got.Command.Title)
				require.Equal(t, commandSetBudget, got.Command.Command, "the unit lens's command, budget to here")
				require.Equal(t, []any{float64(u.FromNewest)}, got.Command.Arguments)
				require.True(t, strings.HasPrefix(got.Command.Title, textfmt.Thousands(u.Chars)+" chars · "), "the chars part comes first, as without tokens")
				require.Equal(t, l.Range, got.Range)
			}
			require.Equal(t, len(rep.Units), unresolved)

			// A lens whose unit has gone (the text changed) resolves to an
			// empty title, not an error.
			stale := protocol.CodeLens{Data: map[string]any{"uri": uri, "line": 9999}}
			var got protocol.CodeLens
			h.call("codeLens/resolve", stale, &got)
			require.NotNil(t, got.Command)
			require.Equal(t, "", got.Command.Title)
			h.call("codeLens/resolve", protocol.CodeLens{Data: "nonsense"}, &got)
			require.Equal(t, "", got.Command.Title)

			// The hover of line 1 (a user message) gives its tokens.
			var hover protocol.Hover
			h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0}}, &hover)
			c, err := tokens.New(enc)
			require.NoError(t, err)
			n, err := c.Message([]byte(strings.Split(text, "\n")[0]))
			require.NoError(t, err)
			ratio := float64(rep.Messages[0].Cost) / float64(n)
			require.Contains(t, hover.Contents.Value, fmt.Sprintf("chars · ≈ %d tokens · %.1f chars per token (%s)", n, ratio, enc))
		})
	}
}

// TestTokenLensesOff: by default unit lenses come resolved, with the title
// they always had, and a settings change turns tokens on.
func TestTokenLensesOff(t *testing.T) {
	text := readSession(t, "clean.jsonl")
	h := startHarness(t, harnessOptions{})
	uri := h.open("clean.jsonl", "jsonl", text)
	rep := analysis.Analyze([]byte(text), analysis.Options{})
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	for _, l := range lenses {
		require.NotNil(t, l.Command)
		require.Nil(t, l.Data)
	}
	require.Contains(t, lensTitles(lenses), fmt.Sprintf("0: %s [%s [%d]]", unitTitle(rep.Units[0]), commandSetBudget, rep.Units[0].FromNewest))

	r := h.client.refreshCount()
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"tokens": true}}})
	require.Eventually(t, func() bool { return h.client.refreshCount() > r }, wait, time.Millisecond, "codeLens refresh")
	var after []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &after)
	unresolved := 0
	for _, l := range after {
		if l.Command == nil {
			unresolved++
		}
	}
	require.Equal(t, len(rep.Units), unresolved)
}

func TestTokenSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		v    map[string]any
		want string
	}{
		{map[string]any{"tokens": "yes"}, `sessionls.tokens: want true or false, got "yes"`},
		{map[string]any{"tokenizer": "gpt2"}, `sessionls.tokenizer: unknown tokenizer "gpt2" (want o200k_base or cl100k_base)`},
		{map[string]any{"tokenizer": 5}, `sessionls.tokenizer: unknown tokenizer ""`},
	} {
		p, errs := parseSettings(tc.v)
		require.Len(t, errs, 1, "%v", tc.v)
		require.Contains(t, errs[0].Error(), tc.want)
		require.Nil(t, p.tokens)
		require.Equal(t, tokens.Encoding(""), p.tokenizer)
	}
	p, errs := parseSettings(map[string]any{"tokens": true, "tokenizer": "cl100k_base"})
	require.Empty(t, errs)
	s := p.apply(defaultSettings())
	require.True(t, s.tokens)
	require.Equal(t, tokens.Cl100kBase, s.tokenizer)
	require.Equal(t, tokens.Encoding(""), defaultSettings().tokenizer, "unset: the configuration file's applies")
	require.False(t, defaultSettings().tokens)
}

// TestTokenizerFromConfigFile: with no editor setting, a document's
// tokenizer is its sessionls.toml's; the editor's setting wins when set.
func TestTokenizerFromConfigFile(t *testing.T) {
	text := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{
		"cl/sessionls.toml": "tokenizer = \"cl100k_base\"\n",
	}, false)
	cl := h.openDoc("cl/clean.jsonl", "jsonl", text)
	plain := h.openDoc("plain/clean.jsonl", "jsonl", text)
	hover := func(uri protocol.DocumentURI) string {
		var hv protocol.Hover
		h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0}}, &hv)
		return hv.Contents.Value
	}
	require.Contains(t, hover(cl), "(cl100k_base)")
	require.Contains(t, hover(plain), "(o200k_base)")
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"tokenizer": "o200k_base"}}})
	h.sync()
	require.Contains(t, hover(cl), "(o200k_base)", "the editor's setting wins")
}

// TestTokenLensesBounded: a unit or a hovered message too long to count
// while the editor waits keeps its chars-only title (and hover).
func TestTokenLensesBounded(t *testing.T) {
	big := `{"role":"user","content":"` + strings.Repeat("word ", (maxUnitTokenBytes/5)+1) + `"}`
	text := big + "\n" + `{"role":"user","content":"small"}`
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"tokens": true}})
	uri := h.open("big.jsonl", "jsonl", text)
	rep := analysis.Analyze([]byte(text), analysis.Options{})
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	titles := map[int]string{}
	for _, l := range lenses {
		if l.Command != nil {
			continue
		}
		var got protocol.CodeLens
		h.call("codeLens/resolve", l, &got)
		titles[int(l.Range.Start.Line)] = got.Command.Title
	}
	require.Equal(t, unitTitle(rep.Units[0]), titles[0], "the big unit: no tokens")
	require.Contains(t, titles[1], " tokens · ", "the small unit is counted")
	var hover protocol.Hover
	h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0}}, &hover)
	require.NotContains(t, hover.Contents.Value, "tokens")
}

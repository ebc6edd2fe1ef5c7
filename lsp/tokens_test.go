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
				require.Nil(t, l.Command, "every lens comes unresolved")
				var got protocol.CodeLens
				h.call("codeLens/resolve", l, &got)
				if strings.HasPrefix(got.Command.Title, "✂") {
					continue // TestBudgetLensTokens
				}
				unresolved++
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

// tokenReport is the engine's analysis of text counting tokens with enc,
// as `sessionls budget --tokens` makes it: its TotalTokens and its
// Cutoff's KeptTokens are the CLI's totalTokens and cutoff.keptTokens.
func tokenReport(t *testing.T, text string, budget int64, enc tokens.Encoding) *analysis.Report {
	t.Helper()
	c, err := tokens.New(enc)
	require.NoError(t, err)
	return analysis.Analyze([]byte(text), analysis.Options{Budget: budget, Tokens: c})
}

// TestBudgetLensTokens: with tokens on, the Σ lens (no budget) and the ✂
// lens (a cutoff) come unresolved and resolve with the file's and the kept
// units' tokens, and sessionls/status reports both totals: the numbers
// the engine counts for `sessionls budget --tokens`. A budget lens without
// tokens to show (too small a budget, a file that does not load) comes
// resolved, as without tokens. End to end over net.Pipe.
func TestBudgetLensTokens(t *testing.T) {
	type status struct {
		Budget      *int64  `json:"budget"`
		KeptChars   *int64  `json:"keptChars"`
		Tokenizer   *string `json:"tokenizer"`
		TotalTokens *int64  `json:"totalTokens"`
		KeptTokens  *int64  `json:"keptTokens"`
		TokensError *string `json:"tokensError"`
	}
	for _, enc := range tokens.Encodings() {
		t.Run(string(enc), func(t *testing.T) {
			text := readSession(t, "units.jsonl")
			h := startHarness(t, harnessOptions{initOptions: map[string]any{"tokens": true, "tokenizer": string(enc)}})
			uri := h.open("units.jsonl", "jsonl", text)
			budgetLens := func() (protocol.CodeLens, protocol.CodeLens) {
				t.Helper()
				var lenses []protocol.CodeLens
				h.call("textDocument/codeLens", textDoc(uri), &lenses)
				for _, l := range lenses {
					var got protocol.CodeLens
					if l.Command != nil {
						got = l
					} else {
						h.call("codeLens/resolve", l, &got)
					}
					if t := got.Command.Title; strings.HasPrefix(t, "Σ") || strings.HasPrefix(t, "✂") {
						return l, got
					}
				}
				t.Fatal("no budget lens")
				return protocol.CodeLens{}, protocol.CodeLens{}
			}
			st := func() status {
				var res status
				h.call("sessionls/status", map[string]any{"uri": uri}, &res)
				return res
			}

			// No budget: the Σ lens and the status give the file's tokens.
			rep := tokenReport(t, text, 0, enc)
			require.Positive(t, rep.TotalTokens)
			sent, got := budgetLens()
			require.Nil(t, sent.Command, "sent unresolved")
			require.Equal(t, fmt.Sprintf("Σ %s chars · ≈ %s tokens · %s · set a context budget",
				textfmt.Thousands(rep.TotalChars), textfmt.Thousands(rep.TotalTokens), textfmt.Plural(int64(rep.MessageCount()), "message", "messages")),
				got.Command.Title)
			require.Equal(t, commandSetBudget, got.Command.Command)
			require.Empty(t, got.Command.Arguments, "the budget lens prompts for a budget")
			require.Equal(t, sent.Range, got.Range)
			s := st()
			require.Equal(t, string(enc), *s.Tokenizer)
			require.Equal(t, rep.TotalTokens, *s.TotalTokens)
			require.Nil(t, s.KeptTokens, "no cutoff")
			require.Nil(t, s.TokensError)

			// A budget: the ✂ lens and the status give the kept units' tokens.
			h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{500}}, nil)
			rep = tokenReport(t, text, 500, enc)
			require.NotNil(t, rep.Cutoff)
			require.Positive(t, rep.Cutoff.KeptTokens)
			require.Less(t, rep.Cutoff.KeptTokens, rep.TotalTokens, "the cutoff trims something")
			sent, got = budgetLens()
			require.Nil(t, sent.Command, "sent unresolved")
			require.Equal(t, cutoffTitle(rep, rep.Cutoff, " · ≈ "+textfmt.Thousands(rep.Cutoff.KeptTokens)+" tokens"), got.Command.Title)
			require.Contains(t, got.Command.Title, textfmt.Thousands(rep.Cutoff.KeptChars)+" chars · ≈ ")
			require.Equal(t, int(sent.Range.Start.Line)+1, rep.Cutoff.FirstKeptLine)
			s = st()
			require.Equal(t, rep.TotalTokens, *s.TotalTokens)
			require.Equal(t, rep.Cutoff.KeptTokens, *s.KeptTokens)
			require.Equal(t, rep.Cutoff.KeptChars, *s.KeptChars)

			// The lens of an older text resolves to an empty title.
			var stale protocol.CodeLens
			h.call("codeLens/resolve", map[string]any{"data": map[string]any{"uri": uri, "line": rep.Cutoff.FirstKeptLine + 1, "budget": true}}, &stale)
			require.Equal(t, "", stale.Command.Title)

			// Too small a budget: the runtime's error, resolved, no tokens.
			h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{5}}, nil)
			sent, got = budgetLens()
			require.NotNil(t, sent.Command, "nothing to count: sent resolved")
			require.NotContains(t, got.Command.Title, "tokens")
			s = st()
			require.Nil(t, s.KeptTokens)
			require.Equal(t, rep.TotalTokens, *s.TotalTokens)
		})
	}
}

// TestBudgetTokensBounded: a file of more than maxTotalTokenBytes keeps
// the budget lens without tokens, and the status says why.
func TestBudgetTokensBounded(t *testing.T) {
	line := `{"role":"user","content":"` + strings.Repeat("word ", 1<<18) + `"}` + "\n"
	text := strings.Repeat(line, maxTotalTokenBytes/len(line)+1)
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"tokens": true}})
	uri := h.open("huge.jsonl", "jsonl", text)
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	var got protocol.CodeLens
	h.call("codeLens/resolve", lenses[0], &got)
	require.True(t, strings.HasPrefix(got.Command.Title, "Σ "), got.Command.Title)
	require.NotContains(t, got.Command.Title, "tokens")
	var s map[string]any
	h.call("sessionls/status", map[string]any{"uri": uri}, &s)
	require.NotContains(t, s, "totalTokens")
	require.Contains(t, s["tokensError"], "more than the 33,554,432 the server counts while the editor waits")
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
	require.Equal(t, len(rep.Units)+1, unresolved, "the units' and the Σ lens")
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

package lsp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// wantUnitTokens counts a unit's tokens independently of the server.
func wantUnitTokens(t *testing.T, enc tokens.Encoding, text string, rep *analysis.Report, u analysis.Unit) int64 {
	t.Helper()
	c, err := tokens.New(enc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	var sum int64
	for _, m := range rep.Messages[u.First : u.Last+1] {
		n, err := c.Message([]byte(lines[m.Line-1]))
		if err != nil {
			t.Fatal(err)
		}
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
			if want := len(rep.Units) + 1; len(lenses) != want {
				t.Fatalf("len(lenses) = %d, want %d: %+v", len(lenses), want, lenses)
			}
			unresolved := 0
			for _, l := range lenses {
				if l.Command != nil {
					t.Fatalf("every lens comes unresolved: l.Command = %+v, want nil", l.Command)
				}
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
				if u.StartLine != line {
					t.Fatalf("a lens on line %d, where no unit starts: u.StartLine = %v, want %v", line, u.StartLine, line)
				}
				want := fmt.Sprintf("%s chars · ≈ %s tokens · %s · %s from newest", textfmt.Thousands(u.Chars),
					textfmt.Thousands(wantUnitTokens(t, enc, text, rep, u)), textfmt.Plural(int64(u.Len()), "message", "messages"),
					textfmt.Thousands(u.FromNewest))
				if got.Command == nil {
					t.Fatal("got.Command is nil, want non-nil")
				}
				if got.Command.Title != want {
					t.Fatalf("got.Command.Title = %q, want %q", got.Command.Title, want)
				}
				if got.Command.Command != commandSetBudget {
					t.Fatalf("the unit lens's command, budget to here: got.Command.Command = %q, want %q", got.Command.Command, commandSetBudget)
				}
				if want := ([]any{float64(u.FromNewest)}); !reflect.DeepEqual(got.Command.Arguments, want) {
					t.Fatalf("got.Command.Arguments = %+v, want %+v", got.Command.Arguments, want)
				}
				if !strings.HasPrefix(got.Command.Title, textfmt.Thousands(u.Chars)+" chars · ") {
					t.Fatal(`the chars part comes first, as without tokens: strings.HasPrefix(got.Command.Title, textfmt.Thousands(u.Chars)+" chars · ") is false, want true`)
				}
				if !reflect.DeepEqual(got.Range, l.Range) {
					t.Fatalf("got.Range = %+v, want %+v", got.Range, l.Range)
				}
			}
			if want := len(rep.Units); unresolved != want {
				t.Fatalf("unresolved = %v, want %v", unresolved, want)
			}

			// A lens whose unit has gone (the text changed) resolves to an
			// empty title, not an error.
			stale := protocol.CodeLens{Data: map[string]any{"uri": uri, "line": 9999}}
			var got protocol.CodeLens
			h.call("codeLens/resolve", stale, &got)
			if got.Command == nil {
				t.Fatal("got.Command is nil, want non-nil")
			}
			if got.Command.Title != "" {
				t.Fatalf("got.Command.Title = %q, want %q", got.Command.Title, "")
			}
			h.call("codeLens/resolve", protocol.CodeLens{Data: "nonsense"}, &got)
			if got.Command.Title != "" {
				t.Fatalf("got.Command.Title = %q, want %q", got.Command.Title, "")
			}

			// The hover of line 1 (a user message) gives its tokens.
			var hover protocol.Hover
			h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0}}, &hover)
			c, err := tokens.New(enc)
			if err != nil {
				t.Fatal(err)
			}
			n, err := c.Message([]byte(strings.Split(text, "\n")[0]))
			if err != nil {
				t.Fatal(err)
			}
			ratio := float64(rep.Messages[0].Cost) / float64(n)
			if want := fmt.Sprintf("chars · ≈ %d tokens · %.1f chars per token (%s)", n, ratio, enc); !strings.Contains(hover.Contents.Value, want) {
				t.Fatalf("hover.Contents.Value = %q, want it to contain %q", hover.Contents.Value, want)
			}
		})
	}
}

// tokenReport is the engine's analysis of text counting tokens with enc,
// as `sessionls budget --tokens` makes it: its TotalTokens and its
// Cutoff's KeptTokens are the CLI's totalTokens and cutoff.keptTokens.
func tokenReport(t *testing.T, text string, budget int64, enc tokens.Encoding) *analysis.Report {
	t.Helper()
	c, err := tokens.New(enc)
	if err != nil {
		t.Fatal(err)
	}
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
			if rep.TotalTokens <= 0 {
				t.Fatalf("rep.TotalTokens = %v, want > 0", rep.TotalTokens)
			}
			sent, got := budgetLens()
			if sent.Command != nil {
				t.Fatalf("sent unresolved: sent.Command = %+v, want nil", sent.Command)
			}
			if want := fmt.Sprintf("Σ %s chars · ≈ %s tokens · %s · set a context budget",
				textfmt.Thousands(rep.TotalChars), textfmt.Thousands(rep.TotalTokens), textfmt.Plural(int64(rep.MessageCount()), "message", "messages")); got.Command.Title != want {
				t.Fatalf("got.Command.Title = %q, want %q", got.Command.Title, want)
			}
			if got.Command.Command != commandSetBudget {
				t.Fatalf("got.Command.Command = %q, want %q", got.Command.Command, commandSetBudget)
			}
			if len(got.Command.Arguments) != 0 {
				t.Fatalf("the budget lens prompts for a budget: got.Command.Arguments = %+v, want empty", got.Command.Arguments)
			}
			if !reflect.DeepEqual(got.Range, sent.Range) {
				t.Fatalf("got.Range = %+v, want %+v", got.Range, sent.Range)
			}
			s := st()
			if want := string(enc); *s.Tokenizer != want {
				t.Fatalf("*s.Tokenizer = %q, want %q", *s.Tokenizer, want)
			}
			if *s.TotalTokens != rep.TotalTokens {
				t.Fatalf("*s.TotalTokens = %v, want %v", *s.TotalTokens, rep.TotalTokens)
			}
			if s.KeptTokens != nil {
				t.Fatalf("no cutoff: s.KeptTokens = %+v, want nil", s.KeptTokens)
			}
			if s.TokensError != nil {
				t.Fatalf("s.TokensError = %+v, want nil", s.TokensError)
			}

			// A budget: the ✂ lens and the status give the kept units' tokens.
			h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{500}}, nil)
			rep = tokenReport(t, text, 500, enc)
			if rep.Cutoff == nil {
				t.Fatal("rep.Cutoff is nil, want non-nil")
			}
			if rep.Cutoff.KeptTokens <= 0 {
				t.Fatalf("rep.Cutoff.KeptTokens = %v, want > 0", rep.Cutoff.KeptTokens)
			}
			if rep.Cutoff.KeptTokens >= rep.TotalTokens {
				t.Fatalf("the cutoff trims something: rep.Cutoff.KeptTokens = %v, want < %v", rep.Cutoff.KeptTokens, rep.TotalTokens)
			}
			sent, got = budgetLens()
			if sent.Command != nil {
				t.Fatalf("sent unresolved: sent.Command = %+v, want nil", sent.Command)
			}
			if want := cutoffTitle(rep, rep.Cutoff, " · ≈ "+textfmt.Thousands(rep.Cutoff.KeptTokens)+" tokens"); got.Command.Title != want {
				t.Fatalf("got.Command.Title = %q, want %q", got.Command.Title, want)
			}
			if want := textfmt.Thousands(rep.Cutoff.KeptChars) + " chars · ≈ "; !strings.Contains(got.Command.Title, want) {
				t.Fatalf("got.Command.Title = %q, want it to contain %q", got.Command.Title, want)
			}
			if want := int(sent.Range.Start.Line) + 1; rep.Cutoff.FirstKeptLine != want {
				t.Fatalf("rep.Cutoff.FirstKeptLine = %v, want %v", rep.Cutoff.FirstKeptLine, want)
			}
			s = st()
			if *s.TotalTokens != rep.TotalTokens {
				t.Fatalf("*s.TotalTokens = %v, want %v", *s.TotalTokens, rep.TotalTokens)
			}
			if *s.KeptTokens != rep.Cutoff.KeptTokens {
				t.Fatalf("*s.KeptTokens = %v, want %v", *s.KeptTokens, rep.Cutoff.KeptTokens)
			}
			if *s.KeptChars != rep.Cutoff.KeptChars {
				t.Fatalf("*s.KeptChars = %v, want %v", *s.KeptChars, rep.Cutoff.KeptChars)
			}

			// The lens of an older text resolves to an empty title.
			var stale protocol.CodeLens
			h.call("codeLens/resolve", map[string]any{"data": map[string]any{"uri": uri, "line": rep.Cutoff.FirstKeptLine + 1, "budget": true}}, &stale)
			if stale.Command.Title != "" {
				t.Fatalf("stale.Command.Title = %q, want %q", stale.Command.Title, "")
			}

			// Too small a budget: the runtime's error, resolved, no tokens.
			h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{5}}, nil)
			sent, got = budgetLens()
			if sent.Command == nil {
				t.Fatal("nothing to count: sent resolved: sent.Command is nil, want non-nil")
			}
			if strings.Contains(got.Command.Title, "tokens") {
				t.Fatalf("got.Command.Title = %q, want it not to contain %q", got.Command.Title, "tokens")
			}
			s = st()
			if s.KeptTokens != nil {
				t.Fatalf("s.KeptTokens = %+v, want nil", s.KeptTokens)
			}
			if *s.TotalTokens != rep.TotalTokens {
				t.Fatalf("*s.TotalTokens = %v, want %v", *s.TotalTokens, rep.TotalTokens)
			}
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
	if !strings.HasPrefix(got.Command.Title, "Σ ") {
		t.Fatalf(`%v: strings.HasPrefix(got.Command.Title, "Σ ") is false, want true`, got.Command.Title)
	}
	if strings.Contains(got.Command.Title, "tokens") {
		t.Fatalf("got.Command.Title = %q, want it not to contain %q", got.Command.Title, "tokens")
	}
	var s map[string]any
	h.call("sessionls/status", map[string]any{"uri": uri}, &s)
	if _, ok := s["totalTokens"]; ok {
		t.Fatalf("s = %+v, want it without the key %q", s, "totalTokens")
	}
	if got, ok := s["tokensError"].(string); !ok || !strings.Contains(got, "more than the 33,554,432 the server counts while the editor waits") {
		t.Fatalf(`s["tokensError"] = %q, want a string containing %q`, got, "more than the 33,554,432 the server counts while the editor waits")
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
		if l.Command == nil {
			t.Fatal("l.Command is nil, want non-nil")
		}
		if l.Data != nil {
			t.Fatalf("l.Data = %+v, want nil", l.Data)
		}
	}
	if got, want := lensTitles(lenses), fmt.Sprintf("0: %s [%s [%d]]", unitTitle(rep.Units[0]), commandSetBudget, rep.Units[0].FromNewest); !slices.Contains(got, want) {
		t.Fatalf("lensTitles(lenses) = %+v, want it to contain %q", got, want)
	}

	r := h.client.refreshCount()
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"tokens": true}}})
	eventually(t, func() bool { return h.client.refreshCount() > r }, "codeLens refresh: h.client.refreshCount() > r")
	var after []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &after)
	unresolved := 0
	for _, l := range after {
		if l.Command == nil {
			unresolved++
		}
	}
	if want := len(rep.Units) + 1; unresolved != want {
		t.Fatalf("the units' and the Σ lens: unresolved = %v, want %v", unresolved, want)
	}
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
		if len(errs) != 1 {
			t.Fatalf("%v: len(errs) = %d, want %d: %+v", tc.v, len(errs), 1, errs)
		}
		if got := errs[0].Error(); !strings.Contains(got, tc.want) {
			t.Fatalf("errs[0].Error() = %q, want it to contain %q", got, tc.want)
		}
		if p.tokens != nil {
			t.Fatalf("p.tokens = %+v, want nil", p.tokens)
		}
		if want := tokens.Encoding(""); p.tokenizer != want {
			t.Fatalf("p.tokenizer = %q, want %q", p.tokenizer, want)
		}
	}
	p, errs := parseSettings(map[string]any{"tokens": true, "tokenizer": "cl100k_base"})
	requireLen(t, "errs", errs, 0)
	s := p.apply(defaultSettings())
	if !s.tokens {
		t.Fatal("s.tokens is false, want true")
	}
	if s.tokenizer != tokens.Cl100kBase {
		t.Fatalf("s.tokenizer = %q, want %q", s.tokenizer, tokens.Cl100kBase)
	}
	if want, got := tokens.Encoding(""), defaultSettings().tokenizer; got != want {
		t.Fatalf("unset: the configuration file's applies: defaultSettings().tokenizer = %q, want %q", got, want)
	}
	if defaultSettings().tokens {
		t.Fatal("defaultSettings().tokens is true, want false")
	}
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
	if got := hover(cl); !strings.Contains(got, "(cl100k_base)") {
		t.Fatalf("hover(cl) = %q, want it to contain %q", got, "(cl100k_base)")
	}
	if got := hover(plain); !strings.Contains(got, "(o200k_base)") {
		t.Fatalf("hover(plain) = %q, want it to contain %q", got, "(o200k_base)")
	}
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"tokenizer": "o200k_base"}}})
	h.sync()
	if got := hover(cl); !strings.Contains(got, "(o200k_base)") {
		t.Fatalf("the editor's setting wins: hover(cl) = %q, want it to contain %q", got, "(o200k_base)")
	}
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
	if want := unitTitle(rep.Units[0]); titles[0] != want {
		t.Fatalf("the big unit: no tokens: titles[0] = %q, want %q", titles[0], want)
	}
	if !strings.Contains(titles[1], " tokens · ") {
		t.Fatalf("the small unit is counted: titles[1] = %q, want it to contain %q", titles[1], " tokens · ")
	}
	var hover protocol.Hover
	h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0}}, &hover)
	if strings.Contains(hover.Contents.Value, "tokens") {
		t.Fatalf("hover.Contents.Value = %q, want it not to contain %q", hover.Contents.Value, "tokens")
	}
}

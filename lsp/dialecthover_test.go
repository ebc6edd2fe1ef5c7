package lsp

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/dialect/dialecttest"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// hoverTokensRE reads the token line of a hover.
var hoverTokensRE = regexp.MustCompile(`chars · ≈ ([0-9,]+) tokens · ([0-9.]+) chars per token \(([a-z0-9_]+)\)`)

// hoverAt is the hover text of 0-based line i of uri.
func hoverAt(h *harness, uri protocol.DocumentURI, i int) string {
	var hv protocol.Hover
	h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": i, "character": 0}}, &hv)
	return hv.Contents.Value
}

// TestDialectHoverTokens: in a Claude Code and a Codex CLI document, the
// hover of a message line gives its tokens as a seed message's does (the
// same words), the tokens its dialect counts for it: per message line the
// engine's Message.Tokens (what `sessionls budget --tokens` sums), so
// the lines of each unit add up to the unit's tokens, and every message
// line is counted (the totals equal TotalTokens); a record holding two
// messages (orphan-block.jsonl, line 19) is counted once, on its line.
// With the tokens setting on and off (a small document: the hover counts
// it as it counts a seed line). End to end over net.Pipe.
func TestDialectHoverTokens(t *testing.T) {
	for _, enc := range tokens.Encodings() {
		for _, setting := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/tokens=%v", enc, setting), func(t *testing.T) {
				h := startHarness(t, harnessOptions{initOptions: map[string]any{"tokens": setting, "tokenizer": string(enc)}})
				counter, err := tokens.New(enc)
				if err != nil {
					t.Fatal(err)
				}
				// orphan-block.jsonl's line 19 is a record of two tool results:
				// one line, counted once.
				for _, file := range []string{"claude-code/clean.jsonl", "codex/clean.jsonl", "claude-code/orphan-block.jsonl"} {
					d, ok := dialect.ByName(filepath.Dir(file))
					if !ok {
						t.Fatalf("no dialect %s", filepath.Dir(file))
					}
					data := dialecttest.Read(t, filepath.Join("..", "testdata", "dialects"), file)
					want := d.Analyze(data, analysis.Options{Tokens: counter})
					if want.TotalTokens == 0 || want.TokensErr != nil || len(want.Units) < 2 {
						t.Fatalf("%s: the dialect counts %d tokens (%v) in %d units: the check would prove nothing", file, want.TotalTokens, want.TokensErr, len(want.Units))
					}
					uri := h.open(file, "jsonl", string(data))
					byLine := map[int]int64{} // the hover's tokens of each message line
					var total int64
					for k, m := range want.Messages {
						if k > 0 && want.Messages[k-1].Line == m.Line {
							continue // the line's first message carries its tokens
						}
						var n, cost int64
						for _, o := range want.Messages[k:] {
							if o.Line != m.Line {
								break
							}
							n, cost = n+o.Tokens, cost+o.Cost
						}
						got := hoverAt(h, uri, m.Line-1)
						wantLine := fmt.Sprintf("chars · ≈ %s tokens · %.1f chars per token (%s)", textfmt.Thousands(n), float64(cost)/float64(n), enc)
						if !strings.Contains(got, wantLine) {
							t.Fatalf("%s:%d: hover %q lacks %q", file, m.Line, got, wantLine)
						}
						sub := hoverTokensRE.FindStringSubmatch(got)
						if sub == nil {
							t.Fatalf("%s:%d: hover %q has no token line", file, m.Line, got)
						}
						v, err := strconv.ParseInt(strings.ReplaceAll(sub[1], ",", ""), 10, 64)
						if err != nil {
							t.Fatal(err)
						}
						byLine[m.Line] = v
						total += v
					}
					if total != want.TotalTokens {
						t.Errorf("%s: the hovers' tokens add up to %d, want totalTokens %d", file, total, want.TotalTokens)
					}
					// A line whose messages fall in two units (a tool result
					// answering an earlier call and an orphan one) gives its
					// tokens to the unit of its first message: the units
					// holding such a line are not compared line by line.
					unitsOf := map[int]map[int]bool{}
					for k, u := range want.Units {
						for _, m := range want.Messages[u.First : u.Last+1] {
							if unitsOf[m.Line] == nil {
								unitsOf[m.Line] = map[int]bool{}
							}
							unitsOf[m.Line][k] = true
						}
					}
					compared := 0
				units:
					for _, u := range want.Units {
						for _, m := range want.Messages[u.First : u.Last+1] {
							if len(unitsOf[m.Line]) > 1 {
								continue units
							}
						}
						compared++
						var sum int64
						for ln, v := range byLine {
							if ln >= u.StartLine && ln <= u.EndLine {
								sum += v
							}
						}
						if sum != u.Tokens {
							t.Errorf("%s: unit %d–%d: the hovers' tokens add up to %d, want the unit's %d", file, u.StartLine, u.EndLine, sum, u.Tokens)
						}
					}
					if compared < len(want.Units)/2 {
						t.Errorf("%s: %d of %d units compared: the check proves little", file, compared, len(want.Units))
					}
					// A line with no message has no token line.
					for i := 0; i < len(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")); i++ {
						if _, ok := want.MessageAtLine(i + 1); ok {
							continue
						}
						if got := hoverAt(h, uri, i); strings.Contains(got, "tokens ·") && strings.Contains(got, "chars per token") {
							t.Fatalf("%s:%d: a line with no message: hover %q has a token line", file, i+1, got)
						}
					}
				}
			})
		}
	}
}

// TestDialectHoverTokensBounded: with the tokens setting off, the hover of
// a non-seed document of more than maxHoverTokenBytes counts nothing (the
// whole document would be counted while the editor waits) and shows the
// line without tokens; with it on, the same document (under
// maxTotalTokenBytes, as for the lenses) shows them.
func TestDialectHoverTokensBounded(t *testing.T) {
	data := dialecttest.Read(t, filepath.Join("..", "testdata", "dialects", "claude-code"), "clean.jsonl")
	text := string(data) + `{"type":"x-pad","pad":"` + strings.Repeat("a", maxHoverTokenBytes) + `"}` + "\n"
	d, ok := dialect.ByName("claude-code")
	if !ok {
		t.Fatal("no dialect claude-code")
	}
	r := d.Analyze([]byte(text), analysis.Options{})
	if len(r.Messages) == 0 {
		t.Fatal("the padded document has no messages: the check would prove nothing")
	}
	line := r.Messages[0].Line
	for _, setting := range []bool{false, true} {
		h := startHarness(t, harnessOptions{initOptions: map[string]any{"tokens": setting}})
		uri := h.open("claude-code/padded.jsonl", "jsonl", text)
		if got := statusOf(h, uri)["dialect"]; got != "claude-code" {
			t.Fatalf("dialect %v, want claude-code", got)
		}
		got := hoverAt(h, uri, line-1)
		if !strings.HasPrefix(got, "**") || !strings.Contains(got, "message · line") {
			t.Fatalf("tokens=%v: hover %q is not a message's", setting, got)
		}
		if has := hoverTokensRE.MatchString(got); has != setting {
			t.Fatalf("tokens=%v: hover %q: has a token line %v, want %v", setting, got, has, setting)
		}
	}
}

package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
)

func TestUsageTitles(t *testing.T) {
	tests := []struct {
		u    analysis.Usage
		want string
	}{
		{analysis.Usage{ContextTokens: 45_210, ContextWindow: 200_000, OutputTokens: 1_204}, "context 45,210 / 200,000 tokens · 23% · +1,204 output"},
		{analysis.Usage{ContextTokens: 199_000, ContextWindow: 200_000}, "context 199,000 / 200,000 tokens · 100% · +0 output"},
		{analysis.Usage{ContextTokens: 9_332, OutputTokens: 212}, "context 9,332 tokens · +212 output"},
	}
	for _, tc := range tests {
		if got := usageTitle(tc.u); got != tc.want {
			t.Errorf("usageTitle(%+v) = %q, want %q", tc.u, got, tc.want)
		}
	}
	comps := []struct {
		c    analysis.Compaction
		want string
	}{
		{analysis.Compaction{Line: 23, Replaced: 13, Chars: 2_340}, "compaction: 13 messages replaced by a 2,340-char summary"},
		{analysis.Compaction{Line: 2, Replaced: 1, Chars: 5}, "compaction: 1 message replaced by a 5-char summary"},
		{analysis.Compaction{Line: 21, Chars: 225}, "compaction: the history before it replaced by a 225-char summary"},
	}
	for _, tc := range comps {
		if got := compactionTitle(tc.c); got != tc.want {
			t.Errorf("compactionTitle(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestUsageLenses: the clean Claude Code and Codex CLI transcripts in the
// server: a lens on each turn's reported usage and on each compaction,
// with the figures the files record; a hover on those lines says them;
// the status gives the last turn's context and fill. A seed document
// gets none of it.
func TestUsageLenses(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	tests := []struct {
		file   string
		lenses map[uint32]string // client line → title
		last   map[string]any    // status keys
	}{
		{
			file: "claude-code/clean.jsonl",
			lenses: map[uint32]string{
				3: "context 16,323 / 200,000 tokens · 8% · +96 output", 7: "context 17,136 / 200,000 tokens · 9% · +140 output",
				12: "context 17,506 / 200,000 tokens · 9% · +88 output", 18: "context 17,905 / 200,000 tokens · 9% · +61 output",
				20: "compaction: the history before it replaced by a 225-char summary",
				23: "context 9,003 / 200,000 tokens · 5% · +210 output", 28: "context 9,502 / 200,000 tokens · 5% · +40 output",
			},
			last: map[string]any{"contextTokens": float64(9502), "contextLine": float64(29), "contextWindow": float64(200_000), "contextFill": float64(5), "compactions": float64(1)},
		},
		{
			file: "codex/clean.jsonl",
			lenses: map[uint32]string{
				11: "context 9,332 / 272,000 tokens · 3% · +212 output", 17: "context 10,745 / 272,000 tokens · 4% · +401 output",
				22: "compaction: 13 messages replaced by a 340-char summary", 30: "context 4,398 / 272,000 tokens · 2% · +188 output",
			},
			last: map[string]any{"contextTokens": float64(4398), "contextLine": float64(31), "contextWindow": float64(272_000), "contextFill": float64(2), "compactions": float64(1)},
		},
	}
	for _, tc := range tests {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "dialects", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		uri := h.open(tc.file, "jsonl", string(data))
		var lenses []protocol.CodeLens
		h.call("textDocument/codeLens", textDoc(uri), &lenses)
		got := map[uint32]string{}
		for _, l := range lenses {
			if l.Command == nil {
				continue
			}
			if title := l.Command.Title; strings.HasPrefix(title, "context ") || strings.HasPrefix(title, "compaction: ") {
				if l.Command.Command != "" {
					t.Errorf("%s:%d: lens %q runs %q: it informs, it runs nothing", tc.file, l.Range.Start.Line, title, l.Command.Command)
				}
				if prev, ok := got[l.Range.Start.Line]; ok {
					t.Errorf("%s:%d: two lenses, %q and %q", tc.file, l.Range.Start.Line, prev, title)
				}
				got[l.Range.Start.Line] = title
			}
		}
		if len(got) != len(tc.lenses) {
			t.Errorf("%s: %d usage and compaction lenses, want %d: %v", tc.file, len(got), len(tc.lenses), got)
		}
		for line, want := range tc.lenses {
			if got[line] != want {
				t.Errorf("%s:%d: lens %q, want %q", tc.file, line, got[line], want)
			}
		}

		st := statusOf(h, uri)
		for k, want := range tc.last {
			if st[k] != want {
				t.Errorf("%s: status %s = %v, want %v", tc.file, k, st[k], want)
			}
		}

		for line, title := range tc.lenses {
			var hv protocol.Hover
			h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": protocol.Position{Line: line}}, &hv)
			want := "**usage** · the model's reported usage of this turn"
			if strings.HasPrefix(title, "compaction: ") {
				want = "**compaction** · " + strings.TrimPrefix(title, "compaction: ")
			}
			if !strings.Contains(hv.Contents.Value, want) {
				t.Errorf("%s:%d: hover %q lacks %q", tc.file, line, hv.Contents.Value, want)
			}
		}
	}

	// A seed document: no usage, no compaction, no status keys for them.
	uri := h.open("seed.jsonl", "jsonl", readSession(t, "clean.jsonl"))
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	for _, l := range lenses {
		if l.Command != nil && (strings.HasPrefix(l.Command.Title, "context ") || strings.HasPrefix(l.Command.Title, "compaction: ")) {
			t.Errorf("seed document: lens %q", l.Command.Title)
		}
	}
	st := statusOf(h, uri)
	for _, k := range []string{"contextTokens", "contextLine", "contextWindow", "contextFill", "compactions"} {
		if v, ok := st[k]; ok {
			t.Errorf("seed document: status %s = %v", k, v)
		}
	}
}

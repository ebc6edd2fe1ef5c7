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
				20: "compaction: the history before it replaced by a 225-char summary · a resume sends lines 22–29: 7 messages, 1,177 chars",
				23: "context 9,003 / 200,000 tokens · 5% · +210 output", 28: "context 9,502 / 200,000 tokens · 5% · +40 output",
			},
			last: map[string]any{"contextTokens": float64(9502), "contextLine": float64(29), "contextWindow": float64(200_000), "contextFill": float64(5), "compactions": float64(1),
				"resumeStartLine": float64(22), "resumeEndLine": float64(29), "resumeMessages": float64(7), "resumeChars": float64(1177)},
		},
		{
			file: "codex/clean.jsonl",
			lenses: map[uint32]string{
				11: "context 9,332 / 272,000 tokens · 3% · +212 output", 17: "context 10,745 / 272,000 tokens · 4% · +401 output",
				22: "compaction: 13 messages replaced by a 340-char summary · a resume sends lines 23–40: 11 messages, 2,118 chars", 30: "context 4,398 / 272,000 tokens · 2% · +188 output",
			},
			last: map[string]any{"contextTokens": float64(4398), "contextLine": float64(31), "contextWindow": float64(272_000), "contextFill": float64(2), "compactions": float64(1),
				"resumeStartLine": float64(23), "resumeEndLine": float64(40), "resumeMessages": float64(11), "resumeChars": float64(2118)},
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
			want := []string{"**usage** · the model's reported usage of this turn"}
			if rest, ok := strings.CutPrefix(title, "compaction: "); ok {
				comp, resume, last := strings.Cut(rest, " · ")
				if !last {
					t.Fatalf("%s:%d: the only compaction's lens %q says nothing of a resume", tc.file, line, title)
				}
				// What a resume sends, in the lens's words.
				want = []string{"**compaction** · " + comp + ": ", "\n\n**resume** · " + resume + " (the history from this last compaction on)"}
			}
			for _, w := range want {
				if !strings.Contains(hv.Contents.Value, w) {
					t.Errorf("%s:%d: hover %q lacks %q", tc.file, line, hv.Contents.Value, w)
				}
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
	for _, k := range []string{"contextTokens", "contextLine", "contextWindow", "contextFill", "compactions", "resumeStartLine", "resumeEndLine", "resumeMessages", "resumeChars"} {
		if v, ok := st[k]; ok {
			t.Errorf("seed document: status %s = %v", k, v)
		}
	}
}

// TestLastCompactionLens: of several compactions only the last one's lens
// and hover say what a resume sends; a file that does not load (a resume
// is refused) says it nowhere, the lens, hover and status alike.
func TestLastCompactionLens(t *testing.T) {
	// Four seed lines (one message each, one unit each) stand for a
	// report's lines; the compactions are set on it.
	doc := analysis.NewDocument(strings.Repeat(`{"role":"user","content":"hi"}`+"\n", 4), analysis.Options{})
	rep := doc.Report()
	rep.Compactions = []analysis.Compaction{{Line: 2, Replaced: 1, Chars: 5}, {Line: 3, Replaced: 2, Chars: 7}}
	rs, ok := rep.Resume()
	if !ok || rs != (analysis.Resume{StartLine: 3, EndLine: 4, Messages: 2, Chars: 62}) {
		t.Fatalf("Resume() = %+v, %v", rs, ok)
	}
	var titles []string
	for _, l := range usageLenses(doc, rep) {
		titles = append(titles, l.Command.Title)
	}
	want := []string{
		"compaction: 1 message replaced by a 5-char summary",
		"compaction: 2 messages replaced by a 7-char summary · a resume sends lines 3–4: 2 messages, 62 chars",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Errorf("lenses\n%s\nwant\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
	if h := usageHover(rep, 2); strings.Contains(h, "resume") {
		t.Errorf("hover of the first compaction: %q", h)
	}
	if h := usageHover(rep, 3); !strings.Contains(h, "\n\n**resume** · "+rs.Summary(false)+" (the history from this last compaction on)") {
		t.Errorf("hover of the last compaction: %q", h)
	}

	h := startHarness(t, harnessOptions{})
	data, err := os.ReadFile(filepath.Join("..", "testdata", "dialects", "codex", "no-meta.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	uri := h.open("codex/rollout-no-meta.jsonl", "jsonl", string(data))
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	var comps []string
	for _, l := range lenses {
		if l.Command != nil && strings.HasPrefix(l.Command.Title, "compaction: ") {
			comps = append(comps, l.Command.Title)
		}
	}
	if len(comps) != 1 || comps[0] != "compaction: 12 messages replaced by a 340-char summary" {
		t.Errorf("no-meta.jsonl (does not load): compaction lenses %q", comps)
	}
	var hv protocol.Hover
	h.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": protocol.Position{Line: 21}}, &hv)
	if !strings.Contains(hv.Contents.Value, "**compaction** · 12 messages") || strings.Contains(hv.Contents.Value, "**resume**") {
		t.Errorf("no-meta.jsonl:22: hover %q", hv.Contents.Value)
	}
	st := statusOf(h, uri)
	if st["compactions"] != float64(1) || st["loads"] != false {
		t.Errorf("no-meta.jsonl: status %v", st)
	}
	for _, k := range []string{"resumeStartLine", "resumeEndLine", "resumeMessages", "resumeChars"} {
		if v, ok := st[k]; ok {
			t.Errorf("no-meta.jsonl (does not load): status %s = %v", k, v)
		}
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestBudgetUsage: budget on a Claude Code and a Codex CLI transcript
// reports the model's context at the last turn, its window's fill, the
// compactions and what a resume sends from the last one (with its tokens
// under --tokens), in text and JSON (after minBudget); a seed file's
// output has none of it.
func TestBudgetUsage(t *testing.T) {
	atRepoRoot(t)
	tests := []struct {
		file    string
		text    []string
		context string
		comps   string
		// resume is the JSON's resume; tokensLine and tokensResume are
		// the text's last line and the JSON's resume with --tokens.
		resume       string
		tokensLine   string
		tokensResume string
	}{
		{
			file: "testdata/dialects/claude-code/clean.jsonl",
			text: []string{
				"context at the last turn (line 29): 9,502 of 200,000 tokens (5%), as the model reported it (+40 output)",
				"compaction at line 21: the history before it replaced by a 225-char summary",
				"a resume sends lines 22–29: 7 messages, 1,177 chars",
			},
			context:      `{"line":29,"tokens":9502,"window":200000,"fill":5,"inputTokens":402,"cachedInputTokens":9100,"outputTokens":40,"reasoningTokens":0}`,
			comps:        `[{"line":21,"replaced":0,"chars":225}]`,
			resume:       `{"startLine":22,"endLine":29,"messages":7,"chars":1177}`,
			tokensLine:   "a resume sends lines 22–29: 7 messages, 1,177 chars, 345 tokens",
			tokensResume: `{"startLine":22,"endLine":29,"messages":7,"chars":1177,"tokens":345}`,
		},
		{
			file: "testdata/dialects/codex/clean.jsonl",
			text: []string{
				"context at the last turn (line 31): 4,398 of 272,000 tokens (2%), as the model reported it (+188 output)",
				"compaction at line 23: 13 messages replaced by a 340-char summary",
				"a resume sends lines 23–40: 11 messages, 2,118 chars",
			},
			context:      `{"line":31,"tokens":4398,"window":272000,"fill":2,"inputTokens":4210,"cachedInputTokens":1024,"outputTokens":188,"reasoningTokens":64}`,
			comps:        `[{"line":23,"replaced":13,"chars":340}]`,
			resume:       `{"startLine":23,"endLine":40,"messages":11,"chars":2118}`,
			tokensLine:   "a resume sends lines 23–40: 11 messages, 2,118 chars, 626 tokens",
			tokensResume: `{"startLine":23,"endLine":40,"messages":11,"chars":2118,"tokens":626}`,
		},
	}
	for _, tc := range tests {
		r := sessionls(t, "budget", tc.file)
		if r.code != 0 {
			t.Fatalf("budget %s: exit %d, stderr %q", tc.file, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if got := lines[len(lines)-len(tc.text):]; !slices.Equal(got, tc.text) {
			t.Errorf("budget %s ends with\n%s\nwant\n%s", tc.file, strings.Join(got, "\n"), strings.Join(tc.text, "\n"))
		}

		r = sessionls(t, "budget", "--format", "json", tc.file)
		keys := jsonKeys(t, r.stdout)
		if want := []string{"file", "messages", "totalChars", "units", "budget", "cutoff", "error", "minBudget", "context", "compactions", "resume"}; !slices.Equal(keys, want) {
			t.Errorf("budget --format json %s: keys %v, want %v", tc.file, keys, want)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &top); err != nil {
			t.Fatal(err)
		}
		if got := compact(t, top["context"]); got != tc.context {
			t.Errorf("%s: context %s, want %s", tc.file, got, tc.context)
		}
		if got := compact(t, top["compactions"]); got != tc.comps {
			t.Errorf("%s: compactions %s, want %s", tc.file, got, tc.comps)
		}
		if got := compact(t, top["resume"]); got != tc.resume {
			t.Errorf("%s: resume %s, want %s", tc.file, got, tc.resume)
		}

		r = sessionls(t, "budget", "--tokens", tc.file)
		if got := r.stdout[strings.LastIndexByte(strings.TrimSuffix(r.stdout, "\n"), '\n')+1:]; r.code != 0 || got != tc.tokensLine+"\n" {
			t.Errorf("budget --tokens %s (exit %d) ends with %q, want %q", tc.file, r.code, got, tc.tokensLine+"\n")
		}
		r = sessionls(t, "budget", "--tokens", "--format", "json", tc.file)
		if err := json.Unmarshal([]byte(r.stdout), &top); err != nil {
			t.Fatal(err)
		}
		if got := compact(t, top["resume"]); got != tc.tokensResume {
			t.Errorf("%s --tokens: resume %s, want %s", tc.file, got, tc.tokensResume)
		}
	}

	// A compacted file that does not load: its compactions are listed,
	// but a resume is refused, so nothing says what it sends.
	const refused = "testdata/dialects/codex/no-meta.jsonl"
	r := sessionls(t, "budget", refused)
	if r.code != 1 || !strings.Contains(r.stdout, "compaction at line 22:") || strings.Contains(r.stdout, "a resume sends") {
		t.Errorf("budget %s: exit %d, stdout:\n%s", refused, r.code, r.stdout)
	}
	r = sessionls(t, "budget", "--format", "json", refused)
	if keys := jsonKeys(t, r.stdout); !slices.Contains(keys, "compactions") || slices.Contains(keys, "resume") {
		t.Errorf("budget --format json %s: keys %v, want compactions and no resume", refused, keys)
	}

	r = sessionls(t, "budget", "--format", "json", "testdata/sessions/clean.jsonl")
	if keys := jsonKeys(t, r.stdout); slices.Contains(keys, "context") || slices.Contains(keys, "compactions") || slices.Contains(keys, "resume") {
		t.Errorf("a seed file's budget has %v", keys)
	}
	if r := sessionls(t, "budget", "testdata/sessions/clean.jsonl"); strings.Contains(r.stdout, "context at") || strings.Contains(r.stdout, "compaction") || strings.Contains(r.stdout, "resume") {
		t.Errorf("a seed file's budget text:\n%s", r.stdout)
	}
}

// compact is raw without its whitespace, keys in their order.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return b.String()
}

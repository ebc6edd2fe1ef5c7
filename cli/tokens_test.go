package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/analysis/tokens"
)

var tokenCases = []struct {
	name string
	args []string
	code int
}{
	{"clean-tokens-300", []string{"--max-chars", "300", "--tokens"}, 0},
	{"clean-maxtokens-60", []string{"--max-tokens", "60"}, 0},
	{"clean-maxtokens-5", []string{"--max-tokens", "5"}, 1}, // the newest unit does not fit
	{"units-maxtokens-100-cl100k", []string{"--max-tokens", "100", "--tokenizer", "cl100k_base"}, 0},
	{"demo-tokens-500", []string{"--max-chars", "500", "--tokens"}, 1}, // does not load
	{"empty-maxtokens-100", []string{"--max-tokens", "100"}, 1},        // no messages
}

func TestBudgetTokensGolden(t *testing.T) {
	atRepoRoot(t)
	for _, tc := range tokenCases {
		session := tc.name[:strings.IndexByte(tc.name, '-')]
		for _, format := range []string{formatText, formatJSON} {
			name := tc.name + "." + format
			t.Run(name, func(t *testing.T) {
				args := append([]string{"budget", "--format", format}, tc.args...)
				r := sessionls(t, append(args, sessionPath(session))...)
				assert.Equal(t, tc.code, r.code, "stderr %q", r.stderr)
				golden(t, "budget-tokens/"+name, r.stdout+stderrSection(r.stderr))
			})
		}
	}
}

// The token keys come in a fixed place, and only when tokens are counted.
func TestBudgetTokensJSONKeys(t *testing.T) {
	atRepoRoot(t)
	r := sessionls(t, "budget", "--format", "json", "--max-chars", "300", "--tokens", sessionPath("clean"))
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &top))
	assert.Equal(t, []string{"file", "messages", "totalChars", "totalTokens", "tokenizer", "units", "budget", "budgetUnit", "cutoff", "error", "minBudget"}, jsonKeys(t, r.stdout))
	assert.Equal(t, []string{"startLine", "endLine", "messages", "chars", "tokens"}, jsonKeys(t, firstUnit(t, top["units"])))
	assert.Equal(t, []string{"firstKeptLine", "keptUnits", "keptChars", "keptTokens"}, jsonKeys(t, string(top["cutoff"])))
	assert.JSONEq(t, `"chars"`, string(top["budgetUnit"]))

	r = sessionls(t, "budget", "--format", "json", "--max-tokens", "60", sessionPath("clean"))
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &top))
	assert.JSONEq(t, `"tokens"`, string(top["budgetUnit"]))
	assert.JSONEq(t, `60`, string(top["budget"]))

	// Without tokens, the output has exactly the keys it always had.
	r = sessionls(t, "budget", "--format", "json", "--max-chars", "300", sessionPath("clean"))
	assert.Equal(t, []string{"file", "messages", "totalChars", "units", "budget", "cutoff", "error", "minBudget"}, jsonKeys(t, r.stdout))
	assert.NotContains(t, r.stdout, "okens")
}

func jsonKeys(t *testing.T, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

func firstUnit(t *testing.T, units json.RawMessage) string {
	t.Helper()
	var us []json.RawMessage
	require.NoError(t, json.Unmarshal(units, &us))
	require.NotEmpty(t, us)
	return string(us[0])
}

// The counts the CLI reports are the counter's, message by message, for
// both tokenizers.
func TestBudgetTokensAreTheCounters(t *testing.T) {
	atRepoRoot(t)
	for _, enc := range tokens.Encodings() {
		c, err := tokens.New(enc)
		require.NoError(t, err)
		for _, session := range []string{"clean", "units", "crlf_ok"} {
			data, err := os.ReadFile(sessionPath(session))
			require.NoError(t, err)
			var total int64
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(l) == 0 || line.Parse(l).Verdict != line.Valid {
					continue
				}
				n, err := c.Message(l)
				require.NoError(t, err)
				total += int64(n)
			}
			r := sessionls(t, "budget", "--format", "json", "--max-chars", "1000000", "--tokenizer", string(enc), sessionPath(session))
			var bj budgetJSON
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &bj), r.stderr)
			require.NotNil(t, bj.TotalTokens)
			assert.Equal(t, total, *bj.TotalTokens, "%s %s", enc, session)
			assert.Equal(t, string(enc), bj.Tokenizer)
			var sum int64
			for _, u := range bj.Units {
				require.NotNil(t, u.Tokens)
				sum += *u.Tokens
			}
			assert.Equal(t, total, sum, "%s %s: units sum", enc, session)
		}
	}
}

// trim --max-tokens writes from the line budget --max-tokens keeps.
func TestTrimMaxTokens(t *testing.T) {
	atRepoRoot(t)
	data, err := os.ReadFile(sessionPath("units"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	for _, n := range []int{40, 100, 200, 1000} {
		b := sessionls(t, "budget", "--format", "json", "--max-tokens", strconv.Itoa(n), sessionPath("units"))
		var bj budgetJSON
		require.NoError(t, json.Unmarshal([]byte(b.stdout), &bj), b.stderr)
		require.NotNil(t, bj.Cutoff, "budget %d", n)
		require.LessOrEqual(t, *bj.Cutoff.KeptTokens, int64(n))
		r := sessionls(t, "trim", "--max-tokens", strconv.Itoa(n), sessionPath("units"))
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, strings.Join(lines[bj.Cutoff.FirstKeptLine-1:], ""), r.stdout, "budget %d", n)
	}
	r := sessionls(t, "trim", "--max-tokens", "3", sessionPath("units"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "context budget cannot contain the smallest consistent message unit")
	assert.Empty(t, r.stdout)
}

func TestTokenFlagErrors(t *testing.T) {
	atRepoRoot(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"budget", "--max-chars", "5", "--max-tokens", "5"}, "--max-chars and --max-tokens cannot be used together"},
		{[]string{"trim"}, "--budget or --max-tokens is required"},
		{[]string{"budget", "--max-tokens", "0"}, "want a positive whole number of tokens"},
		{[]string{"budget", "--max-chars", "9", "--tokenizer", "p50k_base"}, `unknown tokenizer "p50k_base" (want o200k_base or cl100k_base)`},
		{[]string{"trim", "--max-tokens", "9", "--tokenizer", "x"}, `unknown tokenizer "x"`},
	} {
		r := sessionls(t, append(tc.args, sessionPath("clean"))...)
		assert.Equal(t, 2, r.code, "%v", tc.args)
		assert.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
}

// budget and trim read max-tokens and tokenizer from the configuration;
// the flags override them, and a character budget beats a token one.
func TestTokensFromConfiguration(t *testing.T) {
	clean, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "clean.jsonl"))
	require.NoError(t, err)
	root := t.TempDir()
	for name, body := range map[string]string{
		"tok/sessionls.toml":  "max-tokens = 60\ntokenizer = \"cl100k_base\"\n",
		"tok/clean.jsonl":     string(clean),
		"both/sessionls.toml": "budget = 300\nmax-tokens = 5\n",
		"both/clean.jsonl":    string(clean),
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	t.Chdir(root)
	get := func(args ...string) (budgetJSON, result) {
		t.Helper()
		r := sessionls(t, append([]string{"budget", "--format", "json"}, args...)...)
		var bj budgetJSON
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &bj), "stderr %q", r.stderr)
		return bj, r
	}
	bj, r := get("tok/clean.jsonl")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "tokens", bj.BudgetUnit)
	assert.Equal(t, int64(60), bj.Budget)
	assert.Equal(t, "cl100k_base", bj.Tokenizer)

	bj, _ = get("--tokenizer", "o200k_base", "tok/clean.jsonl")
	assert.Equal(t, "o200k_base", bj.Tokenizer, "the flag overrides the file")
	bj, _ = get("--max-chars", "400", "tok/clean.jsonl")
	assert.Equal(t, int64(400), bj.Budget)
	assert.Nil(t, bj.TotalTokens, "a character budget from the command line counts no tokens unless asked")
	bj, _ = get("--max-chars", "400", "--tokens", "tok/clean.jsonl")
	assert.Equal(t, "chars", bj.BudgetUnit)
	assert.Equal(t, "cl100k_base", bj.Tokenizer, "the file's tokenizer, counting asked for")

	bj, r = get("both/clean.jsonl")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, int64(300), bj.Budget, "budget (the runtime's) beats max-tokens")
	assert.Nil(t, bj.TotalTokens)
	bj, r = get("--max-tokens", "60", "both/clean.jsonl")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "tokens", bj.BudgetUnit)

	tr := sessionls(t, "trim", "tok/clean.jsonl")
	assert.Equal(t, 0, tr.code, tr.stderr)
	want := sessionls(t, "trim", "--max-tokens", "60", "--tokenizer", "cl100k_base", "tok/clean.jsonl")
	assert.Equal(t, want.stdout, tr.stdout)
}

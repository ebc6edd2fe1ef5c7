package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/testtree"
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
				r.wantCode(t, tc.code)
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
	r.decodeJSON(t, &top)
	wantEqual(t, "jsonKeys(t, r.stdout)", jsonKeys(t, r.stdout), []string{"file", "messages", "totalChars", "totalTokens", "tokenizer", "units", "budget", "budgetUnit", "cutoff", "error", "minBudget"})
	wantEqual(t, `jsonKeys(t, firstUnit(t, top["units"]))`, jsonKeys(t, firstUnit(t, top["units"])), []string{"startLine", "endLine", "messages", "chars", "tokens"})
	wantEqual(t, `jsonKeys(t, string(top["cutoff"]))`, jsonKeys(t, string(top["cutoff"])), []string{"firstKeptLine", "keptUnits", "keptChars", "keptTokens"})
	var bj budgetJSON
	r.decodeJSON(t, &bj)
	wantEqual(t, "budgetUnit", bj.BudgetUnit, "chars")

	r = sessionls(t, "budget", "--format", "json", "--max-tokens", "60", sessionPath("clean"))
	bj = budgetJSON{}
	r.decodeJSON(t, &bj)
	wantEqual(t, "budgetUnit", bj.BudgetUnit, "tokens")
	wantEqual(t, "budget", bj.Budget, int64(60))

	// Without tokens, the output has exactly the keys it always had.
	r = sessionls(t, "budget", "--format", "json", "--max-chars", "300", sessionPath("clean"))
	wantEqual(t, "jsonKeys(t, r.stdout)", jsonKeys(t, r.stdout), []string{"file", "messages", "totalChars", "units", "budget", "cutoff", "error", "minBudget"})
	wantNotContains(t, "stdout", r.stdout, "okens")
}

func jsonKeys(t *testing.T, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		t.Fatal(err)
	}
	if want := json.Delim('{'); !reflect.DeepEqual(tok, want) {
		t.Fatalf("tok = %+v, want %v", tok, want)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("dec.Decode(&skip): %v", err)
		}
	}
	return keys
}

func firstUnit(t *testing.T, units json.RawMessage) string {
	t.Helper()
	var us []json.RawMessage
	if err := json.Unmarshal(units, &us); err != nil {
		t.Fatalf("json.Unmarshal(units, &us): %v", err)
	}
	if len(us) == 0 {
		t.Fatal("us is empty, want some")
	}
	return string(us[0])
}

// The counts the CLI reports are the counter's, message by message, for
// both tokenizers.
func TestBudgetTokensAreTheCounters(t *testing.T) {
	atRepoRoot(t)
	for _, enc := range tokens.Encodings() {
		c, err := tokens.New(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, session := range []string{"clean", "units", "crlf_ok"} {
			data := readFile(t, sessionPath(session))
			var total int64
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(l) == 0 || line.Parse(l).Verdict != line.Valid {
					continue
				}
				n, err := c.Message(l)
				if err != nil {
					t.Fatal(err)
				}
				total += int64(n)
			}
			r := sessionls(t, "budget", "--format", "json", "--max-chars", "1000000", "--tokenizer", string(enc), sessionPath(session))
			var bj budgetJSON
			r.decodeJSON(t, &bj)
			if bj.TotalTokens == nil {
				t.Fatal("bj.TotalTokens is nil, want non-nil")
			}
			if *bj.TotalTokens != total {
				t.Errorf("%s %s: *bj.TotalTokens = %v, want %v", enc, session, *bj.TotalTokens, total)
			}
			if want := string(enc); bj.Tokenizer != want {
				t.Errorf("bj.Tokenizer = %q, want %q", bj.Tokenizer, want)
			}
			var sum int64
			for _, u := range bj.Units {
				if u.Tokens == nil {
					t.Fatal("u.Tokens is nil, want non-nil")
				}
				sum += *u.Tokens
			}
			if sum != total {
				t.Errorf("%s %s: units sum: sum = %v, want %v", enc, session, sum, total)
			}
		}
	}
}

// trim --max-tokens writes from the line budget --max-tokens keeps.
func TestTrimMaxTokens(t *testing.T) {
	atRepoRoot(t)
	data := readFile(t, sessionPath("units"))
	lines := strings.SplitAfter(string(data), "\n")
	for _, n := range []int{40, 100, 200, 1000} {
		b := sessionls(t, "budget", "--format", "json", "--max-tokens", strconv.Itoa(n), sessionPath("units"))
		var bj budgetJSON
		b.decodeJSON(t, &bj)
		if bj.Cutoff == nil {
			t.Fatalf("budget %d: bj.Cutoff is nil, want non-nil", n)
		}
		if limit := int64(n); *bj.Cutoff.KeptTokens > limit {
			t.Fatalf("*bj.Cutoff.KeptTokens = %v, want <= %v", *bj.Cutoff.KeptTokens, limit)
		}
		r := sessionls(t, "trim", "--max-tokens", strconv.Itoa(n), sessionPath("units"))
		r.wantCode(t, 0)
		if want := strings.Join(lines[bj.Cutoff.FirstKeptLine-1:], ""); r.stdout != want {
			t.Errorf("budget %d: r.stdout = %q, want %q", n, r.stdout, want)
		}
	}
	r := sessionls(t, "trim", "--max-tokens", "3", sessionPath("units"))
	r.wantCode(t, 1)
	r.wantStderr(t, "context budget cannot contain the smallest consistent message unit")
	if r.stdout != "" {
		t.Errorf("r.stdout = %q, want empty", r.stdout)
	}
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
		r.wantCode(t, 2, tc.args)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: r.stderr = %q, want it to contain %q", tc.args, r.stderr, tc.want)
		}
	}
}

// budget and trim read max-tokens and tokenizer from the configuration;
// the flags override them, and a character budget beats a token one.
func TestTokensFromConfiguration(t *testing.T) {
	clean := readFile(t, filepath.Join("..", "testdata", "sessions", "clean.jsonl"))
	t.Chdir(testtree.Write(t, map[string]string{
		"tok/sessionls.toml":  "max-tokens = 60\ntokenizer = \"cl100k_base\"\n",
		"tok/clean.jsonl":     string(clean),
		"both/sessionls.toml": "budget = 300\nmax-tokens = 5\n",
		"both/clean.jsonl":    string(clean),
	}))
	get := func(args ...string) (budgetJSON, result) {
		t.Helper()
		r := sessionls(t, append([]string{"budget", "--format", "json"}, args...)...)
		var bj budgetJSON
		r.decodeJSON(t, &bj)
		return bj, r
	}
	bj, r := get("tok/clean.jsonl")
	r.wantCode(t, 0)
	if bj.BudgetUnit != "tokens" {
		t.Errorf("bj.BudgetUnit = %q, want %q", bj.BudgetUnit, "tokens")
	}
	if want := int64(60); bj.Budget != want {
		t.Errorf("bj.Budget = %v, want %v", bj.Budget, want)
	}
	if bj.Tokenizer != "cl100k_base" {
		t.Errorf("bj.Tokenizer = %q, want %q", bj.Tokenizer, "cl100k_base")
	}

	bj, _ = get("--tokenizer", "o200k_base", "tok/clean.jsonl")
	if bj.Tokenizer != "o200k_base" {
		t.Errorf("the flag overrides the file: bj.Tokenizer = %q, want %q", bj.Tokenizer, "o200k_base")
	}
	bj, _ = get("--max-chars", "400", "tok/clean.jsonl")
	if want := int64(400); bj.Budget != want {
		t.Errorf("bj.Budget = %v, want %v", bj.Budget, want)
	}
	if bj.TotalTokens != nil {
		t.Errorf("a character budget from the command line counts no tokens unless asked: bj.TotalTokens = %+v, want nil", bj.TotalTokens)
	}
	bj, _ = get("--max-chars", "400", "--tokens", "tok/clean.jsonl")
	if bj.BudgetUnit != "chars" {
		t.Errorf("bj.BudgetUnit = %q, want %q", bj.BudgetUnit, "chars")
	}
	if bj.Tokenizer != "cl100k_base" {
		t.Errorf("the file's tokenizer, counting asked for: bj.Tokenizer = %q, want %q", bj.Tokenizer, "cl100k_base")
	}

	bj, r = get("both/clean.jsonl")
	r.wantCode(t, 0)
	if want := int64(300); bj.Budget != want {
		t.Errorf("budget (the runtime's) beats max-tokens: bj.Budget = %v, want %v", bj.Budget, want)
	}
	if bj.TotalTokens != nil {
		t.Errorf("bj.TotalTokens = %+v, want nil", bj.TotalTokens)
	}
	bj, r = get("--max-tokens", "60", "both/clean.jsonl")
	r.wantCode(t, 0)
	if bj.BudgetUnit != "tokens" {
		t.Errorf("bj.BudgetUnit = %q, want %q", bj.BudgetUnit, "tokens")
	}

	tr := sessionls(t, "trim", "tok/clean.jsonl")
	if tr.code != 0 {
		t.Errorf("%v: tr.code = %v, want %v", tr.stderr, tr.code, 0)
	}
	want := sessionls(t, "trim", "--max-tokens", "60", "--tokenizer", "cl100k_base", "tok/clean.jsonl")
	if tr.stdout != want.stdout {
		t.Errorf("tr.stdout = %q, want %q", tr.stdout, want.stdout)
	}
}

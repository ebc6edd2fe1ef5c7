package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sessionls/sessionls/analysis"
)

// configTree builds a tree with nested configuration files and overrides
// in a temporary directory and makes it the current directory.
func configTree(t *testing.T) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", name+".jsonl"))
		require.NoError(t, err)
		return string(b)
	}
	clean, units, demo := read("clean"), read("units"), read("demo")
	files := map[string]string{
		"sessionls.toml": `budget = 100000
exclude = ["drafts"]

[[overrides]]
files = ["strict/**"]
strict = true

[[overrides]]
files = ["strict/lenient.jsonl"]
strict = false
`,
		"clean.jsonl":          clean,
		"notes.txt":            demo,
		"drafts/broken.jsonl":  demo,
		"strict/units.jsonl":   units,
		"strict/lenient.jsonl": units,
		// In one directory the dotted name wins.
		"tight/.sessionls.toml": "budget = 10\n",
		"tight/sessionls.toml":  "budget = 999999\n",
		"tight/clean.jsonl":     clean,
		"bad/sessionls.toml":    "budgte = 3\nstrict = 'yes'\n",
		"bad/one.jsonl":         clean,
		"bad/two.jsonl":         clean,
		"other.toml":            "budget = 10\ndisable = [\"budget-exceeded\"]\n[[overrides]]\nfiles = [\"strict/*.jsonl\"]\nstrict = true\n",
	}
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	t.Chdir(root)
}

// findingsByFile runs check --format json and groups the codes by file.
func findingsByFile(t *testing.T, args ...string) (map[string][]string, result) {
	t.Helper()
	r := sessionls(t, append([]string{"check", "--format", "json"}, args...)...)
	var fs []jsonFinding
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &fs), "stdout %q stderr %q", r.stdout, r.stderr)
	m := map[string][]string{}
	for _, f := range fs {
		m[filepath.ToSlash(f.File)] = append(m[filepath.ToSlash(f.File)], f.Code)
	}
	for k := range m {
		sort.Strings(m[k])
		m[k] = compactStrings(m[k])
	}
	return m, r
}

func compactStrings(ss []string) []string {
	var out []string
	for i, s := range ss {
		if i == 0 || ss[i-1] != s {
			out = append(out, s)
		}
	}
	return out
}

func TestCheckReadsConfiguration(t *testing.T) {
	configTree(t)
	m, r := findingsByFile(t, "clean.jsonl", "drafts", "strict", "tight")
	// Each file gets its closest configuration: budget 100000 at the top,
	// 10 under tight/ (.sessionls.toml beats sessionls.toml); drafts/ is
	// excluded from the search; strict/ fails on warnings by an override,
	// except lenient.jsonl by a later one.
	assert.Equal(t, []string{analysis.CodeBudgetCutoff}, m["clean.jsonl"])
	assert.Equal(t, []string{analysis.CodeBudgetExceeded}, m["tight/clean.jsonl"])
	assert.NotContains(t, m, "drafts/broken.jsonl")
	assert.Contains(t, m["strict/units.jsonl"], analysis.CodeOrphanToolResult)
	assert.Equal(t, 1, r.code, "stderr %q", r.stderr)
	assert.Equal(t, "", r.stderr)

	// Strictness per file: lenient.jsonl's warnings alone do not fail.
	r = sessionls(t, "check", "strict/lenient.jsonl")
	assert.Equal(t, 0, r.code, "stderr %q", r.stderr)
	r = sessionls(t, "check", "strict/units.jsonl")
	assert.Equal(t, 1, r.code, "stderr %q", r.stderr)
	// A flag overrides the configuration, overrides included.
	r = sessionls(t, "check", "--strict=false", "strict/units.jsonl")
	assert.Equal(t, 0, r.code, "stderr %q", r.stderr)
	m, r = findingsByFile(t, "--budget", "100000", "tight/clean.jsonl")
	assert.Equal(t, []string{analysis.CodeBudgetCutoff}, m["tight/clean.jsonl"])
	assert.Equal(t, 0, r.code)
	m, _ = findingsByFile(t, "--disable", "budget-cutoff", "clean.jsonl")
	assert.Empty(t, m["clean.jsonl"])

	// stdin takes the settings of its --stdin-filename, or of the current
	// directory.
	data, err := os.ReadFile("clean.jsonl")
	require.NoError(t, err)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-"}, analysis.CodeBudgetCutoff},
		{[]string{"--stdin-filename", "tight/x.jsonl", "-"}, analysis.CodeBudgetExceeded},
	} {
		e, out, errb := testEnv(string(data), nil)
		r := runWith(t, e, out, errb, append([]string{"check", "--format", "json"}, tc.args...)...)
		assert.Contains(t, r.stdout, `"code":"`+tc.want+`"`, "%v: stderr %q", tc.args, r.stderr)
	}

	// A file named on the command line is checked even when excluded.
	m, r = findingsByFile(t, "drafts/broken.jsonl")
	assert.NotEmpty(t, m["drafts/broken.jsonl"])
	assert.Equal(t, 1, r.code)

	// Searching the whole tree reports the bad configuration (once) and
	// checks the rest.
	r = sessionls(t, "check", ".")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, 1, strings.Count(r.stderr, `bad/sessionls.toml:1:1: unknown key "budgte" (did you mean "budget"?)`), r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, `bad/sessionls.toml:2:10: strict: want true or false, got "yes"`), r.stderr)
	assert.Contains(t, r.stdout, "tight/clean.jsonl")
}

func TestCheckIsolatedAndExplicitConfig(t *testing.T) {
	configTree(t)
	// --isolated: no configuration at all, so drafts/ is searched, no
	// budget applies and the bad file is not read.
	m, r := findingsByFile(t, "--isolated", ".")
	assert.Contains(t, m, "drafts/broken.jsonl")
	assert.NotContains(t, m["clean.jsonl"], analysis.CodeBudgetCutoff)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "", r.stderr)

	// --config: one file for every path, its globs relative to the
	// current directory; the bad file under bad/ is not read.
	m, r = findingsByFile(t, "--config", "other.toml", "clean.jsonl", "bad", "strict/units.jsonl")
	assert.Empty(t, m["clean.jsonl"], "budget-exceeded is disabled by other.toml")
	assert.Empty(t, m["bad/one.jsonl"])
	assert.Equal(t, 1, r.code, "strict/units.jsonl has warnings and other.toml's override makes them fail")
	assert.Equal(t, "", r.stderr)

	r = sessionls(t, "check", "--config", "nope.toml", "clean.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "sessionls: cannot read configuration nope.toml: no such file or directory")
	r = sessionls(t, "check", "--config", "bad/sessionls.toml", "clean.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "sessionls: bad/sessionls.toml:1:1: unknown key")
	assert.Equal(t, "", r.stdout)
}

func TestBudgetAndTrimReadConfiguration(t *testing.T) {
	configTree(t)
	r := sessionls(t, "budget", "--format", "json", "clean.jsonl")
	require.Equal(t, 0, r.code, "stderr %q", r.stderr)
	var j budgetJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, int64(100000), j.Budget)

	r = sessionls(t, "budget", "--format", "json", "--max-chars", "5000", "clean.jsonl")
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, int64(5000), j.Budget)

	// No budget anywhere: budget shows the units and cuts nothing; trim
	// needs one.
	r = sessionls(t, "budget", "--isolated", "--format", "json", "clean.jsonl")
	assert.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, int64(0), j.Budget)
	assert.Nil(t, j.Cutoff)
	assert.NotEmpty(t, j.Units)
	r = sessionls(t, "trim", "--isolated", "clean.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--budget or --max-tokens is required (no budget or max-tokens in a sessionls.toml for clean.jsonl)")

	r = sessionls(t, "budget", "bad/one.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "sessionls: bad/sessionls.toml:1:1: unknown key")

	// tight/: budget 10, for which trimContext throws.
	r = sessionls(t, "trim", "tight/clean.jsonl")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "cannot trim tight/clean.jsonl")
	r = sessionls(t, "trim", "clean.jsonl")
	assert.Equal(t, 0, r.code, "stderr %q", r.stderr)
	want, err := os.ReadFile("clean.jsonl")
	require.NoError(t, err)
	assert.Equal(t, string(want), r.stdout, "the whole file fits in 100000")
}

func TestConfigCommand(t *testing.T) {
	configTree(t)
	r := sessionls(t, "config", "strict/units.jsonl")
	require.Equal(t, 0, r.code, "stderr %q", r.stderr)
	assert.Contains(t, r.stdout, "# configuration: sessionls.toml\n")
	assert.Regexp(t, `budget = 100000 +# sessionls.toml:1:1\n`, r.stdout)
	assert.Regexp(t, `strict = true +# sessionls.toml:6:1 \(\[\[overrides\]\] #1\)\n`, r.stdout)
	assert.Regexp(t, `tokenizer = "o200k_base" +# default\n`, r.stdout)
	assert.Regexp(t, `# max-tokens: none +# default\n`, r.stdout)
	assert.Contains(t, r.stdout, "# a session file")

	r = sessionls(t, "config", "--format", "json", "--budget", "7", "strict/lenient.jsonl")
	require.Equal(t, 0, r.code, "stderr %q", r.stderr)
	var j configJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	require.NotNil(t, j.Config)
	assert.Equal(t, "sessionls.toml", *j.Config)
	assert.True(t, j.SessionFile)
	assert.Equal(t, false, j.Settings["strict"].Value)
	assert.Equal(t, 2, j.Settings["strict"].Override)
	assert.Equal(t, 10, j.Settings["strict"].Line)
	assert.Equal(t, float64(7), j.Settings["budget"].Value)
	assert.Equal(t, "flag --budget", j.Settings["budget"].Source)
	assert.Equal(t, "flag", j.Settings["budget"].Kind)
	assert.Nil(t, j.Settings["max-tokens"].Value)
	assert.Equal(t, "default", j.Settings["max-tokens"].Kind)

	r = sessionls(t, "config", "tight")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "# settings for files in tight\n")
	assert.Contains(t, r.stdout, "# configuration: "+filepath.Join("tight", ".sessionls.toml")+"\n")

	r = sessionls(t, "config", "drafts/broken.jsonl")
	assert.Contains(t, r.stdout, "# not a session file")

	r = sessionls(t, "config", "--isolated", "clean.jsonl")
	assert.Contains(t, r.stdout, "# configuration: none\n")
	assert.Regexp(t, `# budget: none +# default\n`, r.stdout)

	r = sessionls(t, "config", "bad/one.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `sessionls: bad/sessionls.toml:1:1: unknown key "budgte" (did you mean "budget"?)`)
	assert.Equal(t, "", r.stdout)

	r = sessionls(t, "config", "--format", "xml")
	assert.Equal(t, 2, r.code)
}

// TestBudgetFlagSpellings: --budget is the character budget's one name on
// every command; --max-chars, its old spelling on budget, trim and map, is
// still accepted everywhere (hidden from help), with the same value, source
// and errors named as typed.
func TestBudgetFlagSpellings(t *testing.T) {
	configTree(t)
	var j budgetJSON
	for _, flag := range []string{"--budget", "--max-chars"} {
		r := sessionls(t, "budget", "--isolated", "--format", "json", flag, "321", "clean.jsonl")
		require.Equal(t, 0, r.code, "%s: stderr %q", flag, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
		assert.Equal(t, int64(321), j.Budget, flag)

		r = sessionls(t, "config", "--format", "json", flag, "7", "clean.jsonl")
		require.Equal(t, 0, r.code, "%s: stderr %q", flag, r.stderr)
		var c configJSON
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &c))
		assert.Equal(t, float64(7), c.Settings["budget"].Value, flag)
		assert.Equal(t, "flag --budget", c.Settings["budget"].Source, flag)

		r = sessionls(t, "check", "--isolated", flag, "0", "clean.jsonl")
		assert.Equal(t, 2, r.code, flag)
		assert.Contains(t, r.stderr, `invalid argument "0" for "`+flag+`" flag`)

		r = sessionls(t, "trim", "--isolated", flag, "5", "--max-tokens", "5", "clean.jsonl")
		assert.Equal(t, 2, r.code, flag)
		assert.Contains(t, r.stderr, flag+" and --max-tokens cannot be used together")
	}
	for _, cmd := range []string{"check", "config", "budget", "trim", "map"} {
		r := sessionls(t, cmd, "--help")
		require.Equal(t, 0, r.code, cmd)
		assert.Contains(t, r.stdout, "--budget", cmd)
		assert.NotContains(t, r.stdout, "--max-chars N", cmd)
	}
}

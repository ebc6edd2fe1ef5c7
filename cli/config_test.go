package cli

import (
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/testtree"
)

// configTree builds a tree with nested configuration files and overrides
// in a temporary directory and makes it the current directory.
func configTree(t *testing.T) {
	t.Helper()
	read := func(name string) string {
		b := readFile(t, filepath.Join("..", "testdata", "sessions", name+".jsonl"))
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
	t.Chdir(testtree.Write(t, files))
}

// findingsByFile runs check --format json and groups the codes by file.
func findingsByFile(t *testing.T, args ...string) (map[string][]string, result) {
	t.Helper()
	r := sessionls(t, append([]string{"check", "--format", "json"}, args...)...)
	var fs []jsonFinding
	r.decodeJSON(t, &fs)
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
	wantEqual(t, `m["clean.jsonl"]`, m["clean.jsonl"], []string{analysis.CodeBudgetCutoff})
	wantEqual(t, `m["tight/clean.jsonl"]`, m["tight/clean.jsonl"], []string{analysis.CodeBudgetExceeded})
	if _, ok := m["drafts/broken.jsonl"]; ok {
		t.Errorf("m = %+v, want it without the key %q", m, "drafts/broken.jsonl")
	}
	if !slices.Contains(m["strict/units.jsonl"], analysis.CodeOrphanToolResult) {
		t.Errorf(`m["strict/units.jsonl"] = %+v, want it to contain %q`, m["strict/units.jsonl"], analysis.CodeOrphanToolResult)
	}
	r.wantCode(t, 1)
	if r.stderr != "" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "")
	}

	// Strictness per file: lenient.jsonl's warnings alone do not fail.
	r = sessionls(t, "check", "strict/lenient.jsonl")
	r.wantCode(t, 0)
	r = sessionls(t, "check", "strict/units.jsonl")
	r.wantCode(t, 1)
	// A flag overrides the configuration, overrides included.
	r = sessionls(t, "check", "--strict=false", "strict/units.jsonl")
	r.wantCode(t, 0)
	m, r = findingsByFile(t, "--budget", "100000", "tight/clean.jsonl")
	wantEqual(t, `m["tight/clean.jsonl"]`, m["tight/clean.jsonl"], []string{analysis.CodeBudgetCutoff})
	r.wantCode(t, 0)
	m, _ = findingsByFile(t, "--disable", "budget-cutoff", "clean.jsonl")
	if len(m["clean.jsonl"]) != 0 {
		t.Errorf(`m["clean.jsonl"] = %+v, want empty`, m["clean.jsonl"])
	}

	// stdin takes the settings of its --stdin-filename, or of the current
	// directory.
	data := readFile(t, "clean.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-"}, analysis.CodeBudgetCutoff},
		{[]string{"--stdin-filename", "tight/x.jsonl", "-"}, analysis.CodeBudgetExceeded},
	} {
		e, out, errb := testEnv(string(data), nil)
		r := runWith(t, e, out, errb, append([]string{"check", "--format", "json"}, tc.args...)...)
		if want := `"code":"` + tc.want + `"`; !strings.Contains(r.stdout, want) {
			t.Errorf("%v: stderr %q: r.stdout = %q, want it to contain %q", tc.args, r.stderr, r.stdout, want)
		}
	}

	// A file named on the command line is checked even when excluded.
	m, r = findingsByFile(t, "drafts/broken.jsonl")
	if len(m["drafts/broken.jsonl"]) == 0 {
		t.Error(`m["drafts/broken.jsonl"] is empty, want some`)
	}
	r.wantCode(t, 1)

	// Searching the whole tree reports the bad configuration (once) and
	// checks the rest.
	r = sessionls(t, "check", ".")
	r.wantCode(t, 2)
	if got := strings.Count(r.stderr, `bad/sessionls.toml:1:1: unknown key "budgte" (did you mean "budget"?)`); got != 1 {
		t.Errorf("%v: strings.Count(r.stderr, `bad/sessionls.toml:1:1: unknown key \"budgte\" (did you mean \"budget\"?)`) = %v, want %v", r.stderr, got, 1)
	}
	if got := strings.Count(r.stderr, `bad/sessionls.toml:2:10: strict: want true or false, got "yes"`); got != 1 {
		t.Errorf("%v: strings.Count(r.stderr, `bad/sessionls.toml:2:10: strict: want true or false, got \"yes\"`) = %v, want %v", r.stderr, got, 1)
	}
	r.wantStdout(t, "tight/clean.jsonl")
}

func TestCheckIsolatedAndExplicitConfig(t *testing.T) {
	configTree(t)
	// --isolated: no configuration at all, so drafts/ is searched, no
	// budget applies and the bad file is not read.
	m, r := findingsByFile(t, "--isolated", ".")
	if _, ok := m["drafts/broken.jsonl"]; !ok {
		t.Errorf("m = %+v, want it to hold the key %q", m, "drafts/broken.jsonl")
	}
	if slices.Contains(m["clean.jsonl"], analysis.CodeBudgetCutoff) {
		t.Errorf(`m["clean.jsonl"] = %+v, want it not to contain %q`, m["clean.jsonl"], analysis.CodeBudgetCutoff)
	}
	r.wantCode(t, 1)
	if r.stderr != "" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "")
	}

	// --config: one file for every path, its globs relative to the
	// current directory; the bad file under bad/ is not read.
	m, r = findingsByFile(t, "--config", "other.toml", "clean.jsonl", "bad", "strict/units.jsonl")
	if len(m["clean.jsonl"]) != 0 {
		t.Errorf(`budget-exceeded is disabled by other.toml: m["clean.jsonl"] = %+v, want empty`, m["clean.jsonl"])
	}
	if len(m["bad/one.jsonl"]) != 0 {
		t.Errorf(`m["bad/one.jsonl"] = %+v, want empty`, m["bad/one.jsonl"])
	}
	r.wantCode(t, 1, "strict/units.jsonl has warnings and other.toml's override makes them fail")
	if r.stderr != "" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "")
	}

	r = sessionls(t, "check", "--config", "nope.toml", "clean.jsonl")
	r.wantCode(t, 2)
	r.wantStderr(t, "sessionls: cannot read configuration nope.toml: no such file or directory")
	r = sessionls(t, "check", "--config", "bad/sessionls.toml", "clean.jsonl")
	r.wantCode(t, 2)
	r.wantStderr(t, "sessionls: bad/sessionls.toml:1:1: unknown key")
	if r.stdout != "" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "")
	}
}

func TestBudgetAndTrimReadConfiguration(t *testing.T) {
	configTree(t)
	r := sessionls(t, "budget", "--format", "json", "clean.jsonl")
	r.mustCode(t, 0)
	var j budgetJSON
	r.decodeJSON(t, &j)
	if want := int64(100000); j.Budget != want {
		t.Errorf("j.Budget = %v, want %v", j.Budget, want)
	}

	r = sessionls(t, "budget", "--format", "json", "--max-chars", "5000", "clean.jsonl")
	r.decodeJSON(t, &j)
	if want := int64(5000); j.Budget != want {
		t.Errorf("j.Budget = %v, want %v", j.Budget, want)
	}

	// No budget anywhere: budget shows the units and cuts nothing; trim
	// needs one.
	r = sessionls(t, "budget", "--isolated", "--format", "json", "clean.jsonl")
	r.wantCode(t, 0)
	r.decodeJSON(t, &j)
	if want := int64(0); j.Budget != want {
		t.Errorf("j.Budget = %v, want %v", j.Budget, want)
	}
	if j.Cutoff != nil {
		t.Errorf("j.Cutoff = %+v, want nil", j.Cutoff)
	}
	if len(j.Units) == 0 {
		t.Error("j.Units is empty, want some")
	}
	r = sessionls(t, "trim", "--isolated", "clean.jsonl")
	r.wantCode(t, 2)
	r.wantStderr(t, "--budget or --max-tokens is required (no budget or max-tokens in a sessionls.toml for clean.jsonl)")

	r = sessionls(t, "budget", "bad/one.jsonl")
	r.wantCode(t, 2)
	r.wantStderr(t, "sessionls: bad/sessionls.toml:1:1: unknown key")

	// tight/: budget 10, for which trimContext throws.
	r = sessionls(t, "trim", "tight/clean.jsonl")
	r.wantCode(t, 1)
	r.wantStderr(t, "cannot trim tight/clean.jsonl")
	r = sessionls(t, "trim", "clean.jsonl")
	r.wantCode(t, 0)
	want := readFile(t, "clean.jsonl")
	if expected := string(want); r.stdout != expected {
		t.Errorf("the whole file fits in 100000: r.stdout = %q, want %q", r.stdout, expected)
	}
}

func TestConfigCommand(t *testing.T) {
	configTree(t)
	r := sessionls(t, "config", "strict/units.jsonl")
	r.mustCode(t, 0)
	r.wantStdout(t, "# configuration: sessionls.toml\n")
	if !regexp.MustCompile(`budget = 100000 +# sessionls.toml:1:1\n`).MatchString(r.stdout) {
		t.Errorf("r.stdout = %q, want a match for %q", r.stdout, `budget = 100000 +# sessionls.toml:1:1\n`)
	}
	if !regexp.MustCompile(`strict = true +# sessionls.toml:6:1 \(\[\[overrides\]\] #1\)\n`).MatchString(r.stdout) {
		t.Errorf("r.stdout = %q, want a match for %q", r.stdout, `strict = true +# sessionls.toml:6:1 \(\[\[overrides\]\] #1\)\n`)
	}
	if !regexp.MustCompile(`tokenizer = "o200k_base" +# default\n`).MatchString(r.stdout) {
		t.Errorf("r.stdout = %q, want a match for %q", r.stdout, `tokenizer = "o200k_base" +# default\n`)
	}
	if !regexp.MustCompile(`# max-tokens: none +# default\n`).MatchString(r.stdout) {
		t.Errorf("r.stdout = %q, want a match for %q", r.stdout, `# max-tokens: none +# default\n`)
	}
	r.wantStdout(t, "# a session file")

	r = sessionls(t, "config", "--format", "json", "--budget", "7", "strict/lenient.jsonl")
	r.mustCode(t, 0)
	var j configJSON
	r.decodeJSON(t, &j)
	if j.Config == nil {
		t.Fatal("j.Config is nil, want non-nil")
	}
	if *j.Config != "sessionls.toml" {
		t.Errorf("*j.Config = %q, want %q", *j.Config, "sessionls.toml")
	}
	if !j.SessionFile {
		t.Error("j.SessionFile is false, want true")
	}
	wantEqual(t, `j.Settings["strict"].Value`, j.Settings["strict"].Value, false)
	if j.Settings["strict"].Override != 2 {
		t.Errorf(`j.Settings["strict"].Override = %v, want %v`, j.Settings["strict"].Override, 2)
	}
	if j.Settings["strict"].Line != 10 {
		t.Errorf(`j.Settings["strict"].Line = %v, want %v`, j.Settings["strict"].Line, 10)
	}
	wantEqual(t, `j.Settings["budget"].Value`, j.Settings["budget"].Value, float64(7))
	if j.Settings["budget"].Source != "flag --budget" {
		t.Errorf(`j.Settings["budget"].Source = %q, want %q`, j.Settings["budget"].Source, "flag --budget")
	}
	if j.Settings["budget"].Kind != "flag" {
		t.Errorf(`j.Settings["budget"].Kind = %q, want %q`, j.Settings["budget"].Kind, "flag")
	}
	if j.Settings["max-tokens"].Value != nil {
		t.Errorf(`j.Settings["max-tokens"].Value = %+v, want nil`, j.Settings["max-tokens"].Value)
	}
	if j.Settings["max-tokens"].Kind != "default" {
		t.Errorf(`j.Settings["max-tokens"].Kind = %q, want %q`, j.Settings["max-tokens"].Kind, "default")
	}

	r = sessionls(t, "config", "tight")
	r.mustCode(t, 0)
	r.wantStdout(t, "# settings for files in tight\n")
	if want := "# configuration: " + filepath.Join("tight", ".sessionls.toml") + "\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("r.stdout = %q, want it to contain %q", r.stdout, want)
	}

	r = sessionls(t, "config", "drafts/broken.jsonl")
	r.wantStdout(t, "# not a session file")

	r = sessionls(t, "config", "--isolated", "clean.jsonl")
	r.wantStdout(t, "# configuration: none\n")
	if !regexp.MustCompile(`# budget: none +# default\n`).MatchString(r.stdout) {
		t.Errorf("r.stdout = %q, want a match for %q", r.stdout, `# budget: none +# default\n`)
	}

	r = sessionls(t, "config", "bad/one.jsonl")
	r.wantCode(t, 2)
	r.wantStderr(t, `sessionls: bad/sessionls.toml:1:1: unknown key "budgte" (did you mean "budget"?)`)
	if r.stdout != "" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "")
	}

	r = sessionls(t, "config", "--format", "xml")
	r.wantCode(t, 2)
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
		r.mustCode(t, 0, flag)
		r.decodeJSON(t, &j)
		if want := int64(321); j.Budget != want {
			t.Errorf("%v: j.Budget = %v, want %v", flag, j.Budget, want)
		}

		r = sessionls(t, "config", "--format", "json", flag, "7", "clean.jsonl")
		r.mustCode(t, 0, flag)
		var c configJSON
		r.decodeJSON(t, &c)
		if want := float64(7); !reflect.DeepEqual(c.Settings["budget"].Value, want) {
			t.Errorf(`%v: c.Settings["budget"].Value = %+v, want %v`, flag, c.Settings["budget"].Value, want)
		}
		if c.Settings["budget"].Source != "flag --budget" {
			t.Errorf(`%v: c.Settings["budget"].Source = %q, want %q`, flag, c.Settings["budget"].Source, "flag --budget")
		}

		r = sessionls(t, "check", "--isolated", flag, "0", "clean.jsonl")
		r.wantCode(t, 2, flag)
		if want := `invalid argument "0" for "` + flag + `" flag`; !strings.Contains(r.stderr, want) {
			t.Errorf("r.stderr = %q, want it to contain %q", r.stderr, want)
		}

		r = sessionls(t, "trim", "--isolated", flag, "5", "--max-tokens", "5", "clean.jsonl")
		r.wantCode(t, 2, flag)
		if want := flag + " and --max-tokens cannot be used together"; !strings.Contains(r.stderr, want) {
			t.Errorf("r.stderr = %q, want it to contain %q", r.stderr, want)
		}
	}
	for _, cmd := range []string{"check", "config", "budget", "trim", "map"} {
		r := sessionls(t, cmd, "--help")
		r.mustCode(t, 0, cmd)
		if !strings.Contains(r.stdout, "--budget") {
			t.Errorf("%v: r.stdout = %q, want it to contain %q", cmd, r.stdout, "--budget")
		}
		if strings.Contains(r.stdout, "--max-chars N") {
			t.Errorf("%v: r.stdout = %q, want it not to contain %q", cmd, r.stdout, "--max-chars N")
		}
	}
}

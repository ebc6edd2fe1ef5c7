package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, src string) (*File, error) {
	t.Helper()
	return Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte(src))
}

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := parse(t, src)
	require.NoError(t, err)
	return f
}

// firstError returns the first problem Parse reported.
func firstError(t *testing.T, src string) *Error {
	t.Helper()
	_, err := parse(t, src)
	require.Error(t, err, "%s", src)
	var es Errors
	require.True(t, errors.As(err, &es), "%T %v", err, err)
	require.NotEmpty(t, es)
	return es[0]
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"budget = 'x'\n", 1, 10, `budget: want a whole number ≥ 1, got "x"`},
		{"budget = 0\n", 1, 10, "want a whole number ≥ 1, got 0"},
		{"budget = 1.5\n", 1, 10, "got the number 1.5"},
		{"\n  budgte = 3\n", 2, 3, `unknown key "budgte" (did you mean "budget"?)`},
		{"zzz = 3\n", 1, 1, `unknown key "zzz"`},
		{"strict = 'yes'\n", 1, 10, "strict: want true or false"},
		{"disable = ['swept-mesage']\n", 1, 12, `unknown finding code "swept-mesage" (did you mean "swept-message"?)`},
		{"disable = 'swept-message'\n", 1, 11, "want an array of finding codes"},
		{"tokenizer = 'o200k'\n", 1, 13, `want one of "o200k_base", "cl100k_base", got "o200k" (did you mean "o200k_base"?)`},
		{"max-tokens = -1\n", 1, 14, "max-tokens: want a whole number ≥ 1"},
		{"files = ['ok', '[']\n", 1, 16, `files: glob "[": unclosed '['`},
		{"exclude = 'x'\n", 1, 11, "exclude: want an array of globs"},
		{"[overrides]\nbudget = 3\n", 1, 2, "write [[overrides]], not [overrides]"},
		{"[[overrides]]\nbudget = 3\n", 1, 3, "has no files"},
		{"[[overrides]]\nfiles = ['a']\nexclude = ['b']\n", 3, 1, `"exclude" cannot be set in [[overrides]]`},
		{"[[overrides]]\nfiles = ['a']\n[[overrides]]\nfiles = ['b']\nbugdet = 2\n", 5, 1, `unknown key "bugdet" in [[overrides]] (did you mean "budget"?)`},
		{"overrides = [{files = ['a'], budget = 'x'}]\n", 1, 39, "budget: want a whole number"},
		{"budget = 3\nbudget = 4\n", 2, 1, "already defined"},
		{"budget = \n", 1, 10, ""},
		{"\"é\" = 1\nbudget = ]\n", 2, 10, "start of value"},
		{"# é\n\"é\" = ]\n", 2, 7, "start of value"},
	}
	for _, tt := range tests {
		e := firstError(t, tt.src)
		require.Equal(t, "sessionls.toml", e.File)
		require.Equal(t, tt.line, e.Line, "%q: %v", tt.src, e)
		if tt.col > 0 && tt.msg != "" {
			require.Equal(t, tt.col, e.Col, "%q: %v", tt.src, e)
		}
		require.Contains(t, e.Msg, tt.msg, "%q", tt.src)
		require.Contains(t, e.Error(), "sessionls.toml:")
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	_, err := parse(t, "budget = 0\nstrict = 3\nbugdet = 1\n")
	var es Errors
	require.True(t, errors.As(err, &es))
	require.Len(t, es, 3)
	require.Equal(t, []int{1, 2, 3}, []int{es[0].Line, es[1].Line, es[2].Line})
}

func TestParseColumnsCountCharacters(t *testing.T) {
	_, err := parse(t, "disable = [\"é\", 'nope']\n")
	var es Errors
	require.True(t, errors.As(err, &es))
	require.Len(t, es, 2)
	require.Equal(t, 12, es[0].Col)
	require.Equal(t, 17, es[1].Col, "%v", es[1]) // byte 18: é is two bytes, one character
}

func TestParseHostile(t *testing.T) {
	e := firstError(t, strings.Repeat("#", MaxFileSize+1))
	require.Contains(t, e.Msg, "larger than")
	e = firstError(t, strings.Repeat("[", 20000))
	require.Equal(t, 1, e.Line)
	_, err := parse(t, "x = "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000))
	require.Error(t, err)
	// Many keys: positions stay cheap (no rescan of the file per key).
	var b strings.Builder
	for i := range 30000 {
		b.WriteString("k")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(" = 1\n")
	}
	_, err = parse(t, b.String())
	require.Error(t, err)
}

func TestEffectiveSettings(t *testing.T) {
	f := mustParse(t, `
budget = 20000
disable = ["swept-message"]
files = ["**/*.jsonl", "*.log"]
exclude = ["drafts", "old/**"]

[[overrides]]
files = ["ci/**"]
budget = 8000
strict = true

[[overrides]]
files = ["ci/big/*.jsonl"]
budget = 100000
disable = []
`)
	s := Defaults()
	f.Apply(&s, "/p/x.jsonl")
	require.Equal(t, int64(20000), s.Budget.V)
	require.Equal(t, Source{Kind: FromFile, File: "sessionls.toml", Line: 2, Col: 1}, s.Budget.Source)
	require.Equal(t, "sessionls.toml:2:1", s.Budget.Source.String())
	require.Equal(t, []string{"swept-message"}, s.Disable.V)
	require.False(t, s.Strict.V)
	require.Equal(t, FromDefault, s.Strict.Source.Kind)
	require.Equal(t, "o200k_base", s.Tokenizer.V)
	require.Equal(t, "sessionls.toml", s.Config)

	s = Defaults()
	f.Apply(&s, "/p/ci/a.jsonl")
	require.Equal(t, int64(8000), s.Budget.V)
	require.Equal(t, "sessionls.toml:9:1 ([[overrides]] #1)", s.Budget.Source.String())
	require.True(t, s.Strict.V)

	// Later overrides win; an empty disable turns every check back on.
	s = Defaults()
	f.Apply(&s, "/p/ci/big/b.jsonl")
	require.Equal(t, int64(100000), s.Budget.V)
	require.Equal(t, 2, s.Budget.Source.Override)
	require.True(t, s.Strict.V)
	require.Empty(t, s.Disable.V)
	require.Nil(t, s.Disabled())

	require.True(t, f.Selects("/p/a/b.jsonl"))
	require.True(t, f.Selects("/p/deep/x.log"))
	require.False(t, f.Selects("/p/a/b.txt"))
	require.False(t, f.Selects("/p/drafts/b.jsonl"), "a directory named by exclude")
	require.False(t, f.Selects("/p/a/drafts/b.jsonl"), "at any depth")
	require.False(t, f.Selects("/p/old/x/b.jsonl"))
	require.True(t, f.Selects("/p/a/old/b.jsonl"), "old/** is anchored to the file's directory")
}

func TestDefaults(t *testing.T) {
	s := Defaults()
	for _, fd := range s.Fields() {
		require.Equal(t, FromDefault, fd.Source.Kind, fd.Key)
	}
	var nilFile *File
	require.True(t, nilFile.Selects("/x/y.jsonl"))
	require.False(t, nilFile.Selects("/x/y.json"))
	require.Equal(t, `["a", "b"]`, FormatValue([]string{"a", "b"}))
	require.Equal(t, "20000", FormatValue(int64(20000)))
}

func TestSuggest(t *testing.T) {
	require.Equal(t, ` (did you mean "max-tokens"?)`, suggest("max_tokens", []string{"budget", "max-tokens"}))
	require.Equal(t, ` (did you mean "budget"?)`, suggest("Budget", []string{"budget"}))
	require.Equal(t, "", suggest("completely-different", []string{"budget"}))
	require.Equal(t, 3, editDistance("kitten", "sitting"))
}

// writeTree creates files under a temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return root
}

func TestDiscovery(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sessionls.toml":            "budget = 1000\n",
		"a/x.jsonl":                 "",
		"b/sessionls.toml":          "budget = 2000\n",
		"b/.sessionls.toml":         "budget = 3000\n",
		"b/c/d/x.jsonl":             "",
		"e/.sessionls.toml":         "strict = true\n",
		"e/x.jsonl":                 "",
		"bad/sessionls.toml":        "budget = 'lots'\n",
		"bad/x.jsonl":               "",
		"dir/sessionls.toml/x.json": "",
	})
	r, err := NewResolver(Options{Cwd: root})
	require.NoError(t, err)

	s, f, err := r.Settings(filepath.Join(root, "a/x.jsonl"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "sessionls.toml"), f.Path)
	require.Equal(t, int64(1000), s.Budget.V)
	require.Equal(t, "sessionls.toml:1:1", s.Budget.Source.String())

	// The closest file wins, whole: parents are not merged. In one
	// directory .sessionls.toml beats sessionls.toml, as .ruff.toml beats
	// ruff.toml.
	s, _, err = r.Settings(filepath.Join(root, "b/c/d/x.jsonl"))
	require.NoError(t, err)
	require.Equal(t, int64(3000), s.Budget.V)
	require.Equal(t, filepath.Join("b", ".sessionls.toml")+":1:1", s.Budget.Source.String())

	s, _, err = r.Settings(filepath.Join(root, "e/x.jsonl"))
	require.NoError(t, err)
	require.True(t, s.Strict.V)
	require.Zero(t, s.Budget.V, "the parent's budget does not leak in")

	_, _, err = r.Settings(filepath.Join(root, "bad/x.jsonl"))
	require.ErrorContains(t, err, filepath.Join("bad", "sessionls.toml")+":1:10: budget")
	var fe *FileError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, filepath.Join(root, "bad", "sessionls.toml"), fe.Path)
	var es Errors
	require.True(t, errors.As(err, &es))

	abs, err := NewResolver(Options{Cwd: root, AbsoluteNames: true})
	require.NoError(t, err)
	s, _, err = abs.Settings(filepath.Join(root, "a/x.jsonl"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "sessionls.toml")+":1:1", s.Budget.Source.String())

	// A directory named sessionls.toml is not a configuration.
	_, _, err = r.Settings(filepath.Join(root, "dir/sessionls.toml/x.json"))
	require.ErrorContains(t, err, "not a regular file")

	// Cached per directory: a change is seen only after Forget.
	require.NoError(t, os.WriteFile(filepath.Join(root, "sessionls.toml"), []byte("budget = 5\n"), 0o644))
	s, _, _ = r.Settings(filepath.Join(root, "a/x.jsonl"))
	require.Equal(t, int64(1000), s.Budget.V)
	r.Forget()
	s, _, _ = r.Settings(filepath.Join(root, "a/x.jsonl"))
	require.Equal(t, int64(5), s.Budget.V)

	// Relative paths start from Cwd.
	s, _, err = r.Settings("b/c/d/x.jsonl")
	require.NoError(t, err)
	require.Equal(t, int64(3000), s.Budget.V)
}

func TestExplicitAndIsolated(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sessionls.toml":       "budget = 1000\n",
		"conf/one.toml":        "budget = 7\n[[overrides]]\nfiles = ['sub/*.jsonl']\nbudget = 9\n",
		"sub/sessionls.toml":   "budget = 2000\n",
		"sub/x.jsonl":          "",
		"broken/strange.toml":  "[[",
		"conf/not-a-file.toml": "",
	})
	r, err := NewResolver(Options{Cwd: root, ConfigFile: "conf/one.toml"})
	require.NoError(t, err)
	s, _, err := r.Settings(filepath.Join(root, "sub/x.jsonl"))
	require.NoError(t, err)
	// The one file for everything; its globs are relative to Cwd.
	require.Equal(t, int64(9), s.Budget.V)
	require.Equal(t, filepath.Join("conf", "one.toml"), s.Config)

	_, err = NewResolver(Options{Cwd: root, ConfigFile: "broken/strange.toml"})
	require.ErrorContains(t, err, filepath.Join("broken", "strange.toml")+":1:")
	_, err = NewResolver(Options{Cwd: root, ConfigFile: "missing.toml"})
	require.ErrorContains(t, err, "cannot read configuration missing.toml")

	r, err = NewResolver(Options{Cwd: root, Isolated: true, ConfigFile: "broken/strange.toml"})
	require.NoError(t, err)
	s, f, err := r.Settings(filepath.Join(root, "sub/x.jsonl"))
	require.NoError(t, err)
	require.Nil(t, f)
	require.Zero(t, s.Budget.V)
	require.Equal(t, "", s.Config)
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"budget = 20000\ndisable = ['swept-message']\n[[overrides]]\nfiles = ['a/**']\nstrict = true\n",
		"overrides = [{files = ['x'], budget = 3}]\n",
		"[overrides]\nbudget = 'x'\n",
		"a.b.c = 1\n[x.y]\nz = [1, [2, {q = 3}]]\n",
		"files = ['{a,b', '**/*" + strings.Repeat("{a,b}", 40) + "']\n",
		"\"quoted key\" = 1\n'lit' = 2\n",
		// The hostile shapes of the bounds (bounds_test.go), small.
		nestedTables(20, 8),
		"x = " + strings.Repeat("[", 20) + strings.Repeat("]", 20),
		"x = " + strings.Repeat("{a=", 17) + "1" + strings.Repeat("}", 17),
		strings.Repeat("k", 130) + " = 1\n",
		strings.Repeat("a.", 70) + "b = 1\n",
		"[" + strings.Repeat("t.", 70) + "t]\nbudget = 1\n",
		"[[a.b.c.d.e]]\nf = {g = [1]}\n",
		overridesN(MaxOverrides + 1),
		oneLineExclude(200),
		"\ufeffbudget = 100\n",
		"\ufeff\ufeffbudget = 100\n",
		"\xff = 1\n",
		"budget = \xc3\n",
		"files = [\"\"\"\n[[[[\\\"\"\"\"\"]\n",
		"files = ['''[{[{''''']\n# [[[[\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("/p/sessionls.toml", "sessionls.toml", "/p", data)
		if err != nil {
			var es Errors
			require.True(t, errors.As(err, &es), "%T", err)
			require.NotEmpty(t, es)
			for _, e := range es {
				require.GreaterOrEqual(t, e.Line, 1)
				require.GreaterOrEqual(t, e.Col, 1)
			}
			return
		}
		s := Defaults()
		file.Apply(&s, "/p/a/b.jsonl")
		file.Selects("/p/a/b.jsonl")
	})
}

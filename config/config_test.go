package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/testtree"
)

func parse(t *testing.T, src string) (*File, error) {
	t.Helper()
	return Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte(src))
}

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := parse(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// firstError returns the first problem Parse reported.
func firstError(t *testing.T, src string) *Error {
	t.Helper()
	return parseErrors(t, src)[0]
}

// parseErrors parses src, which must fail with its problems listed.
func parseErrors(t *testing.T, src string) Errors {
	t.Helper()
	_, err := parse(t, src)
	if err == nil {
		t.Fatalf("%s: got no error, want one", src)
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("%T %v: errors.As(err, &es) = false, want true", err, err)
	}
	if len(es) == 0 {
		t.Fatal("es is empty, want some")
	}
	return es
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
		if got := e.File; got != "sessionls.toml" {
			t.Fatalf("e.File = %q, want %q", got, "sessionls.toml")
		}
		if got, want := e.Line, tt.line; got != want {
			t.Fatalf("%q: %v: e.Line = %v, want %v", tt.src, e, got, want)
		}
		if tt.col > 0 && tt.msg != "" {
			if got, want := e.Col, tt.col; got != want {
				t.Fatalf("%q: %v: e.Col = %v, want %v", tt.src, e, got, want)
			}
		}
		if !strings.Contains(e.Msg, tt.msg) {
			t.Fatalf("%q: got %q, want it to contain %q", tt.src, e.Msg, tt.msg)
		}
		if !strings.Contains(e.Error(), "sessionls.toml:") {
			t.Fatalf("got %q, want it to contain %q", e.Error(), "sessionls.toml:")
		}
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	es := parseErrors(t, "budget = 0\nstrict = 3\nbugdet = 1\n")
	if got := len(es); got != 3 {
		t.Fatalf("len(es) = %d, want %d", got, 3)
	}
	if got, want := []int{es[0].Line, es[1].Line, es[2].Line}, []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Fatalf("[]int{es[0].Line, es[1].Line, es[2].Line} = %v, want %v", got, want)
	}
}

func TestParseColumnsCountCharacters(t *testing.T) {
	es := parseErrors(t, "disable = [\"é\", 'nope']\n")
	if got := len(es); got != 2 {
		t.Fatalf("len(es) = %d, want %d", got, 2)
	}
	if got := es[0].Col; got != 12 {
		t.Fatalf("es[0].Col = %v, want %v", got, 12)
	}
	if got := es[1].Col; got != 17 { // byte 18: é is two bytes, one character
		t.Fatalf("%v: es[1].Col = %v, want %v", es[1], got, 17)
	}
}

func TestParseHostile(t *testing.T) {
	e := firstError(t, strings.Repeat("#", MaxFileSize+1))
	if !strings.Contains(e.Msg, "larger than") {
		t.Fatalf("got %q, want it to contain %q", e.Msg, "larger than")
	}
	e = firstError(t, strings.Repeat("[", 20000))
	if got := e.Line; got != 1 {
		t.Fatalf("e.Line = %v, want %v", got, 1)
	}
	_, err := parse(t, "x = "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000))
	if err == nil {
		t.Fatal("got no error, want one")
	}
	// Many keys: positions stay cheap (no rescan of the file per key).
	var b strings.Builder
	for i := range 30000 {
		b.WriteString("k")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(" = 1\n")
	}
	_, err = parse(t, b.String())
	if err == nil {
		t.Fatal("got no error, want one")
	}
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
	if got := s.Budget.V; got != int64(20000) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(20000))
	}
	if got, want := s.Budget.Source, (Source{Kind: FromFile, File: "sessionls.toml", Line: 2, Col: 1}); got != want {
		t.Fatalf("s.Budget.Source = %v, want %v", got, want)
	}
	if got := s.Budget.Source.String(); got != "sessionls.toml:2:1" {
		t.Fatalf("s.Budget.Source.String() = %q, want %q", got, "sessionls.toml:2:1")
	}
	if got, want := s.Disable.V, []string{"swept-message"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("s.Disable.V = %v, want %v", got, want)
	}
	if s.Strict.V {
		t.Fatal("s.Strict.V = true, want false")
	}
	if got, want := s.Strict.Source.Kind, FromDefault; got != want {
		t.Fatalf("s.Strict.Source.Kind = %v, want %v", got, want)
	}
	if got := s.Tokenizer.V; got != "o200k_base" {
		t.Fatalf("s.Tokenizer.V = %q, want %q", got, "o200k_base")
	}
	if got := s.Config; got != "sessionls.toml" {
		t.Fatalf("s.Config = %q, want %q", got, "sessionls.toml")
	}

	s = Defaults()
	f.Apply(&s, "/p/ci/a.jsonl")
	if got := s.Budget.V; got != int64(8000) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(8000))
	}
	if got := s.Budget.Source.String(); got != "sessionls.toml:9:1 ([[overrides]] #1)" {
		t.Fatalf("s.Budget.Source.String() = %q, want %q", got, "sessionls.toml:9:1 ([[overrides]] #1)")
	}
	if !s.Strict.V {
		t.Fatal("s.Strict.V = false, want true")
	}

	// Later overrides win; an empty disable turns every check back on.
	s = Defaults()
	f.Apply(&s, "/p/ci/big/b.jsonl")
	if got := s.Budget.V; got != int64(100000) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(100000))
	}
	if got := s.Budget.Source.Override; got != 2 {
		t.Fatalf("s.Budget.Source.Override = %v, want %v", got, 2)
	}
	if !s.Strict.V {
		t.Fatal("s.Strict.V = false, want true")
	}
	if len(s.Disable.V) != 0 {
		t.Fatalf("s.Disable.V = %v, want empty", s.Disable.V)
	}
	if s.Disabled() != nil {
		t.Fatalf("s.Disabled() = %v, want nil", s.Disabled())
	}

	if !f.Selects("/p/a/b.jsonl") {
		t.Fatal(`f.Selects("/p/a/b.jsonl") = false, want true`)
	}
	if !f.Selects("/p/deep/x.log") {
		t.Fatal(`f.Selects("/p/deep/x.log") = false, want true`)
	}
	if f.Selects("/p/a/b.txt") {
		t.Fatal(`f.Selects("/p/a/b.txt") = true, want false`)
	}
	if f.Selects("/p/drafts/b.jsonl") {
		t.Fatal(`a directory named by exclude: f.Selects("/p/drafts/b.jsonl") = true, want false`)
	}
	if f.Selects("/p/a/drafts/b.jsonl") {
		t.Fatal(`at any depth: f.Selects("/p/a/drafts/b.jsonl") = true, want false`)
	}
	if f.Selects("/p/old/x/b.jsonl") {
		t.Fatal(`f.Selects("/p/old/x/b.jsonl") = true, want false`)
	}
	if !f.Selects("/p/a/old/b.jsonl") {
		t.Fatal(`old/** is anchored to the file's directory: f.Selects("/p/a/old/b.jsonl") = false, want true`)
	}
}

func TestDefaults(t *testing.T) {
	s := Defaults()
	for _, fd := range s.Fields() {
		if got, want := fd.Source.Kind, FromDefault; got != want {
			t.Fatalf("%s: fd.Source.Kind = %v, want %v", fd.Key, got, want)
		}
	}
	var nilFile *File
	if !nilFile.Selects("/x/y.jsonl") {
		t.Fatal(`nilFile.Selects("/x/y.jsonl") = false, want true`)
	}
	if nilFile.Selects("/x/y.json") {
		t.Fatal(`nilFile.Selects("/x/y.json") = true, want false`)
	}
	if got := FormatValue([]string{"a", "b"}); got != `["a", "b"]` {
		t.Fatalf(`FormatValue([]string{"a", "b"}) = %q, want %q`, got, `["a", "b"]`)
	}
	if got := FormatValue(int64(20000)); got != "20000" {
		t.Fatalf("FormatValue(int64(20000)) = %q, want %q", got, "20000")
	}
}

func TestSuggest(t *testing.T) {
	if got := suggest("max_tokens", []string{"budget", "max-tokens"}); got != ` (did you mean "max-tokens"?)` {
		t.Fatalf(`suggest("max_tokens", []string{"budget", "max-tokens"}) = %q, want %q`, got, ` (did you mean "max-tokens"?)`)
	}
	if got := suggest("Budget", []string{"budget"}); got != ` (did you mean "budget"?)` {
		t.Fatalf(`suggest("Budget", []string{"budget"}) = %q, want %q`, got, ` (did you mean "budget"?)`)
	}
	if got := suggest("completely-different", []string{"budget"}); got != "" {
		t.Fatalf(`suggest("completely-different", []string{"budget"}) = %q, want %q`, got, "")
	}
	if got := editDistance("kitten", "sitting"); got != 3 {
		t.Fatalf(`editDistance("kitten", "sitting") = %v, want %v`, got, 3)
	}
}

func TestDiscovery(t *testing.T) {
	root := testtree.Write(t, map[string]string{
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
	if err != nil {
		t.Fatal(err)
	}

	s, f, err := r.Settings(filepath.Join(root, "a/x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Path, filepath.Join(root, "sessionls.toml"); got != want {
		t.Fatalf("f.Path = %v, want %v", got, want)
	}
	if got := s.Budget.V; got != int64(1000) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(1000))
	}
	if got := s.Budget.Source.String(); got != "sessionls.toml:1:1" {
		t.Fatalf("s.Budget.Source.String() = %q, want %q", got, "sessionls.toml:1:1")
	}

	// The closest file wins, whole: parents are not merged. In one
	// directory .sessionls.toml beats sessionls.toml, as .ruff.toml beats
	// ruff.toml.
	s, _, err = r.Settings(filepath.Join(root, "b/c/d/x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Budget.V; got != int64(3000) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(3000))
	}
	if got, want := s.Budget.Source.String(), filepath.Join("b", ".sessionls.toml")+":1:1"; got != want {
		t.Fatalf("s.Budget.Source.String() = %v, want %v", got, want)
	}

	s, _, err = r.Settings(filepath.Join(root, "e/x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Strict.V {
		t.Fatal("s.Strict.V = false, want true")
	}
	if got := s.Budget.V; got != 0 {
		t.Fatalf("the parent's budget does not leak in: s.Budget.V = %v, want 0", got)
	}

	_, _, err = r.Settings(filepath.Join(root, "bad/x.jsonl"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join("bad", "sessionls.toml")+":1:10: budget") {
		t.Fatalf("got error %v, want one containing %q", err, filepath.Join("bad", "sessionls.toml")+":1:10: budget")
	}
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatal("errors.As(err, &fe) = false, want true")
	}
	if got, want := fe.Path, filepath.Join(root, "bad", "sessionls.toml"); got != want {
		t.Fatalf("fe.Path = %v, want %v", got, want)
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatal("errors.As(err, &es) = false, want true")
	}

	abs, err := NewResolver(Options{Cwd: root, AbsoluteNames: true})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err = abs.Settings(filepath.Join(root, "a/x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Budget.Source.String(), filepath.Join(root, "sessionls.toml")+":1:1"; got != want {
		t.Fatalf("s.Budget.Source.String() = %v, want %v", got, want)
	}

	// A directory named sessionls.toml is not a configuration.
	_, _, err = r.Settings(filepath.Join(root, "dir/sessionls.toml/x.json"))
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("got error %v, want one containing %q", err, "not a regular file")
	}

	// Cached per directory: a change is seen only after Forget.
	if err := os.WriteFile(filepath.Join(root, "sessionls.toml"), []byte("budget = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, _ = r.Settings(filepath.Join(root, "a/x.jsonl"))
	if got := s.Budget.V; got != int64(1000) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(1000))
	}
	r.Forget()
	s, _, _ = r.Settings(filepath.Join(root, "a/x.jsonl"))
	if got := s.Budget.V; got != int64(5) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(5))
	}

	// Relative paths start from Cwd.
	s, _, err = r.Settings("b/c/d/x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Budget.V; got != int64(3000) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(3000))
	}
}

func TestExplicitAndIsolated(t *testing.T) {
	root := testtree.Write(t, map[string]string{
		"sessionls.toml":       "budget = 1000\n",
		"conf/one.toml":        "budget = 7\n[[overrides]]\nfiles = ['sub/*.jsonl']\nbudget = 9\n",
		"sub/sessionls.toml":   "budget = 2000\n",
		"sub/x.jsonl":          "",
		"broken/strange.toml":  "[[",
		"conf/not-a-file.toml": "",
	})
	r, err := NewResolver(Options{Cwd: root, ConfigFile: "conf/one.toml"})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := r.Settings(filepath.Join(root, "sub/x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The one file for everything; its globs are relative to Cwd.
	if got := s.Budget.V; got != int64(9) {
		t.Fatalf("s.Budget.V = %v, want %v", got, int64(9))
	}
	if got, want := s.Config, filepath.Join("conf", "one.toml"); got != want {
		t.Fatalf("s.Config = %v, want %v", got, want)
	}

	_, err = NewResolver(Options{Cwd: root, ConfigFile: "broken/strange.toml"})
	if err == nil || !strings.Contains(err.Error(), filepath.Join("broken", "strange.toml")+":1:") {
		t.Fatalf("got error %v, want one containing %q", err, filepath.Join("broken", "strange.toml")+":1:")
	}
	_, err = NewResolver(Options{Cwd: root, ConfigFile: "missing.toml"})
	if err == nil || !strings.Contains(err.Error(), "cannot read configuration missing.toml") {
		t.Fatalf("got error %v, want one containing %q", err, "cannot read configuration missing.toml")
	}

	r, err = NewResolver(Options{Cwd: root, Isolated: true, ConfigFile: "broken/strange.toml"})
	if err != nil {
		t.Fatal(err)
	}
	s, f, err := r.Settings(filepath.Join(root, "sub/x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		t.Fatalf("f = %v, want nil", f)
	}
	if got := s.Budget.V; got != 0 {
		t.Fatalf("s.Budget.V = %v, want 0", got)
	}
	if got := s.Config; got != "" {
		t.Fatalf("s.Config = %q, want %q", got, "")
	}
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
			if !errors.As(err, &es) {
				t.Fatalf("%T: errors.As(err, &es) = false, want true", err)
			}
			if len(es) == 0 {
				t.Fatal("es is empty, want some")
			}
			for _, e := range es {
				if got := e.Line; got < 1 {
					t.Fatalf("e.Line = %v, want >= %v", got, 1)
				}
				if got := e.Col; got < 1 {
					t.Fatalf("e.Col = %v, want >= %v", got, 1)
				}
			}
			return
		}
		s := Defaults()
		file.Apply(&s, "/p/a/b.jsonl")
		file.Selects("/p/a/b.jsonl")
	})
}

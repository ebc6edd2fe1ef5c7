package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
)

// TestSettingTableIsConsistent: every entry has a field of its kind's
// type, a default its own validation accepts, and names no other entry
// uses (in the file, on the command line, in editors, old spellings
// included).
func TestSettingTableIsConsistent(t *testing.T) {
	seen := map[string]string{}
	unique := func(where, name, key string) {
		t.Helper()
		if other, ok := seen[where+name]; ok {
			t.Errorf("%s %s names both %s and %s", where, name, other, key)
		}
		seen[where+name] = key
	}
	for _, d := range SettingTable() {
		if d.field == nil {
			t.Fatalf("%s: d.field is nil", d.Key)
		}
		if len(d.Doc) == 0 {
			t.Fatalf("%s: d.Doc is empty, want some", d.Key)
		}
		unique("key ", d.Key, d.Key)
		for _, f := range d.FlagNames() {
			unique("flag ", f, d.Key)
		}
		for _, e := range d.EditorNames() {
			unique("editor ", e, d.Key)
		}
		var s Settings
		switch d.Kind {
		case KindChars, KindTokens:
			if _, ok := d.Default.(int64); !ok {
				t.Fatalf("%s: default %T, want int64", d.Key, d.Default)
			}
		case KindBool:
			if _, ok := d.Default.(bool); !ok {
				t.Fatalf("%s: default %T, want bool", d.Key, d.Default)
			}
		case KindEnum:
			if _, ok := d.Default.(string); !ok {
				t.Fatalf("%s: default %T, want string", d.Key, d.Default)
			}
			if !slices.Contains(d.ValueNames(), d.Default.(string)) {
				t.Fatalf("%s: default %q, want one of %q", d.Key, d.Default, d.ValueNames())
			}
		case KindCodes, KindGlobs:
			if _, ok := d.Default.([]string); !ok {
				t.Fatalf("%s: default %T, want []string", d.Key, d.Default)
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: setting the default panics: %v", d.Key, r)
				}
			}()
			d.field(&s).set(d.Default, Source{})
		}()
	}
}

func TestDefaultsAndFields(t *testing.T) {
	s := Defaults()
	if got := s.Tokenizer.V; got != "o200k_base" {
		t.Errorf("s.Tokenizer.V = %q, want %q", got, "o200k_base")
	}
	if got, want := s.Files.V, []string{"**/*.jsonl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("s.Files.V = %v, want %v", got, want)
	}
	if got, want := s.Disable.V, []string{}; !reflect.DeepEqual(got, want) {
		t.Errorf("s.Disable.V = %v, want %v", got, want)
	}
	if got, want := s.Budget.Source.Kind, FromDefault; got != want {
		t.Errorf("s.Budget.Source.Kind = %v, want %v", got, want)
	}
	s.Files.V[0] = "changed"
	if got, want := Defaults().Files.V, []string{"**/*.jsonl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("each Settings has its own lists: Defaults().Files.V = %v, want %v", got, want)
	}

	var keys []string
	for _, f := range Defaults().Fields() {
		keys = append(keys, f.Key)
	}
	// What `sessionls config` printed before the table, in that order; the
	// settings added since come before the globs.
	if got, want := keys[:5], []string{"budget", "disable", "strict", "tokenizer", "max-tokens"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys[:5] = %v, want %v", got, want)
	}
	if got, want := keys[len(keys)-2:], []string{"files", "exclude"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys[len(keys)-2:] = %v, want %v", got, want)
	}
	if slices.Contains(keys, "tokens") {
		t.Errorf("editor-only settings are not the file's: got %q, want it not to contain %q", keys, "tokens")
	}
}

// TestEditorSettings: the editors' names and old spellings, the values
// they send for "unset", and the errors, which name the setting as the
// editor wrote it.
func TestEditorSettings(t *testing.T) {
	l, errs := ParseEditor(map[string]any{
		"budget":    "8,000",
		"checks":    []any{"swept-message", "nope", "swept-message"},
		"files":     []any{"*.log"},
		"tokens":    true,
		"tokenizer": "cl100k_base",
		"strict":    true, // not an editor setting: ignored
	})
	if got := len(errs); got != 1 {
		t.Fatalf("len(errs) = %d, want %d", got, 1)
	}
	if !strings.Contains(errs[0].Error(), `sessionls.checks: unknown check "nope" (known: `) {
		t.Errorf("got %q, want it to contain %q", errs[0].Error(), `sessionls.checks: unknown check "nope" (known: `)
	}
	for key, want := range map[string]any{
		"budget": int64(8000), "disable": []string{"swept-message"}, "files": []string{"*.log"},
		"tokens": true, "tokenizer": "cl100k_base",
	} {
		got, ok := l.Get(key)
		if !ok {
			t.Errorf("%s: ok = false, want true", key)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", key, got, want)
		}
	}
	_, ok := l.Get("strict")
	if ok {
		t.Error("ok = true, want false")
	}

	// The canonical name wins over the old spelling.
	l, errs = ParseEditor(map[string]any{"checks": []any{"swept-message"}, "disable": []any{"invalid-json"}})
	if len(errs) != 0 {
		t.Fatalf("errs = %v, want empty", errs)
	}
	got, _ := l.Get("disable")
	if want := []string{"invalid-json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}

	// null: no budget (0); other nulls are no value.
	l, errs = ParseEditor(map[string]any{"budget": nil, "disable": nil, "tokenizer": nil})
	if len(errs) != 0 {
		t.Fatalf("errs = %v, want empty", errs)
	}
	got, ok = l.Get("budget")
	if !ok {
		t.Error("ok = false, want true")
	}
	if got != int64(0) {
		t.Errorf("got = %v, want %v", got, int64(0))
	}
	_, ok = l.Get("disable")
	if ok {
		t.Error("ok = true, want false")
	}

	_, errs = ParseEditor(map[string]any{
		"budget": -1.0, "disable": "x", "files": []any{"["}, "tokens": "yes", "tokenizer": "gpt2",
	})
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	if got, want := msgs, []string{
		"sessionls.budget: -1: not a positive whole number",
		`sessionls.disable: want an array of strings, got "x"`,
		msgs[2], // the glob library's words
		`sessionls.tokens: want true or false, got "yes"`,
		`sessionls.tokenizer: unknown tokenizer "gpt2" (want o200k_base or cl100k_base)`,
	}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if !strings.Contains(msgs[2], "sessionls.files: ") {
		t.Errorf("got %q, want it to contain %q", msgs[2], "sessionls.files: ")
	}
	if !slices.Contains(EditorKeys(), "checks") {
		t.Error(`slices.Contains(EditorKeys(), "checks") = false, want true`)
	}
}

// TestPrecedence is the one rule: defaults < file < [[overrides]] <
// editor settings the user set < flags, each value with its source.
func TestPrecedence(t *testing.T) {
	f, err := Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte(`budget = 500
disable = ["swept-message"]
tokenizer = "cl100k_base"
[[overrides]]
files = ["ci/**"]
budget = 70
`))
	if err != nil {
		t.Fatal(err)
	}
	base := func(path string) Settings {
		s := Defaults()
		f.Apply(&s, path)
		return s
	}

	// An editor's unset values (0, [], "") defer to the file.
	editor, errs := ParseEditor(map[string]any{"budget": nil, "checks": []any{}, "tokens": false})
	if len(errs) != 0 {
		t.Fatalf("errs = %v, want empty", errs)
	}
	s := base("/p/a.jsonl")
	s.Layer(editor)
	if got := s.Budget.V; got != int64(500) {
		t.Errorf("s.Budget.V = %v, want %v", got, int64(500))
	}
	if got := s.Budget.Source.String(); got != "sessionls.toml:1:1" {
		t.Errorf("s.Budget.Source.String() = %q, want %q", got, "sessionls.toml:1:1")
	}
	if got, want := s.Disable.V, []string{"swept-message"}; !reflect.DeepEqual(got, want) {
		t.Errorf("s.Disable.V = %v, want %v", got, want)
	}
	if got := s.Tokenizer.V; got != "cl100k_base" {
		t.Errorf("s.Tokenizer.V = %q, want %q", got, "cl100k_base")
	}

	// Set ones win over the file and its overrides.
	editor2, _ := ParseEditor(map[string]any{"budget": 9.0, "checks": []any{"invalid-json"}})
	editor = editor.Merge(editor2)
	s = base("/p/ci/a.jsonl")
	if got := s.Budget.V; got != int64(70) {
		t.Errorf("s.Budget.V = %v, want %v", got, int64(70))
	}
	s.Layer(editor)
	if got := s.Budget.V; got != int64(9) {
		t.Errorf("s.Budget.V = %v, want %v", got, int64(9))
	}
	if got := s.Budget.Source.String(); got != "editor setting sessionls.budget" {
		t.Errorf("s.Budget.Source.String() = %q, want %q", got, "editor setting sessionls.budget")
	}
	if got := s.Disable.Source.String(); got != "editor setting sessionls.checks" {
		t.Errorf("s.Disable.Source.String() = %q, want %q", got, "editor setting sessionls.checks")
	}
	if got, want := s.Options(), (analysis.Options{Budget: 9, Disabled: map[string]bool{"invalid-json": true}}); !reflect.DeepEqual(got, want) {
		t.Errorf("s.Options() = %v, want %v", got, want)
	}

	// A flag wins whatever its value.
	flags := FlagLayer()
	flags.Set("budget", int64(0), "--max-tokens")
	flags.Set("disable", []string{}, "--disable")
	s.Layer(flags)
	if got := s.Budget.V; got != int64(0) {
		t.Errorf("s.Budget.V = %v, want %v", got, int64(0))
	}
	if got := s.Budget.Source.String(); got != "flag --max-tokens" {
		t.Errorf("s.Budget.Source.String() = %q, want %q", got, "flag --max-tokens")
	}
	if got, want := s.Disable.V, []string{}; !reflect.DeepEqual(got, want) {
		t.Errorf("s.Disable.V = %v, want %v", got, want)
	}
	if got, want := s.Options(), (analysis.Options{}); !reflect.DeepEqual(got, want) {
		t.Errorf("s.Options() = %v, want %v", got, want)
	}
}

// TestDialect is the setting added through the table alone: the file, its
// [[overrides]], editors and the flag set it, and `sessionls config` lists
// it. Its default is auto: detected per file.
func TestDialect(t *testing.T) {
	f, err := Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte("dialect = \"seed\"\n[[overrides]]\nfiles = [\"x/**\"]\ndialect = \"claude-code\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := Defaults()
	if got := s.Dialect.V; got != "auto" {
		t.Errorf("s.Dialect.V = %q, want %q", got, "auto")
	}
	if got := s.Dialect.Source.String(); got != "default" {
		t.Errorf("s.Dialect.Source.String() = %q, want %q", got, "default")
	}
	f.Apply(&s, "/p/y/a.jsonl")
	if got := s.Dialect.V; got != "seed" {
		t.Errorf("s.Dialect.V = %q, want %q", got, "seed")
	}
	if got := s.Dialect.Source.String(); got != "sessionls.toml:1:1" {
		t.Errorf("s.Dialect.Source.String() = %q, want %q", got, "sessionls.toml:1:1")
	}
	f.Apply(&s, "/p/x/a.jsonl")
	if got := s.Dialect.V; got != "claude-code" {
		t.Errorf("s.Dialect.V = %q, want %q", got, "claude-code")
	}
	if got := s.Dialect.Source.String(); got != "sessionls.toml:4:1 ([[overrides]] #1)" {
		t.Errorf("s.Dialect.Source.String() = %q, want %q", got, "sessionls.toml:4:1 ([[overrides]] #1)")
	}

	for _, v := range []string{"auto", "seed", "claude-code", "codex"} {
		_, err = Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte("dialect = \""+v+"\"\n"))
		if err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	_, err = Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte("dialect = \"claude\"\n"))
	if err == nil || err.Error() != `sessionls.toml:1:11: dialect: want one of "auto", "seed", "claude-code", "codex", got "claude" (did you mean "claude-code"?)` {
		t.Errorf("got error %v, want %q", err, `sessionls.toml:1:11: dialect: want one of "auto", "seed", "claude-code", "codex", got "claude" (did you mean "claude-code"?)`)
	}

	l, errs := ParseEditor(map[string]any{"dialect": "codex"})
	if len(errs) != 0 {
		t.Fatalf("errs = %v, want empty", errs)
	}
	s.Layer(l)
	if got := s.Dialect.V; got != "codex" {
		t.Errorf("s.Dialect.V = %q, want %q", got, "codex")
	}
	if got := s.Dialect.Source.String(); got != "editor setting sessionls.dialect" {
		t.Errorf("s.Dialect.Source.String() = %q, want %q", got, "editor setting sessionls.dialect")
	}
	_, errs = ParseEditor(map[string]any{"dialect": "other"})
	if errs[0] == nil || errs[0].Error() != `sessionls.dialect: unknown dialect "other" (want auto, seed, claude-code or codex)` {
		t.Errorf("got error %v, want %q", errs[0], `sessionls.dialect: unknown dialect "other" (want auto, seed, claude-code or codex)`)
	}

	flags := FlagLayer()
	flags.Set("dialect", "seed", "--dialect")
	s.Layer(flags)
	if got := s.Dialect.V; got != "seed" {
		t.Errorf("s.Dialect.V = %q, want %q", got, "seed")
	}
	if got := s.Dialect.Source.String(); got != "flag --dialect" {
		t.Errorf("s.Dialect.Source.String() = %q, want %q", got, "flag --dialect")
	}

	var keys []string
	for _, fd := range s.Fields() {
		keys = append(keys, fd.Key)
	}
	if !slices.Contains(keys, "dialect") {
		t.Errorf("got %q, want it to contain %q", keys, "dialect")
	}
}

// TestPackOptions: characters win over tokens when both are set (in the
// file); a flag for one kind clears the other, so the flag's kind applies.
func TestPackOptions(t *testing.T) {
	s := Defaults()
	if got, want := s.PackOptions(), (analysis.Options{}); !reflect.DeepEqual(got, want) {
		t.Errorf("s.PackOptions() = %v, want %v", got, want)
	}
	s.Budget.V, s.MaxTokens.V = 500, 40
	if got, want := s.PackOptions(), (analysis.Options{Budget: 500}); !reflect.DeepEqual(got, want) {
		t.Errorf("s.PackOptions() = %v, want %v", got, want)
	}
	flags := FlagLayer()
	flags.Set("max-tokens", int64(30), "--max-tokens")
	flags.Set("budget", int64(0), "--max-tokens")
	s.Layer(flags)
	if got, want := s.PackOptions(), (analysis.Options{TokenBudget: 30}); !reflect.DeepEqual(got, want) {
		t.Errorf("s.PackOptions() = %v, want %v", got, want)
	}
}

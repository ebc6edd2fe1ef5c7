package config

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		require.NotNil(t, d.field, d.Key)
		require.NotEmpty(t, d.Doc, d.Key)
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
			require.IsType(t, int64(0), d.Default, d.Key)
		case KindBool:
			require.IsType(t, false, d.Default, d.Key)
		case KindEnum:
			require.IsType(t, "", d.Default, d.Key)
			require.Contains(t, d.ValueNames(), d.Default, d.Key)
		case KindCodes, KindGlobs:
			require.IsType(t, []string{}, d.Default, d.Key)
		}
		require.NotPanics(t, func() { d.field(&s).set(d.Default, Source{}) }, d.Key)
	}
}

func TestDefaultsAndFields(t *testing.T) {
	s := Defaults()
	assert.Equal(t, "o200k_base", s.Tokenizer.V)
	assert.Equal(t, []string{"**/*.jsonl"}, s.Files.V)
	assert.Equal(t, []string{}, s.Disable.V)
	assert.Equal(t, FromDefault, s.Budget.Source.Kind)
	s.Files.V[0] = "changed"
	assert.Equal(t, []string{"**/*.jsonl"}, Defaults().Files.V, "each Settings has its own lists")

	var keys []string
	for _, f := range Defaults().Fields() {
		keys = append(keys, f.Key)
	}
	// What `sessionls config` printed before the table, in that order; the
	// settings added since come before the globs.
	assert.Equal(t, []string{"budget", "disable", "strict", "tokenizer", "max-tokens"}, keys[:5])
	assert.Equal(t, []string{"files", "exclude"}, keys[len(keys)-2:])
	assert.NotContains(t, keys, "tokens", "editor-only settings are not the file's")
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
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), `sessionls.checks: unknown check "nope" (known: `)
	for key, want := range map[string]any{
		"budget": int64(8000), "disable": []string{"swept-message"}, "files": []string{"*.log"},
		"tokens": true, "tokenizer": "cl100k_base",
	} {
		got, ok := l.Get(key)
		assert.True(t, ok, key)
		assert.Equal(t, want, got, key)
	}
	_, ok := l.Get("strict")
	assert.False(t, ok)

	// The canonical name wins over the old spelling.
	l, errs = ParseEditor(map[string]any{"checks": []any{"swept-message"}, "disable": []any{"invalid-json"}})
	require.Empty(t, errs)
	got, _ := l.Get("disable")
	assert.Equal(t, []string{"invalid-json"}, got)

	// null: no budget (0); other nulls are no value.
	l, errs = ParseEditor(map[string]any{"budget": nil, "disable": nil, "tokenizer": nil})
	require.Empty(t, errs)
	got, ok = l.Get("budget")
	assert.True(t, ok)
	assert.Equal(t, int64(0), got)
	_, ok = l.Get("disable")
	assert.False(t, ok)

	_, errs = ParseEditor(map[string]any{
		"budget": -1.0, "disable": "x", "files": []any{"["}, "tokens": "yes", "tokenizer": "gpt2",
	})
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	assert.Equal(t, []string{
		"sessionls.budget: -1: not a positive whole number",
		`sessionls.disable: want an array of strings, got "x"`,
		msgs[2], // the glob library's words
		`sessionls.tokens: want true or false, got "yes"`,
		`sessionls.tokenizer: unknown tokenizer "gpt2" (want o200k_base or cl100k_base)`,
	}, msgs)
	assert.Contains(t, msgs[2], "sessionls.files: ")
	assert.True(t, slices.Contains(EditorKeys(), "checks"))
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
	require.NoError(t, err)
	base := func(path string) Settings {
		s := Defaults()
		f.Apply(&s, path)
		return s
	}

	// An editor's unset values (0, [], "") defer to the file.
	editor, errs := ParseEditor(map[string]any{"budget": nil, "checks": []any{}, "tokens": false})
	require.Empty(t, errs)
	s := base("/p/a.jsonl")
	s.Layer(editor)
	assert.Equal(t, int64(500), s.Budget.V)
	assert.Equal(t, "sessionls.toml:1:1", s.Budget.Source.String())
	assert.Equal(t, []string{"swept-message"}, s.Disable.V)
	assert.Equal(t, "cl100k_base", s.Tokenizer.V)

	// Set ones win over the file and its overrides.
	editor2, _ := ParseEditor(map[string]any{"budget": 9.0, "checks": []any{"invalid-json"}})
	editor = editor.Merge(editor2)
	s = base("/p/ci/a.jsonl")
	assert.Equal(t, int64(70), s.Budget.V)
	s.Layer(editor)
	assert.Equal(t, int64(9), s.Budget.V)
	assert.Equal(t, "editor setting sessionls.budget", s.Budget.Source.String())
	assert.Equal(t, "editor setting sessionls.checks", s.Disable.Source.String())
	assert.Equal(t, analysis.Options{Budget: 9, Disabled: map[string]bool{"invalid-json": true}}, s.Options())

	// A flag wins whatever its value.
	flags := FlagLayer()
	flags.Set("budget", int64(0), "--max-tokens")
	flags.Set("disable", []string{}, "--disable")
	s.Layer(flags)
	assert.Equal(t, int64(0), s.Budget.V)
	assert.Equal(t, "flag --max-tokens", s.Budget.Source.String())
	assert.Equal(t, []string{}, s.Disable.V)
	assert.Equal(t, analysis.Options{}, s.Options())
}

// TestDialect is the setting added through the table alone: the file, its
// [[overrides]], editors and the flag set it, and `sessionls config` lists
// it. Its default is auto: detected per file.
func TestDialect(t *testing.T) {
	f, err := Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte("dialect = \"seed\"\n[[overrides]]\nfiles = [\"x/**\"]\ndialect = \"claude-code\"\n"))
	require.NoError(t, err)
	s := Defaults()
	assert.Equal(t, "auto", s.Dialect.V)
	assert.Equal(t, "default", s.Dialect.Source.String())
	f.Apply(&s, "/p/y/a.jsonl")
	assert.Equal(t, "seed", s.Dialect.V)
	assert.Equal(t, "sessionls.toml:1:1", s.Dialect.Source.String())
	f.Apply(&s, "/p/x/a.jsonl")
	assert.Equal(t, "claude-code", s.Dialect.V)
	assert.Equal(t, "sessionls.toml:4:1 ([[overrides]] #1)", s.Dialect.Source.String())

	for _, v := range []string{"auto", "seed", "claude-code", "codex"} {
		_, err = Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte("dialect = \""+v+"\"\n"))
		assert.NoError(t, err, v)
	}
	_, err = Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte("dialect = \"claude\"\n"))
	assert.EqualError(t, err, `sessionls.toml:1:11: dialect: want one of "auto", "seed", "claude-code", "codex", got "claude" (did you mean "claude-code"?)`)

	l, errs := ParseEditor(map[string]any{"dialect": "codex"})
	require.Empty(t, errs)
	s.Layer(l)
	assert.Equal(t, "codex", s.Dialect.V)
	assert.Equal(t, "editor setting sessionls.dialect", s.Dialect.Source.String())
	_, errs = ParseEditor(map[string]any{"dialect": "other"})
	assert.EqualError(t, errs[0], `sessionls.dialect: unknown dialect "other" (want auto, seed, claude-code or codex)`)

	flags := FlagLayer()
	flags.Set("dialect", "seed", "--dialect")
	s.Layer(flags)
	assert.Equal(t, "seed", s.Dialect.V)
	assert.Equal(t, "flag --dialect", s.Dialect.Source.String())

	var keys []string
	for _, fd := range s.Fields() {
		keys = append(keys, fd.Key)
	}
	assert.Contains(t, keys, "dialect")
}

// TestPackOptions: characters win over tokens when both are set (in the
// file); a flag for one kind clears the other, so the flag's kind applies.
func TestPackOptions(t *testing.T) {
	s := Defaults()
	assert.Equal(t, analysis.Options{}, s.PackOptions())
	s.Budget.V, s.MaxTokens.V = 500, 40
	assert.Equal(t, analysis.Options{Budget: 500}, s.PackOptions())
	flags := FlagLayer()
	flags.Set("max-tokens", int64(30), "--max-tokens")
	flags.Set("budget", int64(0), "--max-tokens")
	s.Layer(flags)
	assert.Equal(t, analysis.Options{TokenBudget: 30}, s.PackOptions())
}

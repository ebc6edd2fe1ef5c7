// Package config reads sessionls.toml, the one configuration the CLI and the
// language server share, and resolves the settings that apply to a session
// file: defaults, then the closest configuration file's top-level keys, then
// its [[overrides]] tables whose files match (later ones win), then whatever
// the caller layers on top (CLI flags, editor settings). Every value records
// where it came from, so `sessionls config PATH` can say why a budget is
// what it is.
//
// Discovery follows ruff: for a file, the closest directory at or above it
// holding .sessionls.toml or sessionls.toml (the dotted name wins when both
// are there, as ruff's .ruff.toml beats ruff.toml); parents are not merged.
// Globs in a file are relative to its directory.
package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// File names, in order of precedence within one directory.
const (
	DotName = ".sessionls.toml"
	Name    = "sessionls.toml"
)

// MaxFileSize bounds a configuration file: anything larger is refused
// before it is parsed.
const MaxFileSize = 1 << 20

// Tokenizers are the values the tokenizer key accepts; the first is the
// default.
var tokenizers = []string{"o200k_base", "cl100k_base"}

// Tokenizers returns the accepted tokenizer names, the default first.
func Tokenizers() []string { return slices.Clone(tokenizers) }

// DefaultFiles are the globs that name session files when no configuration
// says otherwise.
func DefaultFiles() []string { return []string{"**/*.jsonl"} }

// SourceKind says which layer a setting came from.
type SourceKind int

const (
	FromDefault  SourceKind = iota
	FromFile                // a top-level key of a configuration file
	FromOverride            // a key of an [[overrides]] table
	FromFlag                // a command-line flag
	FromEditor              // an editor setting (language server)
)

func (k SourceKind) String() string {
	switch k {
	case FromFile:
		return "file"
	case FromOverride:
		return "override"
	case FromFlag:
		return "flag"
	case FromEditor:
		return "editor"
	}
	return "default"
}

// Source is where one effective value came from.
type Source struct {
	Kind SourceKind
	// File, Line, Col: the key in the configuration file (FromFile,
	// FromOverride). Line and Col are 1-based; Col counts characters.
	File      string
	Line, Col int
	// Override is the 1-based index of the [[overrides]] table.
	Override int
	// Name is the flag ("--budget") or the editor setting
	// ("sessionls.budget").
	Name string
}

// Flag is the source of a value given by a command-line flag.
func Flag(name string) Source { return Source{Kind: FromFlag, Name: name} }

// Editor is the source of a value given by an editor setting.
func Editor(name string) Source { return Source{Kind: FromEditor, Name: name} }

func (s Source) String() string {
	switch s.Kind {
	case FromFile:
		return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
	case FromOverride:
		return fmt.Sprintf("%s:%d:%d ([[overrides]] #%d)", s.File, s.Line, s.Col, s.Override)
	case FromFlag:
		return "flag " + s.Name
	case FromEditor:
		return "editor setting " + s.Name
	}
	return "default"
}

// Value is one effective setting and its source.
type Value[T any] struct {
	V      T
	Source Source
}

// Set replaces the value, recording its new source.
func (v *Value[T]) Set(x T, src Source) {
	v.V = x
	v.Source = src
}

// Settings are the effective settings for one session file.
type Settings struct {
	// Budget in characters; 0: none.
	Budget Value[int64]
	// Disable lists the finding codes turned off, sorted.
	Disable Value[[]string]
	// Strict: warnings fail `check` too.
	Strict Value[bool]
	// Tokenizer names the encoding token counts use.
	Tokenizer Value[string]
	// MaxTokens is a budget in tokens; 0: none.
	MaxTokens Value[int64]
	// Files and Exclude are the globs that say which files are session
	// files when a directory is searched (relative to Config's directory).
	Files   Value[[]string]
	Exclude Value[[]string]
	// Config is the configuration file that applied ("" for none).
	Config string
}

// Defaults are the settings without any configuration.
func Defaults() Settings {
	return Settings{
		Disable:   Value[[]string]{V: []string{}},
		Tokenizer: Value[string]{V: tokenizers[0]},
		Files:     Value[[]string]{V: DefaultFiles()},
		Exclude:   Value[[]string]{V: []string{}},
	}
}

// Disabled returns Disable as a set, as analysis.Options wants it (nil
// when empty).
func (s Settings) Disabled() map[string]bool {
	if len(s.Disable.V) == 0 {
		return nil
	}
	m := make(map[string]bool, len(s.Disable.V))
	for _, c := range s.Disable.V {
		m[c] = true
	}
	return m
}

// Field is one setting of a Settings, for printing them all.
type Field struct {
	Key    string // the TOML key
	Value  any    // int64, bool, string or []string
	Source Source
}

// Fields lists every setting in the order the file documents them.
func (s Settings) Fields() []Field {
	return []Field{
		{"budget", s.Budget.V, s.Budget.Source},
		{"disable", s.Disable.V, s.Disable.Source},
		{"strict", s.Strict.V, s.Strict.Source},
		{"tokenizer", s.Tokenizer.V, s.Tokenizer.Source},
		{"max-tokens", s.MaxTokens.V, s.MaxTokens.Source},
		{"files", s.Files.V, s.Files.Source},
		{"exclude", s.Exclude.V, s.Exclude.Source},
	}
}

// FormatValue renders a setting's value the way the TOML file writes it.
func FormatValue(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return strconv.Quote(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprint(v)
}

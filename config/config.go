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

package config

import (
	"slices"

	"github.com/sessionls/sessionls/analysis"
)

// The settings, declared once. Everything about a setting that more than
// one place needs is here: its key in sessionls.toml, its name in editors
// (sessionls.<name>) and on the command line, the old spellings still
// accepted, what values it takes, its default and its documentation. From
// this table come the file's validation (parse.go), the editors' settings
// (ParseEditor), the command line's flags (FlagCommands, FlagUsage,
// ParseFlag: cli registers them), the one precedence rule
// (Settings.Layer), the engine's options (Settings.Options), and, through
// tools/gendocs, the JSON schema, VS Code's contributes.configuration and
// the README's settings table.
//
// To add a setting: a field in Settings and an entry in settingTable, then
// `go generate ./...`.

// Settings are the effective settings for one session file.
type Settings struct {
	// Budget in characters; 0: none.
	Budget Value[int64]
	// Disable lists the finding codes turned off, sorted.
	Disable Value[[]string]
	// Strict: warnings fail `check` too.
	Strict Value[bool]
	// Files and Exclude are the globs that say which files are session
	// files when a directory is searched (relative to Config's directory).
	Files   Value[[]string]
	Exclude Value[[]string]
	// Tokens: the editor's unit lenses show token counts (editors only).
	Tokens Value[bool]
	// Tokenizer names the encoding token counts use.
	Tokenizer Value[string]
	// MaxTokens is a budget in tokens; 0: none.
	MaxTokens Value[int64]
	// Dialect names the session format the files are written in.
	Dialect Value[string]
	// Config is the configuration file that applied ("" for none).
	Config string
}

// settingTable is every setting, in the order the file documents them
// (error messages list keys in this order).
func settingTable() []Setting {
	return []Setting{{
		Key: "budget", Kind: KindChars, Default: int64(0),
		InFile: true, InOverride: true,
		Flag: "--budget", FlagAliases: []string{"--max-chars"}, FlagCommands: []string{"check", "budget", "trim", "map"},
		FlagDoc: "the budget `N` in characters (positive; default: the budget of the file's sessionls.toml)",
		Editor:  "budget",
		Doc:     "Character budget: where trimContext cuts (budget-cutoff) or that it throws (budget-exceeded).",
		EditorDoc: "Context budget in characters (`JSON.stringify` length, as the agent runtime counts). " +
			"When set, a code lens shows where the runtime's `trimContext` cuts the session. `null` means no budget.",
		field: func(s *Settings) slot { return &s.Budget },
	}, {
		Key: "disable", Kind: KindCodes, Default: []string{},
		InFile: true, InOverride: true,
		Flag: "--disable", FlagCommands: []string{"check"},
		FlagDoc: "turn off finding `CODES` (comma-separated, repeatable)",
		Editor:  "disable", EditorAliases: []string{"checks"}, VSCodeName: "checks",
		Doc:       "Finding codes to turn off.",
		EditorDoc: "Diagnostic codes to turn off.",
		field:     func(s *Settings) slot { return &s.Disable },
	}, {
		Key: "strict", Kind: KindBool, Default: false,
		InFile: true, InOverride: true,
		Flag: "--strict", FlagCommands: []string{"check"},
		FlagDoc: "fail (exit 1) on warnings too",
		Doc:     "Fail (exit 1) on warnings too, as `check --strict`.",
		field:   func(s *Settings) slot { return &s.Strict },
	}, {
		Key: "files", Kind: KindGlobs, Default: DefaultFiles(),
		InFile: true, InOverride: true,
		Editor: "files",
		Doc: "Globs naming the session files when a directory is searched, relative to this file's directory; " +
			"one without '/' matches a file name at any depth. In [[overrides]]: the files the table applies to.",
		EditorDoc: "Glob patterns of the session files the server analyses (`.jsonl` files by default), e.g. add `**/sessions/*.log`. " +
			"Files of the `jsonl` language are always sent to the server. Changing it restarts the client.",
		field: func(s *Settings) slot { return &s.Files },
	}, {
		Key: "exclude", Kind: KindGlobs, Default: []string{},
		InFile: true,
		Doc: "Globs of files and directories that are not session files, relative to this file's directory; " +
			"a matching directory excludes everything under it. Files named on the command line are always checked.",
		field: func(s *Settings) slot { return &s.Exclude },
	}, {
		Key: "tokens", Kind: KindBool, Default: false,
		Editor: "tokens",
		Doc:    "Lenses show tokens beside characters: each unit's, the file's (Σ) and the kept units' (✂), resolved when a lens is shown.",
		EditorDoc: "Show token counts beside the character costs in the unit lenses (`1,234 chars · ≈ 310 tokens · …`), the Σ and ✂ lenses " +
			"(the file's and the kept units' tokens), the status and the hover. " +
			"Counted when a lens is shown (`codeLens/resolve`), with `#sessionls.tokenizer#`.",
		field: func(s *Settings) slot { return &s.Tokens },
	}, {
		Key: "tokenizer", Kind: KindEnum, Default: tokenizers[0],
		Values: []EnumValue{
			{tokenizers[0], "GPT-4o and later models' encoding."},
			{tokenizers[1], "GPT-4 and GPT-3.5 models' encoding."},
		},
		InFile: true, InOverride: true,
		Flag: "--tokenizer", FlagCommands: []string{"budget", "trim", "map"},
		FlagDoc: "the `ENCODING` tokens are counted with: {values} (implies --tokens; default: the tokenizer of the file's sessionls.toml)",
		Editor:  "tokenizer",
		Doc:     "The encoding token counts use.",
		EditorDoc: "The tokenizer of the token counts. Unset (`null`): the document's `sessionls.toml` (`tokenizer`), else `" +
			tokenizers[0] + "`.",
		field: func(s *Settings) slot { return &s.Tokenizer },
	}, {
		Key: "max-tokens", Kind: KindTokens, Default: int64(0),
		InFile: true, InOverride: true,
		Flag: "--max-tokens", FlagCommands: []string{"budget", "trim", "map"},
		FlagDoc: "the budget `N` in tokens (positive; instead of --budget): units are packed by their token counts, with the same rules (default: the max-tokens of the file's sessionls.toml)",
		Doc:     "A budget in tokens, for the commands that pack by tokens (budget, trim, map).",
		field:   func(s *Settings) slot { return &s.MaxTokens },
	}, {
		Key: "dialect", Kind: KindEnum, Default: "auto",
		Values: []EnumValue{
			{"auto", "Detected per file from its first line that JSON.parse accepts (the first 4 MiB are read at most); `seed` when none is another format's."},
			{"seed", "The agent runtime's session files, as docs/semantics.md describes them."},
			{"claude-code", "Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`)."},
			{"codex", "Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)."},
		},
		InFile: true, InOverride: true,
		Flag: "--dialect", FlagCommands: []string{"check", "budget", "trim", "map"},
		FlagDoc: "the session `FORMAT` of the files: {values} (auto: each file's, detected from its first line that JSON.parse accepts; default: the dialect of the file's sessionls.toml, else auto)",
		Editor:  "dialect",
		Doc:     "The session format the files are written in (docs/semantics.md); `auto` detects each file's from its first record.",
		EditorDoc: "The session format of the documents. Unset (`null`): the document's `sessionls.toml` (`dialect`), else `auto`: " +
			"detected from the document's first line that JSON.parse accepts, and again when that line changes.",
		field: func(s *Settings) slot { return &s.Dialect },
	}}
}

// Kind is what values a setting takes.
type Kind int

const (
	KindChars  Kind = iota // a budget in characters: a whole number ≥ 1 (0: none)
	KindTokens             // a budget in tokens: a whole number ≥ 1 (0: none)
	KindEnum               // one of Setting.Values
	KindCodes              // a list of finding codes
	KindGlobs              // a list of globs
	KindBool               // true or false
)

// EnumValue is one value a KindEnum setting accepts.
type EnumValue struct {
	Name, Doc string
}

// Setting declares one setting.
type Setting struct {
	// Key is the setting's name in sessionls.toml and in `sessionls
	// config`.
	Key  string
	Kind Kind
	// Values are a KindEnum setting's values.
	Values []EnumValue
	// Default: int64, bool, string or []string by Kind.
	Default any
	// InFile, InOverride: the key may be set at the top level of the
	// file, in its [[overrides]] tables.
	InFile, InOverride bool
	// Flag is the command-line flag ("--budget"), FlagAliases its old
	// spellings, still accepted; "": no flag. FlagCommands are the
	// commands that take it (config takes check's, to show the settings as
	// check would use them); FlagDoc is its help, with "{values}" standing
	// for a KindEnum setting's values (see FlagUsage).
	Flag         string
	FlagAliases  []string
	FlagCommands []string
	FlagDoc      string
	// Editor is the editor setting's name (sessionls.<Editor>),
	// EditorAliases its old spellings, still accepted; "": editors cannot
	// set it. VSCodeName is the name VS Code's extension declares when it
	// is still an old spelling ("": Editor).
	Editor        string
	EditorAliases []string
	VSCodeName    string
	// Doc documents the setting (markdown, one or two sentences);
	// EditorDoc is what an editor's settings page says ("": Doc).
	Doc, EditorDoc string

	field func(*Settings) slot
}

// slot is a Settings field of any type.
type slot interface {
	get() (any, Source)
	set(v any, src Source)
}

func (v *Value[T]) get() (any, Source) { return v.V, v.Source }

// set stores x, which the table's kinds guarantee is a T.
func (v *Value[T]) set(x any, src Source) {
	v.V = x.(T)
	v.Source = src
}

// SettingTable returns the settings, in the order the file documents them.
func SettingTable() []Setting { return settingTable() }

// Lookup returns the setting whose TOML key is key.
func Lookup(key string) (Setting, bool) {
	for _, s := range settingTable() {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// EditorNames returns the editor setting's names, the canonical one first.
func (s Setting) EditorNames() []string {
	if s.Editor == "" {
		return nil
	}
	return append([]string{s.Editor}, s.EditorAliases...)
}

// FlagNames returns the flag's names, the canonical one first.
func (s Setting) FlagNames() []string {
	if s.Flag == "" {
		return nil
	}
	return append([]string{s.Flag}, s.FlagAliases...)
}

// ValueNames returns a KindEnum setting's values.
func (s Setting) ValueNames() []string {
	out := make([]string, len(s.Values))
	for i, v := range s.Values {
		out[i] = v.Name
	}
	return out
}

// Defaults are the settings without any configuration.
func Defaults() Settings {
	var s Settings
	for _, d := range settingTable() {
		v := d.Default
		if l, ok := v.([]string); ok {
			v = slices.Clone(l)
		}
		d.field(&s).set(v, Source{})
	}
	return s
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

// Options are the engine options the settings make: the character budget
// and the checks turned off. A token budget (MaxTokens) is the business of
// the commands that pack by tokens, which also choose the tokenizer.
func (s Settings) Options() analysis.Options {
	return analysis.Options{Budget: s.Budget.V, Disabled: s.Disabled()}
}

// PackOptions are the engine options of the commands that pack units into
// a budget (budget, trim, map): the character budget, or else the token
// budget; set at the same level (the file), characters, the runtime's own
// measure, win. The front end adds the token counter.
func (s Settings) PackOptions() analysis.Options {
	if s.Budget.V > 0 {
		return analysis.Options{Budget: s.Budget.V}
	}
	return analysis.Options{TokenBudget: s.MaxTokens.V}
}

// Field is one setting of a Settings, for printing them all.
type Field struct {
	Key    string // the TOML key
	Value  any    // int64, bool, string or []string
	Source Source
}

// Fields lists every setting a file can set, the globs last.
func (s Settings) Fields() []Field {
	var out, globs []Field
	for _, d := range settingTable() {
		if !d.InFile {
			continue
		}
		v, src := d.field(&s).get()
		if d.Kind == KindGlobs {
			globs = append(globs, Field{d.Key, v, src})
		} else {
			out = append(out, Field{d.Key, v, src})
		}
	}
	return append(out, globs...)
}

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sessionls/sessionls/config"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// configFlags select the configuration: discovery (the default), one file
// for everything (--config), or none (--isolated).
type configFlags struct {
	file     string
	isolated bool
}

func (c *configFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.file, "config", "", "use configuration `FILE` for every path (its globs are relative to the current directory) instead of the closest sessionls.toml")
	f.BoolVar(&c.isolated, "isolated", false, "ignore configuration files: defaults and flags only")
}

const configHelp = `Configuration: for each file, the closest sessionls.toml or .sessionls.toml
in its directory or above (see 'sessionls config --help'); flags override it.`

// resolver prepares configuration discovery; a bad --config file is
// reported here (exit 2).
func (c *configFlags) resolver(e *env) (*config.Resolver, error) {
	r, err := config.NewResolver(config.Options{Isolated: c.isolated, ConfigFile: c.file})
	if err != nil {
		return nil, configFailed(e, err)
	}
	return r, nil
}

// configFailed prints a configuration error, one problem a line, each
// naming file:line:col: exit 2.
func configFailed(e *env, err error) error {
	for _, line := range configErrorLines(err) {
		fmt.Fprintf(e.stderr, "sessionls: %s\n", line)
	}
	return exitError{ExitError}
}

func configErrorLines(err error) []string {
	var es config.Errors
	if errors.As(err, &es) {
		lines := make([]string, len(es))
		for i, x := range es {
			lines[i] = textfmt.Sanitize(x.Error())
		}
		return lines
	}
	return []string{textfmt.Sanitize(err.Error())}
}

// settingsFor returns the settings for one file named on the command line;
// stdin ("-") takes those of its --stdin-filename, or of a file in the
// current directory.
func settingsFor(r *config.Resolver, path string, stdin bool) (config.Settings, error) {
	if stdin && (path == "" || path == "-") {
		s := config.Defaults()
		f, err := r.ForDir(".")
		if err != nil {
			return s, err
		}
		wd, _ := os.Getwd()
		f.Apply(&s, filepath.Join(wd, "-"))
		return s, nil
	}
	s, _, err := r.Settings(path)
	return s, err
}

// configKeysHelp lists the file's keys for `config --help`, from config's
// settings table.
func configKeysHelp() string {
	const indent = "              "
	var b strings.Builder
	over := []string{}
	for _, d := range config.SettingTable() {
		if !d.InFile {
			continue
		}
		if d.InOverride && d.Key != "files" {
			over = append(over, d.Key)
		}
		text := d.Doc
		if d.Flag != "" {
			text += " Flag: " + d.Flag
			if len(d.FlagAliases) > 0 {
				text += " (old spelling: " + strings.Join(d.FlagAliases, ", ") + ")"
			}
			text += "."
		}
		b.WriteString(textfmt.Wrap(fmt.Sprintf("  %-11s ", d.Key), text, 78, indent) + "\n")
	}
	b.WriteString(textfmt.Wrap("  [[overrides]]\n"+indent, "files = [...] plus any of "+strings.Join(over, ", ")+
		", for the files the globs match; later tables win", 78, indent))
	return b.String()
}

func newConfigCmd(e *env) *cobra.Command {
	var (
		flags  *settingFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "config [flags] [PATH]",
		Short: "Show the settings that apply to a file, and where each comes from",
		Long: `Show the effective settings for PATH (a session file, or a directory for the
files in it; default: the current directory) and where each value comes
from: the default, a key of a configuration file (file:line:col), an
[[overrides]] table of it, or a flag. For a file, it also says which
dialect reads it and why: the setting's, or with auto the one detected
from its first line that JSON.parse accepts (and that line's number).

Configuration files: sessionls.toml or .sessionls.toml. For a file, the
closest directory at or above it that holds one applies, whole (parent
files are not merged; in one directory .sessionls.toml wins, as ruff's
.ruff.toml does). Keys (with their flags):

` + configKeysHelp() + `

Globs are relative to the configuration file's directory; one without "/"
matches a name at any depth. Precedence, lowest first: defaults, the
file's top-level keys, its matching [[overrides]] in order, flags. Files
named on the command line are checked even when exclude matches them.

A configuration error names file:line:col and exits 2.`,
		Example: `  sessionls config sessions/a.jsonl
  sessionls config --format json sessions/ | jq .settings.budget
  sessionls config --config ci/sessionls.toml sessions/a.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != formatText && format != formatJSON {
				return usagef("unknown --format %q (want text or json)", format)
			}
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			r, err := flags.resolver(e)
			if err != nil {
				return err
			}
			return showConfig(e, r, flags.layer(), path, format)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", formatText, "output `FORMAT`: text or json")
	flags = addSettingFlags(f, "config")
	return cmd
}

// settingJSON is one setting in `config --format json`.
type settingJSON struct {
	Value    any    `json:"value"`
	Source   string `json:"source"`
	Kind     string `json:"kind"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Override int    `json:"override,omitempty"`
	Name     string `json:"name,omitempty"`
}

type configJSON struct {
	Path        string                 `json:"path"`
	Config      *string                `json:"config"`
	SessionFile bool                   `json:"sessionFile"`
	Dialect     dialectJSON            `json:"dialect"`
	Settings    map[string]settingJSON `json:"settings"`
}

func showConfig(e *env, r *config.Resolver, flags config.Layer, path, format string) error {
	var (
		s   config.Settings
		f   *config.File
		err error
	)
	isDir := false
	if fi, statErr := os.Stat(path); statErr == nil && fi.IsDir() {
		isDir = true
	}
	if isDir {
		s = config.Defaults()
		if f, err = r.ForDir(path); err == nil {
			abs, _ := filepath.Abs(filepath.Join(path, "x.jsonl"))
			f.Apply(&s, abs)
		}
	} else {
		s, f, err = r.Settings(path)
	}
	if err != nil {
		return configFailed(e, err)
	}
	s.Layer(flags)
	sessionFile := false
	if !isDir {
		abs, _ := filepath.Abs(path)
		sessionFile = f.Selects(abs)
	}
	dj := explainDialect(s, path, isDir)
	if format == formatJSON {
		j := configJSON{Path: path, SessionFile: sessionFile, Dialect: dj, Settings: map[string]settingJSON{}}
		if s.Config != "" {
			j.Config = &s.Config
		}
		for _, fd := range s.Fields() {
			v := fd.Value
			if n, ok := v.(int64); ok && n == 0 {
				v = nil // budget and max-tokens: none
			}
			j.Settings[fd.Key] = settingJSON{Value: v, Source: fd.Source.String(), Kind: fd.Source.Kind.String(),
				File: fd.Source.File, Line: fd.Source.Line, Column: fd.Source.Col, Override: fd.Source.Override, Name: fd.Source.Name}
		}
		b, err := marshalIndent(j)
		if err != nil {
			return fmt.Errorf("encoding the settings: %w", err)
		}
		if _, err := e.stdout.Write(b); err != nil {
			return writeFailed(e, err)
		}
		return nil
	}
	var b strings.Builder
	what := "file"
	if isDir {
		what = "files in"
	}
	fmt.Fprintf(&b, "# settings for %s %s\n", what, textfmt.Sanitize(path))
	if s.Config != "" {
		fmt.Fprintf(&b, "# configuration: %s\n", textfmt.Sanitize(s.Config))
	} else {
		b.WriteString("# configuration: none\n")
	}
	if !isDir {
		if sessionFile {
			b.WriteString("# a session file by files/exclude when its directory is searched\n")
		} else {
			b.WriteString("# not a session file by files/exclude: searched directories skip it (named, it is still checked)\n")
		}
	}
	b.WriteString(textfmt.Sanitize(dj.text()) + "\n")
	rows := make([][2]string, 0, 7)
	width := 0
	for _, fd := range s.Fields() {
		line := fd.Key + " = " + config.FormatValue(fd.Value)
		if n, ok := fd.Value.(int64); ok && n == 0 {
			line = "# " + fd.Key + ": none"
		}
		line = textfmt.Sanitize(line)
		rows = append(rows, [2]string{line, textfmt.Sanitize(fd.Source.String())})
		width = max(width, len(line))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s  # %s\n", width, r[0], r[1])
	}
	if _, err := e.stdout.Write([]byte(b.String())); err != nil {
		return writeFailed(e, err)
	}
	return nil
}

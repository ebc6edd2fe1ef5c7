package cli

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sessionls/sessionls/config"
)

// settingFlags are the flags that choose a command's settings: the
// configuration's (--config, --isolated), then the flags of config's
// settings table that the command takes (Setting.TakesFlag), each
// registered with its help from the table, its old spellings hidden beside
// it, and its text read as the file reads the setting (Setting.ParseFlag);
// a bad value is a usage error (exit 2). Adding a setting with a flag to
// the table adds the flag to its commands, and layer carries its value to
// the settings.
type settingFlags struct {
	configFlags
	fs   *pflag.FlagSet
	vals []*settingValue
}

// addSettingFlags registers on fs the configuration's flags and the
// table's flags that command takes.
func addSettingFlags(fs *pflag.FlagSet, command string) *settingFlags {
	f := &settingFlags{fs: fs}
	f.configFlags.add(fs)
	for _, d := range config.SettingTable() {
		if !d.TakesFlag(command) {
			continue
		}
		v := &settingValue{d: d, v: d.Default}
		f.vals = append(f.vals, v)
		for i, name := range d.FlagNames() {
			usage := d.FlagUsage()
			if i > 0 {
				usage = "the old spelling of " + d.Flag + ", still accepted"
			}
			flag := fs.VarPF(v, strings.TrimPrefix(name, "--"), "", usage)
			flag.Hidden = i > 0
			if d.Kind == config.KindBool {
				flag.NoOptDefVal = "true"
			}
		}
	}
	return f
}

// overridesHelp says, for --help, which flags of command override which
// keys of the configuration: "--budget and --strict override budget and
// strict."
func overridesHelp(command string) string {
	var flags, keys []string
	for _, d := range config.SettingTable() {
		if d.TakesFlag(command) {
			flags, keys = append(flags, d.Flag), append(keys, d.Key)
		}
	}
	return andList(flags) + " override " + andList(keys) + "."
}

// andList joins words as "a and b", "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// given returns the spelling (with dashes) in which the flag of the
// setting key was given on the command line: the canonical one when both
// were, "" when neither was or the command has no such flag.
func (f *settingFlags) given(key string) string {
	d, ok := config.Lookup(key)
	if !ok {
		return ""
	}
	for _, name := range d.FlagNames() {
		if fl := f.fs.Lookup(strings.TrimPrefix(name, "--")); fl != nil && fl.Changed {
			return name
		}
	}
	return ""
}

// layer is the flags given on the command line as a configuration layer,
// each value's source the flag (by its canonical name).
func (f *settingFlags) layer() config.Layer {
	l := config.FlagLayer()
	for _, v := range f.vals {
		if f.given(v.d.Key) != "" {
			l.Set(v.d.Key, v.v, v.d.Flag)
		}
	}
	return l
}

// settingValue is one setting's flag: a pflag.Value that reads its text
// with config's parser for the setting's Kind.
type settingValue struct {
	d   config.Setting
	v   any  // int64, bool, string or []string by Kind
	set bool // a list flag adds to what earlier occurrences gave
}

func (s *settingValue) Set(text string) error {
	var prev any
	if s.set {
		prev = s.v
	}
	v, err := s.d.ParseFlag(prev, text)
	if err != nil {
		return err
	}
	s.v, s.set = v, true
	return nil
}

func (s *settingValue) String() string {
	switch x := s.v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case []string:
		return strings.Join(x, ",")
	}
	return ""
}

// Type names the value in --help when the usage has no `NAME`; "bool"
// makes pflag print the flag without one.
func (s *settingValue) Type() string {
	switch s.d.Kind {
	case config.KindChars, config.KindTokens:
		return "int"
	case config.KindBool:
		return "bool"
	case config.KindCodes, config.KindGlobs:
		return "strings"
	}
	return "string"
}

var _ pflag.Value = (*settingValue)(nil)

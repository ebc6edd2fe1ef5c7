package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/config"
)

// flagCommands are the commands that take settings' flags.
var flagCommands = []string{"check", "config", "budget", "trim", "map"}

// commandFlags returns the flag set of the command name, as the CLI
// builds it.
func commandFlags(t *testing.T, name string) *pflag.FlagSet {
	t.Helper()
	e, _, _ := testEnv("", nil)
	cmds := newRoot(e).Commands()
	i := slices.IndexFunc(cmds, func(c *cobra.Command) bool { return c.Name() == name })
	if i < 0 {
		t.Fatalf("no command %q", name)
	}
	return cmds[i].Flags()
}

// TestSettingFlagsFromTable: every setting of config's table with a flag
// is registered on the commands that take it, and only on those, with its
// help from the table and its old spellings hidden beside it; so adding a
// setting with a flag is config/settings.go's business only.
func TestSettingFlagsFromTable(t *testing.T) {
	flagged := 0
	for _, d := range config.SettingTable() {
		if d.Flag == "" {
			if len(d.FlagAliases)+len(d.FlagCommands) > 0 || d.FlagDoc != "" {
				t.Errorf("%s: no Flag, but FlagAliases %v, FlagCommands %v, FlagDoc %q", d.Key, d.FlagAliases, d.FlagCommands, d.FlagDoc)
			}
			continue
		}
		flagged++
		if d.FlagDoc == "" || len(d.FlagCommands) == 0 {
			t.Errorf("%s: FlagDoc %q, FlagCommands %v: a flag needs both", d.Key, d.FlagDoc, d.FlagCommands)
		}
		for _, c := range d.FlagCommands {
			if !slices.Contains(flagCommands, c) || c == "config" {
				t.Errorf("%s: FlagCommands names %q, not a command that takes settings' flags (config takes check's)", d.Key, c)
			}
		}
		if d.Kind == config.KindEnum && !strings.Contains(d.FlagUsage(), strings.Join(d.ValueNames()[:len(d.Values)-1], ", ")) {
			t.Errorf("%s: FlagUsage %q does not list the values %v", d.Key, d.FlagUsage(), d.ValueNames())
		}
		for _, cmd := range flagCommands {
			fs := commandFlags(t, cmd)
			want := d.TakesFlag(cmd)
			h := overridesHelp(cmd)
			words := strings.FieldsFunc(h, func(r rune) bool { return r == ' ' || r == ',' || r == '.' })
			if slices.Contains(words, d.Flag) != want || slices.Contains(words, d.Key) != want {
				t.Errorf("overridesHelp(%q) = %q; want it to name %s and %s: %v", cmd, h, d.Flag, d.Key, want)
			}
			for i, name := range d.FlagNames() {
				f := fs.Lookup(strings.TrimPrefix(name, "--"))
				if (f != nil) != want {
					t.Errorf("%s %s registered: %v, want %v", cmd, name, f != nil, want)
					continue
				}
				if f == nil {
					continue
				}
				if hidden := i > 0; f.Hidden != hidden {
					t.Errorf("%s %s: Hidden %v, want %v", cmd, name, f.Hidden, hidden)
				}
				if i == 0 && f.Usage != d.FlagUsage() {
					t.Errorf("%s %s: usage %q, want the table's %q", cmd, name, f.Usage, d.FlagUsage())
				}
			}
		}
	}
	if flagged < 6 {
		t.Errorf("%d settings with a flag, want at least the 6 the CLI had", flagged)
	}
}

// flagSample is a value given to a setting's flag and the same value
// written in sessionls.toml.
type flagSample struct{ flag, toml string }

// samples are values of each kind, good and bad.
func samples(d config.Setting) []flagSample {
	switch d.Kind {
	case config.KindChars, config.KindTokens:
		return []flagSample{{"1", "1"}, {"20000", "20000"}, {"9223372036854775807", "9223372036854775807"},
			{"0", "0"}, {"-3", "-3"}, {"x", `"x"`}, {"1.5", "1.5"}}
	case config.KindBool:
		return []flagSample{{"true", "true"}, {"false", "false"}, {"maybe", `"maybe"`}}
	case config.KindEnum:
		var out []flagSample
		for _, v := range append(d.ValueNames(), "nope", "") {
			out = append(out, flagSample{v, fmt.Sprintf("%q", v)})
		}
		return out
	case config.KindCodes:
		c := analysis.Codes()
		return []flagSample{{c[0], fmt.Sprintf("[%q]", c[0])}, {c[3] + "," + c[1], fmt.Sprintf("[%q, %q]", c[3], c[1])},
			{"nope", `["nope"]`}, {c[0] + ",nope", fmt.Sprintf("[%q, \"nope\"]", c[0])}}
	case config.KindGlobs:
		return []flagSample{{"**/*.log", `["**/*.log"]`}, {"a/[", `["a/["]`}}
	}
	return nil
}

// TestSettingFlagsParseLikeTheFile: each setting's flag accepts what
// sessionls.toml accepts and gives the same value, its source the flag;
// what the file refuses the flag refuses too, a usage error.
func TestSettingFlagsParseLikeTheFile(t *testing.T) {
	dir := t.TempDir()
	for _, d := range config.SettingTable() {
		if d.Flag == "" || !d.InFile {
			continue
		}
		cmd := d.FlagCommands[0]
		for _, sm := range samples(d) {
			data := []byte(d.Key + " = " + sm.toml + "\n")
			file, fileErr := config.Parse(filepath.Join(dir, "sessionls.toml"), "sessionls.toml", dir, data)
			fromFile := config.Defaults()
			file.Apply(&fromFile, filepath.Join(dir, "a.jsonl"))

			fs := commandFlags(t, cmd)
			flagErr := fs.Parse([]string{d.Flag + "=" + sm.flag})
			if (fileErr == nil) != (flagErr == nil) {
				t.Errorf("%s %s=%s: flag error %v, file error %v: want both or neither", cmd, d.Flag, sm.flag, flagErr, fileErr)
				continue
			}
			if flagErr != nil {
				continue
			}
			fromFlag := config.Defaults()
			fromFlag.Layer(flagsOf(t, fs).layer())
			got, want := field(fromFlag, d.Key), field(fromFile, d.Key)
			if !reflect.DeepEqual(got.Value, want.Value) {
				t.Errorf("%s %s=%s: value %#v, the file's %#v", cmd, d.Flag, sm.flag, got.Value, want.Value)
			}
			if got.Source != config.Flag(d.Flag) {
				t.Errorf("%s %s=%s: source %v, want the flag", cmd, d.Flag, sm.flag, got.Source)
			}
		}
	}
}

// flagsOf is the settingFlags registered on fs (its values are shared
// with fs's flags).
func flagsOf(t *testing.T, fs *pflag.FlagSet) *settingFlags {
	t.Helper()
	f := &settingFlags{fs: fs}
	fs.VisitAll(func(fl *pflag.Flag) {
		if v, ok := fl.Value.(*settingValue); ok && !fl.Hidden {
			f.vals = append(f.vals, v)
		}
	})
	return f
}

func field(s config.Settings, key string) config.Field {
	for _, f := range s.Fields() {
		if f.Key == key {
			return f
		}
	}
	return config.Field{}
}

// TestSettingFlagsEndToEnd: `sessionls config` shows each of check's
// flags given as the value's source, by its canonical name whichever
// spelling was given; a bad value exits 2 naming the flag.
func TestSettingFlagsEndToEnd(t *testing.T) {
	atRepoRoot(t)
	for _, d := range config.SettingTable() {
		if !d.TakesFlag("config") || !d.InFile {
			continue
		}
		good, bad := samples(d)[0], samples(d)[len(samples(d))-1]
		for _, name := range d.FlagNames() {
			r := sessionls(t, "config", "--isolated", "--format", "json", name+"="+good.flag, sessionPath("clean"))
			var c configJSON
			if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
				t.Fatalf("config %s=%s: %v (stderr %q)", name, good.flag, err, r.stderr)
			}
			if got := c.Settings[d.Key]; got.Source != "flag "+d.Flag || got.Kind != "flag" || got.Name != d.Flag {
				t.Errorf("config %s=%s: %s is %+v, want it from flag %s", name, good.flag, d.Key, got, d.Flag)
			}
			r = sessionls(t, "config", "--isolated", name+"="+bad.flag, sessionPath("clean"))
			if want := fmt.Sprintf("invalid argument %q for %q flag: ", bad.flag, name); r.code != ExitError || !strings.Contains(r.stderr, want) {
				t.Errorf("config %s=%s: exit %d, stderr %q; want exit 2 and %q", name, bad.flag, r.code, r.stderr, want)
			}
		}
	}
}

// TestDisableFlag: --disable trims each code, skips empty ones, adds
// repeated flags up, and names an unknown code and every known one (it was
// TestParseDisabled).
func TestDisableFlag(t *testing.T) {
	fs := commandFlags(t, "check")
	if err := fs.Parse([]string{"--disable", "swept-message", "--disable", " duplicate-call-id", "--disable", ""}); err != nil {
		t.Fatal(err)
	}
	got, _ := flagsOf(t, fs).layer().Get("disable")
	wantEqual(t, "disable", got, []string{"duplicate-call-id", "swept-message"})
	err := commandFlags(t, "check").Parse([]string{"--disable", "swept-message,no-such-code"})
	if err == nil {
		t.Fatal("err = nil, want an error")
	}
	wantContains(t, "err.Error()", err.Error(), append([]string{`unknown code "no-such-code"`}, analysis.Codes()...)...)
}

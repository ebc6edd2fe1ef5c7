package config

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/glob"
)

// The command line's side of the settings table: what a setting's flag
// says in --help and how its text is read. The front end (cli) registers
// the flags and records what was given in a FlagLayer; which commands take
// which flag is the table's FlagCommands.

// FlagUsage is the flag's help: FlagDoc with its {values} filled in, and
// its old spellings.
func (s Setting) FlagUsage() string {
	u := strings.ReplaceAll(s.FlagDoc, "{values}", orList(s.ValueNames()))
	if len(s.FlagAliases) > 0 {
		u += " (old spelling: " + strings.Join(s.FlagAliases, ", ") + ", still accepted)"
	}
	return u
}

// TakesFlag says whether command takes the setting's flag; config takes
// check's.
func (s Setting) TakesFlag(command string) bool {
	if command == "config" {
		command = "check"
	}
	return s.Flag != "" && slices.Contains(s.FlagCommands, command)
}

// ParseFlag reads one value given on the command line as the setting's
// (the text of --flag=text). It accepts what the file accepts, by Kind: a
// budget is a whole number ≥ 1, a bool true or false (as strconv reads
// it), an enum one of its values; codes are comma-separated finding codes
// and globs one glob a flag, both repeatable: prev is the list the flag's
// earlier occurrences gave (nil for none), and the result adds text's to
// it, codes sorted and without repeats as the file keeps them. The result
// is an int64, bool, string or []string, as Layer.Set takes it.
func (s Setting) ParseFlag(prev any, text string) (any, error) {
	switch s.Kind {
	case KindChars, KindTokens:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || n < 1 {
			unit := "characters"
			if s.Kind == KindTokens {
				unit = "tokens"
			}
			return nil, fmt.Errorf("want a positive whole number of %s", unit)
		}
		return n, nil
	case KindBool:
		return strconv.ParseBool(text)
	case KindEnum:
		if err := s.checkEnum(text); err != nil {
			return nil, err
		}
		return text, nil
	case KindCodes:
		out, _ := prev.([]string)
		out = slices.Clone(out)
		if out == nil {
			out = []string{}
		}
		// As pflag's string slices: CSV, so a value may be quoted.
		fields, err := csv.NewReader(strings.NewReader(text)).Read()
		if err != nil && text != "" {
			return nil, err
		}
		known := analysis.Codes()
		for _, c := range fields {
			c = strings.TrimSpace(c)
			if c == "" {
				continue
			}
			if !slices.Contains(known, c) {
				return nil, fmt.Errorf("unknown code %q; valid codes: %s", c, strings.Join(known, ", "))
			}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		slices.Sort(out)
		return out, nil
	case KindGlobs:
		prevGlobs, _ := prev.([]string)
		out := append(slices.Clone(prevGlobs), text)
		if _, err := glob.CompileList(out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return nil, fmt.Errorf("setting %s: no flag reads its kind", s.Key)
}

// checkEnum says why v is not one of a KindEnum setting's values (nil: it
// is), in the words the editors' settings and the flags share.
func (s Setting) checkEnum(v string) error {
	values := s.ValueNames()
	if slices.Contains(values, v) {
		return nil
	}
	return fmt.Errorf("unknown %s %q (want %s)", s.Key, v, orList(values))
}

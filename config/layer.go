package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/glob"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// Layer is the values one front end gives on top of the configuration
// file: command-line flags, or an editor's settings. The front ends only
// read their raw values into a Layer; Settings.Layer applies it by the one
// precedence rule.
type Layer struct {
	kind SourceKind // FromFlag or FromEditor
	vals map[string]layerValue
}

type layerValue struct {
	v    any
	name string // the flag or editor setting it was given as
}

// FlagLayer is an empty layer of command-line flags.
func FlagLayer() Layer { return Layer{kind: FromFlag} }

// EditorLayer is an empty layer of editor settings.
func EditorLayer() Layer { return Layer{kind: FromEditor} }

// Set records the value of the setting key, given as name (a flag, with
// its dashes, or an editor setting without "sessionls."). v is an int64,
// bool, string or []string by the setting's Kind; for an editor, 0, "" and
// an empty list mean unset.
func (l *Layer) Set(key string, v any, name string) {
	if l.vals == nil {
		l.vals = map[string]layerValue{}
	}
	l.vals[key] = layerValue{v, name}
}

// Get returns the value given for key, and whether one was.
func (l Layer) Get(key string) (any, bool) {
	lv, ok := l.vals[key]
	return lv.v, ok
}

// Merge returns l with p's values over it (a didChangeConfiguration over
// the initializationOptions).
func (l Layer) Merge(p Layer) Layer {
	out := Layer{kind: l.kind, vals: maps.Clone(l.vals)}
	for k, v := range p.vals {
		out.Set(k, v.v, v.name)
	}
	return out
}

// source is where a value of the layer came from.
func (l Layer) source(name string) Source {
	if l.kind == FromEditor {
		return Editor("sessionls." + name)
	}
	return Flag(name)
}

// counts is the one precedence rule: a layer's value replaces what the
// defaults and the configuration file say when it was given — for an
// editor, when the user set it: editors send null, 0 or [] for a setting
// left alone, and those defer to sessionls.toml.
func (l Layer) counts(v any) bool {
	if l.kind != FromEditor {
		return true
	}
	switch x := v.(type) {
	case int64:
		return x != 0
	case string:
		return x != ""
	case []string:
		return len(x) > 0
	}
	return true
}

// Layer applies l over s: lowest first, defaults, the configuration file's
// top-level keys, its matching [[overrides]] (File.Apply), then editor
// settings the user set, then flags. Each value keeps its source.
func (s *Settings) Layer(l Layer) {
	for _, d := range settingTable() {
		if lv, ok := l.vals[d.Key]; ok && l.counts(lv.v) {
			d.field(s).set(lv.v, l.source(lv.name))
		}
	}
}

// EditorKeys returns every editor setting name the server reads, old
// spellings included.
func EditorKeys() []string {
	var out []string
	for _, d := range settingTable() {
		out = append(out, d.EditorNames()...)
	}
	return out
}

// ParseEditor reads an editor's settings object (the "sessionls" section,
// decoded from JSON). Every problem is reported; the valid keys are still
// in the layer, so one bad key does not block the others. A null value is
// no value, except for a budget, where it means none (0).
func ParseEditor(m map[string]any) (Layer, []error) {
	l := EditorLayer()
	var errs []error
	for _, d := range settingTable() {
		names := d.EditorNames()
		// The old spellings first: the canonical name wins when both are
		// given.
		for i := len(names) - 1; i >= 0; i-- {
			name := names[i]
			raw, ok := m[name]
			if !ok {
				continue
			}
			v, err := parseEditorValue(d, name, raw)
			errs = append(errs, err...)
			if v != nil {
				l.Set(d.Key, v, name)
			}
		}
	}
	return l, errs
}

// parseEditorValue reads one editor value; nil: none to record.
func parseEditorValue(d Setting, name string, raw any) (any, []error) {
	fail := func(err error) (any, []error) {
		return nil, []error{fmt.Errorf("sessionls.%s: %w", name, err)}
	}
	if raw == nil {
		if d.Kind == KindChars || d.Kind == KindTokens {
			return int64(0), nil
		}
		return nil, nil
	}
	switch d.Kind {
	case KindChars, KindTokens:
		n, err := ParseBudget(raw, true)
		if err != nil {
			return fail(err)
		}
		return n, nil
	case KindBool:
		b, ok := raw.(bool)
		if !ok {
			return fail(fmt.Errorf("want true or false, got %s", DescribeJSON(raw)))
		}
		return b, nil
	case KindEnum:
		s, _ := raw.(string)
		if err := d.checkEnum(s); err != nil {
			return fail(err)
		}
		return s, nil
	case KindGlobs, KindCodes:
		// Both are an array of strings in the editors' settings.
		list, err := stringList(raw)
		if err != nil {
			return fail(err)
		}
		if d.Kind == KindGlobs {
			if _, err := glob.CompileList(list); err != nil {
				return fail(err)
			}
			return list, nil
		}
		known := analysis.Codes()
		var errs []error
		out := []string{}
		for _, c := range list {
			if !slices.Contains(known, c) {
				errs = append(errs, fmt.Errorf("sessionls.%s: unknown check %q (known: %s)", name, c, strings.Join(known, ", ")))
				continue
			}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		slices.Sort(out)
		return out, errs
	}
	return nil, nil
}

// orList joins names as "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func stringList(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of strings, got %s", DescribeJSON(v))
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("want an array of strings, got element %s", DescribeJSON(e))
		}
		out = append(out, s)
	}
	return out, nil
}

// DescribeJSON renders a JSON value for a message to the user.
func DescribeJSON(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ErrNotPositive is a budget that is not a positive whole number.
var ErrNotPositive = errors.New("not a positive whole number")

// ErrNotExact is a budget that is a whole number but one sessionls cannot
// hold or pass on exactly (or a string it cannot read as one).
var ErrNotExact = errors.New("not a budget sessionls can hold exactly")

// MaxBudget is the largest budget: 2^53, the largest whole number up to
// which every whole number has a JavaScript number (the runtime's
// trimContext compares costs as such numbers). A budget past it could not
// be given to the runtime exactly, so it is refused, not rounded.
const MaxBudget = 1 << 53

// ParseBudget accepts a budget an editor gives: a positive integer as a
// JSON number or a numeric string. zeroOK lets a setting say 0 for "no
// budget".
//
// Only values it holds exactly are accepted: a json.Number (what
// sessionls.setBudget decodes its argument as) is read from its digits
// (9007199254740993 is refused, not rounded to …992; 1e3 and 5.0 are
// whole numbers); a float64 (settings decoded as any) is taken when it is
// below 2^53, where a float64 is exactly the whole number it was
// written as. A string is digits, with commas only as thousands
// separators ("8,000", not ",,,5" or "8,0").
func ParseBudget(v any, zeroOK bool) (int64, error) {
	var n int64
	var why string
	switch x := v.(type) {
	case float64:
		switch {
		case x != math.Trunc(x) || math.IsNaN(x):
			why = "not a whole number"
		case x < 0:
			why = "negative"
		case x >= MaxBudget:
			why = fmt.Sprintf("%s or more, past which a JSON number is not held exactly", textfmt.Thousands(MaxBudget))
		default:
			n = int64(x)
		}
	case json.Number:
		n, why = wholeNumber(x.String())
	case int:
		n = int64(x)
	case int64:
		n = x
	case string:
		n, why = budgetString(strings.TrimSpace(x))
	default:
		why = "not a number"
	}
	switch {
	case why == "" && n < 0:
		why = "negative"
	case why == "" && n > MaxBudget:
		why = fmt.Sprintf("more than %s, the largest whole number a JavaScript number holds exactly", textfmt.Thousands(MaxBudget))
	case why == "" && n == 0 && !zeroOK:
		why = "zero"
	}
	switch why {
	case "":
		return n, nil
	case "not a number", "not a whole number", "negative", "zero":
		return 0, fmt.Errorf("%s: %w", DescribeJSON(v), ErrNotPositive)
	}
	return 0, fmt.Errorf("%s (%s): %w", DescribeJSON(v), why, ErrNotExact)
}

// budgetString reads a budget typed as text: decimal digits, optionally
// grouped by commas in threes ("1,234,567").
func budgetString(s string) (int64, string) {
	digits := s
	if strings.Contains(s, ",") {
		groups := strings.Split(s, ",")
		for i, g := range groups {
			if (i == 0 && (len(g) < 1 || len(g) > 3)) || (i > 0 && len(g) != 3) {
				return 0, "commas may only separate thousands"
			}
		}
		digits = strings.Join(groups, "")
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, "not a number"
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, "too large"
	}
	return n, ""
}

// wholeNumber reads a JSON number's text exactly: its value when it is a
// whole number that fits an int64, else why not. It never rounds and
// never builds a number from a huge exponent.
func wholeNumber(s string) (int64, string) {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
		if strings.Trim(s, "0.eE+-") != "" {
			return 0, "negative"
		}
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(expText)
		if err != nil || e > 1000 || e < -1000 {
			return 0, "exponent out of range"
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	// digits × 10^exp: trailing zeros pay for a negative exponent.
	for exp < 0 && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	switch {
	case digits == "":
		return 0, ""
	case exp < 0:
		return 0, "not a whole number"
	case len(digits)+exp > 19:
		return 0, "too large"
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", exp), 10, 64)
	if err != nil {
		return 0, "too large"
	}
	return n, ""
}

package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Configuration keys, read from initializationOptions, from the "sessionls"
// section of workspace/didChangeConfiguration's settings, and from the
// client's answer to workspace/configuration:
//
//	budget  positive integer (number or numeric string); null or 0 = no budget
//	checks  array of finding codes to turn off
//	files   array of globs naming the session files (default ["**/*.jsonl"])
//	tokens  boolean: unit lenses add the unit's tokens (resolved lazily,
//	        codeLens/resolve); default false
//	tokenizer  "o200k_base" or "cl100k_base": the encoding of the lenses'
//	        and the hover's token counts (default: the configuration
//	        file's tokenizer, whose default is o200k_base)
const configSection = "sessionls"

// defaultFiles is the glob list used until configuration says otherwise.
var defaultFiles = []string{"**/*.jsonl"}

// settings is the editor's configuration: over each document's sessionls.toml
// where set (see configfiles.go for the precedence).
type settings struct {
	budget    int64 // 0: none
	disabled  map[string]bool
	files     []string
	tokens    bool            // unit lenses show tokens (resolved on demand)
	tokenizer tokens.Encoding // "": the configuration file's (see tokenizerFor)
}

func defaultSettings() settings {
	return settings{files: slices.Clone(defaultFiles)}
}

// settingsPatch is a parsed configuration object: only keys that are
// present change anything.
type settingsPatch struct {
	budget    *int64 // set: 0 means none
	disabled  map[string]bool
	files     []string
	tokens    *bool
	tokenizer tokens.Encoding // "": unchanged
}

func (p settingsPatch) apply(s settings) settings {
	if p.budget != nil {
		s.budget = *p.budget
	}
	if p.disabled != nil {
		s.disabled = p.disabled
	}
	if p.files != nil {
		s.files = p.files
	}
	if p.tokens != nil {
		s.tokens = *p.tokens
	}
	if p.tokenizer != "" {
		s.tokenizer = p.tokenizer
	}
	return s
}

// parseSettings reads a configuration object (already decoded from JSON as
// map[string]any). Every problem is reported; the keys that are valid are
// still applied, so one bad key does not block the others.
func parseSettings(v map[string]any) (settingsPatch, []error) {
	var p settingsPatch
	var errs []error
	if raw, ok := v["budget"]; ok {
		if raw == nil {
			zero := int64(0)
			p.budget = &zero
		} else if b, err := parseBudget(raw, true); err != nil {
			errs = append(errs, fmt.Errorf("sessionls.budget: %w", err))
		} else {
			p.budget = &b
		}
	}
	if raw, ok := v["checks"]; ok && raw != nil {
		codes, err := stringList(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("sessionls.checks: %w", err))
		} else {
			p.disabled = make(map[string]bool, len(codes))
			known := analysis.Codes()
			for _, c := range codes {
				if !slices.Contains(known, c) {
					errs = append(errs, fmt.Errorf("sessionls.checks: unknown check %q (known: %s)", c, strings.Join(known, ", ")))
					continue
				}
				p.disabled[c] = true
			}
		}
	}
	if raw, ok := v["files"]; ok && raw != nil {
		globs, err := stringList(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("sessionls.files: %w", err))
		} else {
			if err := checkGlobs(globs); err != nil {
				errs = append(errs, fmt.Errorf("sessionls.files: %w", err))
			} else {
				p.files = globs
			}
		}
	}
	if raw, ok := v["tokens"]; ok && raw != nil {
		if b, isBool := raw.(bool); isBool {
			p.tokens = &b
		} else {
			errs = append(errs, fmt.Errorf("sessionls.tokens: want true or false, got %s", describe(raw)))
		}
	}
	if raw, ok := v["tokenizer"]; ok && raw != nil {
		name, _ := raw.(string)
		if enc, err := tokens.ParseEncoding(name); err != nil {
			errs = append(errs, fmt.Errorf("sessionls.tokenizer: %w", err))
		} else {
			p.tokenizer = enc
		}
	}
	return p, errs
}

// sessionlsSection finds the sessionls settings in a didChangeConfiguration
// payload: {"sessionls": {...}}, or the section itself when a client sends
// it bare. ok is false when the payload holds none (null, {}, other tools'
// settings): the server then asks with workspace/configuration.
func sessionlsSection(settings any) (map[string]any, bool) {
	m, ok := settings.(map[string]any)
	if !ok {
		return nil, false
	}
	if sec, ok := m[configSection].(map[string]any); ok {
		return sec, true
	}
	for _, k := range []string{"budget", "checks", "files", "tokens", "tokenizer"} {
		if _, ok := m[k]; ok {
			return m, true
		}
	}
	return nil, false
}

var errNotPositive = errors.New("not a positive whole number")

// maxBudget is the largest budget: 2^53, the largest whole number up to
// which every whole number has a JavaScript number (the runtime's
// trimContext compares costs as such numbers). A budget past it could not
// be given to the runtime exactly, so it is refused, not rounded.
const maxBudget = 1 << 53

// parseBudget accepts a positive integer given as a JSON number or a
// numeric string. zeroOK lets configuration say 0 for "no budget".
//
// Only values it holds exactly are accepted: a json.Number (what
// sessionls.setBudget decodes its argument as) is read from its digits
// (9007199254740993 is refused, not rounded to …992; 1e3 and 5.0 are
// whole numbers); a float64 (settings decoded as any) is taken when it is
// below 2^53, where a float64 is exactly the whole number it was
// written as. A string is digits, with commas only as thousands
// separators ("8,000", not ",,,5" or "8,0").
func parseBudget(v any, zeroOK bool) (int64, error) {
	var n int64
	var why string
	switch x := v.(type) {
	case float64:
		switch {
		case x != math.Trunc(x) || math.IsNaN(x):
			why = "not a whole number"
		case x < 0:
			why = "negative"
		case x >= maxBudget:
			why = fmt.Sprintf("%s or more, past which a JSON number is not held exactly", textfmt.Thousands(maxBudget))
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
	case why == "" && n > maxBudget:
		why = fmt.Sprintf("more than %s, the largest whole number a JavaScript number holds exactly", textfmt.Thousands(maxBudget))
	case why == "" && n == 0 && !zeroOK:
		why = "zero"
	}
	switch why {
	case "":
		return n, nil
	case "not a number", "not a whole number", "negative", "zero":
		return 0, fmt.Errorf("%s: %w", describe(v), errNotPositive)
	}
	return 0, fmt.Errorf("%s (%s): %w", describe(v), why, errNotExact)
}

// errNotExact is a budget that is a whole number but one the server
// cannot hold or pass on exactly (or a string it cannot read as one).
var errNotExact = errors.New("not a budget sessionls can hold exactly")

// budgetReason is what a sessionls.setBudget error message says after
// "got": the value, and why it is refused when the reason is not plain.
func budgetReason(arg any, err error) string {
	if errors.Is(err, errNotExact) {
		return strings.TrimSuffix(err.Error(), ": "+errNotExact.Error())
	}
	return describe(arg)
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

// describe renders a JSON value for a message to the user.
func describe(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func stringList(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of strings, got %s", describe(v))
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("want an array of strings, got element %s", describe(e))
		}
		out = append(out, s)
	}
	return out, nil
}

// configTimeout bounds a workspace/configuration round trip: a client
// that never answers must not stall the server.
const configTimeout = 5 * time.Second

// DidChangeConfiguration applies settings.sessionls; when the payload has
// no sessionls section (VS Code sends null), the server asks for it.
func (s *server) DidChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	sec, ok := sessionlsSection(p.Settings)
	if !ok {
		if s.currentCaps().configuration {
			s.pullConfiguration(ctx)
		}
		return nil
	}
	patch, errs := parseSettings(sec)
	s.reportSettingErrors(ctx, "settings", errs)
	s.applySettings(ctx, patch)
	return nil
}

// pullConfiguration asks the client for the sessionls section and applies
// it. It waits for the answer (bounded by configTimeout) so that messages
// queued behind it see the new settings.
func (s *server) pullConfiguration(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), configTimeout)
	defer cancel()
	var res []any
	params := map[string]any{"items": []map[string]any{{"section": configSection}}}
	if _, err := s.conn.Call(ctx, protocol.MethodWorkspaceConfiguration, params, &res); err != nil {
		s.logger.Warn("workspace/configuration", zap.Error(err))
		return
	}
	if len(res) == 0 {
		return
	}
	sec, ok := res[0].(map[string]any)
	if !ok {
		// null: the client has no sessionls settings; keep ours.
		return
	}
	patch, errs := parseSettings(sec)
	s.reportSettingErrors(ctx, "settings", errs)
	s.applySettings(ctx, patch)
}

func (s *server) reportSettingErrors(ctx context.Context, where string, errs []error) {
	if len(errs) == 0 {
		return
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	s.logger.Warn("invalid configuration", zap.String("from", where), zap.Strings("errors", msgs))
	s.showError("sessionls ignored invalid " + where + ": " + strings.Join(msgs, "; "))
}

// applySettings applies patch; when anything changed it re-analyses every
// open file, publishes, and asks the client to refresh its lenses.
func (s *server) applySettings(ctx context.Context, patch settingsPatch) {
	s.mu.Lock()
	old := s.settings
	st := patch.apply(old)
	s.settings = st
	roots := s.roots
	s.mu.Unlock()
	if st.budget == old.budget && maps(st.disabled, old.disabled) && slices.Equal(st.files, old.files) {
		if st.tokens != old.tokens || st.tokenizer != old.tokenizer {
			s.refreshLenses() // nothing to re-analyse, but the lenses change
		}
		return
	}
	s.logger.Info("settings", zap.Int64("budget", st.budget), zap.Int("disabled", len(st.disabled)), zap.Strings("files", st.files))
	for _, f := range s.files.all() {
		if !s.isSessionDoc(f.uri, f.languageID, st.files, roots) {
			s.files.ignore(f.uri)
			s.clearDiagnostics(f)
			continue
		}
		if !s.setOptions(f, s.optionsFor(f.uri)) {
			s.publish(f) // the files setting may have changed alone
		}
	}
	s.refreshLenses()
}

func maps(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

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

// parseBudget accepts a positive integer given as a JSON number or a
// numeric string. zeroOK lets configuration say 0 for "no budget".
func parseBudget(v any, zeroOK bool) (int64, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		n, err := x.Float64()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", describe(v), errNotPositive)
		}
		f = n
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case string:
		s := strings.TrimSpace(x)
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", describe(v), errNotPositive)
		}
		f = float64(n)
	default:
		return 0, fmt.Errorf("%s: %w", describe(v), errNotPositive)
	}
	if f != math.Trunc(f) || f < 0 || f > 1<<53 || (f == 0 && !zeroOK) {
		return 0, fmt.Errorf("%s: %w", describe(v), errNotPositive)
	}
	return int64(f), nil
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

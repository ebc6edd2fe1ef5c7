package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/config"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// The editor's settings are read from initializationOptions, from the
// "sessionls" section of workspace/didChangeConfiguration's settings, and
// from the client's answer to workspace/configuration. Which keys there
// are, their values and their old spellings are config's settings table
// (config.ParseEditor); how they combine with each document's
// sessionls.toml is its one precedence rule (config.Settings.Layer).
const configSection = "sessionls"

// defaultFiles is the glob list used until configuration says otherwise.
var defaultFiles = config.DefaultFiles()

// settings is the editor's configuration: over each document's sessionls.toml
// where set (see configfiles.go for the precedence).
type settings struct {
	// editor is every value the editor gave, as config layers it.
	editor config.Layer
	// What the server reads directly, from editor:
	budget    int64 // 0: none
	disabled  map[string]bool
	files     []string
	tokens    bool            // unit lenses show tokens (resolved on demand)
	tokenizer tokens.Encoding // "": the configuration file's (see tokenizerFor)
}

func defaultSettings() settings {
	return settings{editor: config.EditorLayer(), files: slices.Clone(defaultFiles)}
}

// settingsPatch is a parsed configuration object: only keys that are
// present change anything.
type settingsPatch struct {
	layer     config.Layer
	budget    *int64 // set: 0 means none
	disabled  map[string]bool
	files     []string
	tokens    *bool
	tokenizer tokens.Encoding // "": unchanged
}

func (p settingsPatch) apply(s settings) settings {
	s.editor = s.editor.Merge(p.layer)
	if p.budget != nil {
		s.budget = *p.budget
		s.editor.Set("budget", *p.budget, "budget")
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
	l, errs := config.ParseEditor(v)
	p := settingsPatch{layer: l}
	if x, ok := l.Get("budget"); ok {
		b := x.(int64)
		p.budget = &b
	}
	if x, ok := l.Get("disable"); ok {
		codes := x.([]string)
		p.disabled = make(map[string]bool, len(codes))
		for _, c := range codes {
			p.disabled[c] = true
		}
	}
	if x, ok := l.Get("files"); ok {
		p.files = x.([]string)
	}
	if x, ok := l.Get("tokens"); ok {
		b := x.(bool)
		p.tokens = &b
	}
	if x, ok := l.Get("tokenizer"); ok {
		p.tokenizer = tokens.Encoding(x.(string))
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
	for _, k := range config.EditorKeys() {
		if _, ok := m[k]; ok {
			return m, true
		}
	}
	return nil, false
}

// parseBudget is config.ParseBudget (sessionls.setBudget reads its
// argument with it too).
func parseBudget(v any, zeroOK bool) (int64, error) { return config.ParseBudget(v, zeroOK) }

// budgetReason is what a sessionls.setBudget error message says after
// "got": the value, and why it is refused when the reason is not plain.
func budgetReason(arg any, err error) string {
	if errors.Is(err, config.ErrNotExact) {
		return strings.TrimSuffix(err.Error(), ": "+config.ErrNotExact.Error())
	}
	return config.DescribeJSON(arg)
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
	if st.budget == old.budget && maps.Equal(st.disabled, old.disabled) && slices.Equal(st.files, old.files) && editorDialect(st) == editorDialect(old) {
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

// editorDialect is the editor's dialect setting ("" when unset).
func editorDialect(s settings) string {
	v, _ := s.editor.Get("dialect")
	d, _ := v.(string)
	return d
}

// wholeNumber reads a JSON number's text exactly (config.ParseBudget's
// reading): its value when it is a whole number, else why not.
func wholeNumber(s string) (int64, string) {
	n, err := config.ParseBudget(json.Number(s), true)
	if err != nil {
		return 0, err.Error()
	}
	return n, ""
}

// describe renders a JSON value for a message to the user
// (config.DescribeJSON, as the settings' errors word it).
func describe(v any) string { return config.DescribeJSON(v) }

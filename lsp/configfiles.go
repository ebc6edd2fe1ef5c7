package lsp

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/config"
)

// Configuration files (sessionls.toml), as the CLI reads them: for each
// document, the closest .sessionls.toml or sessionls.toml in its directory
// or above. The precedence, config.Settings.Layer's one rule, for each key:
//
//  1. the editor's value, when the user set one: sessionls.budget (or the
//     sessionls.setBudget command) to a number, sessionls.disable (or its
//     old spelling sessionls.checks) to a non-empty list;
//  2. the configuration file's value for the document (its matching
//     [[overrides]], then its top-level keys);
//  3. the default (no budget, every check on).
//
// So an unset editor setting (null, [], what editors send by default)
// defers to sessionls.toml, and clearing the budget in the editor
// (setBudget null, 0 or "off") falls back to the file's budget. An open
// document is analysed when its language is jsonl, its name ends in .jsonl,
// or sessionls.files or the configuration's files globs match it (exclude
// governs directory searches; an open document is like a file named on
// the command line).
//
// Files are watched with workspace/didChangeWatchedFiles, registered
// dynamically when the client allows it; saving a configuration file open
// in the editor counts as a change too. A change re-reads the files and
// re-publishes every open document whose settings moved. A bad file is
// said once (showMessage, naming file:line:col) and its last good version
// stays in force.

// configState is what the server knows of configuration files.
type configState struct {
	mu       sync.Mutex
	resolver *config.Resolver
	lastGood map[string]*config.File // by file path: the last version that parsed
	reported map[string]string       // by file path: the error last shown
	// published: the files whose errors are published as diagnostics
	// (configdiags.go), to clear when they are gone.
	published map[string]bool
}

func newConfigState() *configState {
	// Discovery only ever sees absolute paths, so Cwd matters for nothing
	// but NewResolver's contract; it cannot fail without ConfigFile.
	r, err := config.NewResolver(config.Options{Cwd: string(filepath.Separator), AbsoluteNames: true})
	if err != nil {
		panic(err) // unreachable: no ConfigFile to read
	}
	return &configState{resolver: r, lastGood: map[string]*config.File{}, reported: map[string]string{}, published: map[string]bool{}}
}

// filePath is the local path of a file: URI; ok is false for other schemes
// (untitled:, vscode-notebook-cell:, ...), which have no configuration.
func filePath(uri protocol.DocumentURI) (string, bool) {
	u, err := url.Parse(string(uri))
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return filepath.FromSlash(path.Clean(u.Path)), true
}

// configFor returns the configuration layer for a document: defaults, then
// its configuration file's settings. A file that cannot be used is
// reported once; its last good version is used instead, if there is one.
func (s *server) configFor(uri protocol.DocumentURI) (config.Settings, *config.File) {
	st := config.Defaults()
	p, ok := filePath(uri)
	if !ok {
		return st, nil
	}
	cs := s.cfg
	f, err := cs.resolver.ForFile(p)
	cs.mu.Lock()
	var report, reportPath string
	if err != nil {
		var fe *config.FileError
		if errors.As(err, &fe) {
			f = cs.lastGood[fe.Path]
			msg := configErrorText(err)
			if cs.reported[fe.Path] != msg {
				cs.reported[fe.Path] = msg
				cs.published[fe.Path] = true
				report, reportPath = msg, fe.Path
				if f != nil {
					report += " — keeping its last good settings"
				} else {
					report += " — using the defaults"
				}
			}
		} else {
			s.logger.Warn("configuration", zap.Error(err))
		}
	} else if f != nil {
		cs.lastGood[f.Path] = f
		delete(cs.reported, f.Path)
	}
	cs.mu.Unlock()
	if report != "" {
		s.logger.Warn("invalid configuration file", zap.String("error", report))
		s.showError("sessionls: " + report)
		s.publishConfigErrors(reportPath, configDiagnostics(err))
	}
	f.Apply(&st, p)
	return st, f
}

// configErrorText joins a configuration error's problems into one line.
func configErrorText(err error) string {
	var es config.Errors
	if errors.As(err, &es) {
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = e.Error()
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
}

// optionsFor is the analysis options for a document: its configuration
// file's settings with the editor's over them, by config's one precedence
// rule (an editor setting counts where the user set it).
func (s *server) optionsFor(uri protocol.DocumentURI) analysis.Options {
	return s.effectiveSettings(uri).Options()
}

// effectiveSettings are a document's settings: defaults, its configuration
// file's, then the editor's.
func (s *server) effectiveSettings(uri protocol.DocumentURI) config.Settings {
	st, _ := s.configFor(uri)
	st.Layer(s.currentSettings().editor)
	return st
}

// isSessionDoc is isSessionFile plus the configuration's files globs.
func (s *server) isSessionDoc(uri protocol.DocumentURI, languageID string, globs, roots []string) bool {
	if isSessionFile(uri, languageID, globs, roots) {
		return true
	}
	p, ok := filePath(uri)
	if !ok {
		return false
	}
	f, err := s.cfg.resolver.ForFile(p)
	if err != nil || f == nil {
		return false // reported when its options are computed
	}
	return f.SelectsByFiles(p)
}

// setOptions gives f new options, re-analysing and publishing only when
// they differ from its current ones. It reports whether they did.
func (s *server) setOptions(f *file, opts analysis.Options) bool {
	changed := s.resolveDialect(f) // the dialect setting may have changed too
	if !changed && f.opts.Budget == opts.Budget && maps.Equal(f.opts.Disabled, opts.Disabled) {
		return false
	}
	f.opts = opts
	f.doc.SetOptions(docOptions(opts))
	f.stale()
	s.publish(f)
	return true
}

// isConfigFile reports whether uri names a configuration file.
func isConfigFile(uri protocol.DocumentURI) bool {
	p, ok := filePath(uri)
	if !ok {
		return false
	}
	base := filepath.Base(p)
	return base == config.Name || base == config.DotName
}

// configChanged re-reads the configuration files and re-publishes every
// open document whose settings changed.
func (s *server) configChanged() {
	s.cfg.resolver.Forget()
	changed := false
	for _, f := range s.files.all() {
		if s.setOptions(f, s.optionsFor(f.uri)) {
			changed = true
		}
	}
	s.stampConfigFiles(stampAll)
	s.clearFixedConfigErrors()
	s.logger.Info("configuration files changed", zap.Bool("documents_changed", changed))
	if changed {
		s.refreshLenses()
	}
}

// DidChangeWatchedFiles: a configuration file was created, changed or
// deleted.
func (s *server) DidChangeWatchedFiles(ctx context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	for _, c := range p.Changes {
		if c != nil && isConfigFile(c.URI) {
			s.configChanged()
			return nil
		}
	}
	return nil
}

// methodRegisterCapability is client/registerCapability.
const methodRegisterCapability = "client/registerCapability"

// watchConfigFiles asks the client to report changes to configuration
// files, when it can register that dynamically. It does not wait for the
// answer: the client may send requests before it answers.
func (s *server) watchConfigFiles() {
	if !s.currentCaps().watchFiles {
		return
	}
	watchers := []map[string]any{
		{"globPattern": "**/" + config.Name},
		{"globPattern": "**/" + config.DotName},
	}
	params := map[string]any{"registrations": []map[string]any{{
		"id":              "sessionls-configuration-files",
		"method":          protocol.MethodWorkspaceDidChangeWatchedFiles,
		"registerOptions": map[string]any{"watchers": watchers},
	}}}
	s.bg.Go(func() {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, methodRegisterCapability, params, nil); err != nil {
			s.logger.Warn("registering the configuration file watcher", zap.Error(err))
		}
	})
}

// configSaved handles didSave of a configuration file open in the editor:
// for clients that cannot watch files, saving it is the change.
func (s *server) configSaved(uri protocol.DocumentURI) {
	if isConfigFile(uri) {
		s.configChanged()
	}
}

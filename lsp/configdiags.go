package lsp

import (
	"errors"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/config"
)

// Errors in a configuration file are diagnostics on that file, where they
// stay until it is fixed (the editor lists them with the file's other
// problems), besides the one message saying the file is not used: a toast
// vanishes, and a long one was cut ("unknown ke…").

// codeConfig is the code of a configuration file's diagnostics (not an
// engine finding).
const codeConfig = "config"

// configDiagnostics turns a configuration error into diagnostics at the
// positions it names (1-based line, column in characters).
func configDiagnostics(err error) []protocol.Diagnostic {
	var es config.Errors
	if !errors.As(err, &es) {
		var e *config.Error
		if errors.As(err, &e) {
			es = config.Errors{e}
		}
	}
	var out []protocol.Diagnostic
	for _, e := range es {
		pos := protocol.Position{Line: uint32(max(e.Line-1, 0)), Character: uint32(max(e.Col-1, 0))}
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: pos, End: pos},
			Severity: protocol.DiagnosticSeverityError,
			Code:     codeConfig,
			Source:   diagnosticSource,
			Message:  e.Msg,
		})
	}
	if len(out) == 0 {
		out = append(out, protocol.Diagnostic{
			Severity: protocol.DiagnosticSeverityError,
			Code:     codeConfig,
			Source:   diagnosticSource,
			Message:  configErrorText(err),
		})
	}
	return out
}

// publishConfigErrors publishes the errors of the configuration file at
// path (diags empty: it has none now).
func (s *server) publishConfigErrors(path string, diags []protocol.Diagnostic) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
		URI: protocol.DocumentURI("file://" + filepath.ToSlash(path)), Diagnostics: diags,
	})
}

// clearFixedConfigErrors clears the diagnostics of configuration files
// whose errors are gone (fixed or deleted), after the files were re-read.
func (s *server) clearFixedConfigErrors() {
	cs := s.cfg
	cs.mu.Lock()
	var gone []string
	for p := range cs.published {
		_, still := cs.reported[p]
		if _, err := os.Stat(p); err != nil {
			still = false // deleted: its errors went with it
			delete(cs.reported, p)
		}
		if !still {
			gone = append(gone, p)
			delete(cs.published, p)
		}
	}
	cs.mu.Unlock()
	for _, p := range gone {
		s.publishConfigErrors(p, nil)
	}
}

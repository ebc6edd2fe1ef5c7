package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/atomicfile"
)

// A byte order mark the editor hides. Neovim, VS Code and Emacs read a
// UTF-8 BOM as the file's encoding and send the text without it, so the
// server would see a clean file while the runtime, reading the bytes,
// refuses it (JSON.parse fails on line 1, and loadSession on the file).
// When a file: document opens or is saved, the server reads its first three
// bytes from disk: a BOM there that the text lacks is reported as the
// runtime's verdict on line 1, with a quick fix that removes the BOM from
// the file on disk (a command: no edit of the text can reach it), which the
// server runs only while the file is the editor's text plus the BOM.

// commandRemoveDiskBOM removes the byte order mark from the file on disk:
// arguments [uri].
const commandRemoveDiskBOM = "sessionls.removeDiskBOM"

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// diskHasHiddenBOM reports whether the file behind uri begins with a UTF-8
// byte order mark that text, the editor's copy, does not.
func diskHasHiddenBOM(uri protocol.DocumentURI, text string) bool {
	if strings.HasPrefix(text, "\uFEFF") {
		return false
	}
	p, ok := filePath(uri)
	if !ok {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, len(utf8BOM))
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.Equal(head, utf8BOM)
}

// bomDiagnostic is the runtime's verdict on a file whose BOM the editor
// hides, at the start of line 1.
func bomDiagnostic() protocol.Diagnostic {
	d := protocol.Diagnostic{
		Severity: protocol.DiagnosticSeverityError,
		Code:     analysis.CodeInvalidJSON,
		Source:   diagnosticSource,
		Message: "the file on disk begins with a byte order mark (EF BB BF), which the editor does not show: " +
			"JSON.parse refuses line 1, so the runtime refuses the whole file",
		Data: map[string]any{"diskBOM": true},
	}
	if href := analysis.RuleDocURL(analysis.CodeInvalidJSON); href != "" {
		d.CodeDescription = &protocol.CodeDescription{Href: protocol.URI(href)}
	}
	return d
}

// bomActions offers the fix on line 1 of a file whose BOM is hidden.
func bomActions(f *file, p *protocol.CodeActionParams) []protocol.CodeAction {
	if !f.diskBOM || p.Range.Start.Line != 0 || !wantsKind(p.Context.Only, protocol.QuickFix) {
		return nil
	}
	return []protocol.CodeAction{{
		Title:       "Remove the byte order mark from the file on disk",
		Kind:        protocol.QuickFix,
		Diagnostics: []protocol.Diagnostic{bomDiagnostic()},
		Command: &protocol.Command{
			Title:     "Remove the byte order mark from the file on disk",
			Command:   commandRemoveDiskBOM,
			Arguments: []any{string(f.uri)},
		},
	}}
}

// removeDiskBOM runs the fix: the file loses its first three bytes, only
// if it is still the editor's text behind a BOM (an unsaved edit or another
// writer would otherwise be overwritten), through the guarded replacement
// that keeps whatever another process appends meanwhile.
func (s *server) removeDiskBOM(_ context.Context, args []any) error {
	uri, _ := firstArg(args).(string)
	f := s.files.get(protocol.DocumentURI(uri))
	if f == nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s needs the URI of an open session file, got %s", commandRemoveDiskBOM, describe(firstArg(args))))
	}
	p, ok := filePath(f.uri)
	if !ok {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: %s is not a file on disk", commandRemoveDiskBOM, uri))
	}
	err := removeBOM(p, f.doc.Text())
	if err != nil {
		s.showError("sessionls: " + err.Error())
		return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	f.diskBOM = false
	s.publish(f)
	return nil
}

// removeBOM rewrites the file at path without its leading BOM, if the rest
// is exactly text.
func removeBOM(path, text string) error {
	src, err := atomicfile.Open(path)
	if err != nil {
		return fmt.Errorf("cannot remove the byte order mark of %s: %w", path, err)
	}
	defer src.Close()
	data, err := io.ReadAll(src)
	if err != nil {
		return fmt.Errorf("cannot remove the byte order mark of %s: %w", path, err)
	}
	switch {
	case !bytes.HasPrefix(data, utf8BOM):
		return fmt.Errorf("%s no longer begins with a byte order mark", path)
	case string(data[len(utf8BOM):]) != text:
		return fmt.Errorf("cannot remove the byte order mark of %s: the file on disk is not the editor's text (unsaved changes?); save it first", path)
	}
	if _, err := src.Replace(func(w io.Writer) error {
		_, err := w.Write(data[len(utf8BOM):])
		return err
	}); err != nil {
		if errors.Is(err, atomicfile.ErrChanged) {
			return fmt.Errorf("%s changed while its byte order mark was removed; nothing was written: %w", path, err)
		}
		return err
	}
	return nil
}

// firstArg is args[0], or nil.
func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

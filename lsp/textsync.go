package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Text synchronization: didOpen, didChange (incremental), didClose and
// didSave. The documents themselves are kept by fileManager (files.go).

// DidOpen starts analysing a session file; other documents are ignored.
func (s *server) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	doc := p.TextDocument
	st := s.currentSettings()
	if !s.isSessionDoc(doc.URI, string(doc.LanguageID), st.files, s.currentRoots()) {
		s.logger.Debug("ignoring document", zap.String("uri", string(doc.URI)), zap.String("language", string(doc.LanguageID)))
		s.files.ignore(doc.URI)
		return nil
	}
	f := s.files.open(doc.URI, string(doc.LanguageID), doc.Version, doc.Text, s.optionsFor(doc.URI))
	f.diskBOM = diskHasHiddenBOM(doc.URI, doc.Text)
	s.resolveDialect(f)
	s.stampConfigFiles(stampNew) // its configuration as just read (configwatch.go)
	s.logger.Debug("opened", zap.String("uri", string(doc.URI)), zap.Int("bytes", len(doc.Text)))
	s.publish(f)
	if f.inSync() {
		// The first codeLens request follows at once (see lensCache).
		var deferTo protocol.DocumentURI
		if st.tokens {
			deferTo = doc.URI
		}
		f.lenses.get(f.doc, f.report(), f.opts.Budget, deferTo)
	}
	return nil
}

// changeText applies a didChange's incremental (or full) changes; the
// params come from didChange (protocolfix.go), which decodes them. A
// character past the end of its line is the line's end (the document
// clamps it, as the LSP specification says). A change that still cannot be
// applied (a line past the document, a range ending before its start)
// leaves the last good text and puts the file out of sync: it is said once
// (showMessage), the out-of-sync diagnostic replaces the findings, and the
// file waits for a full-text change or a reopen (see file.applyChanges and
// file.inSync).
func (s *server) changeText(p didChangeParams) {
	uri := p.TextDocument.URI
	f := s.files.get(uri)
	if f == nil {
		if s.files.isIgnored(uri) {
			return
		}
		s.logger.Error("didChange for a document that is not open", zap.String("uri", string(uri)))
		s.showError(fmt.Sprintf("sessionls received an edit for %s, which is not open; reopen the file.", uri))
		return
	}
	limit := f.headLimit()
	if err := f.applyChanges(p.TextDocument.Version, p.ContentChanges); err != nil {
		s.logger.Error("didChange", zap.String("uri", string(uri)), zap.Int32("version", p.TextDocument.Version), zap.Error(err))
		if errors.Is(err, errStale) {
			return // already said, and already published
		}
		// Said once, when the document goes out of sync.
		s.showError(fmt.Sprintf("sessionls could not apply an edit to %s (%v) and is out of sync with it; reopen the file.", uri, err))
	}
	if f.auto && touchesHead(p.ContentChanges, limit) {
		s.resolveDialect(f) // the first record may have changed
	}
	if !f.isSeed() {
		f.stale()
		s.schedulePublish(f)
		return
	}
	s.publish(f)
}

// DidClose forgets the document and clears its diagnostics.
func (s *server) DidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	if f := s.files.close(p.TextDocument.URI); f != nil {
		s.clearDiagnostics(f)
	}
	return nil
}

// DidSave: a session file's text is already current through didChange; a
// configuration file saved in the editor is re-read (see configSaved).
func (s *server) DidSave(_ context.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.configSaved(p.TextDocument.URI)
	// The editor may have written the file with or without a BOM.
	if f := s.files.get(p.TextDocument.URI); f != nil && f.inSync() {
		if bom := diskHasHiddenBOM(f.uri, f.doc.Text()); bom != f.diskBOM {
			f.diskBOM = bom
			s.publish(f)
		}
	}
	return nil
}

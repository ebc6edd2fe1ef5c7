package lsp

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/tokens"
	"go.lsp.dev/protocol"
)

// file is one open session document.
type file struct {
	uri        protocol.DocumentURI
	languageID string
	version    int32
	doc        *analysis.Document
	opts       analysis.Options // the options doc analyses with
	// syncErr is why an edit could not be applied, nil while the document
	// is in sync. Out of sync, the client's text and ours differ: later
	// ranged edits are ignored until a full-text change (or a reopen)
	// brings the document back in step, and nothing computed from our text
	// may be offered as an edit (see inSync).
	syncErr error
	// diskBOM: the file on disk begins with a byte order mark the
	// editor's text lacks (diskbom.go); checked on open and on save.
	diskBOM bool

	// dialect reads the document (dialect.go): the setting's, or with auto
	// (the setting is auto) the one detected in det; dialectWhy says which
	// and why (sessionls/status).
	dialect    dialect.Dialect
	auto       bool
	det        dialect.Detection
	dialectWhy string
	// alt is a non-seed dialect's report of the current text, altFixes the
	// fixes it planned; nil while stale (file.report makes them).
	alt      *analysis.Report
	altFixes map[fixKey]plannedFix
	// altTok is the dialect's report with tokens counted in altTokEnc
	// (altTokErr: why they could not all be); nil while stale
	// (server.dialectTokens makes it).
	altTok    *analysis.Report
	altTokEnc tokens.Encoding
	altTokErr error
	// publishQueued: a publication of a non-seed document is posted and
	// not yet run (schedulePublish).
	publishQueued bool
	// symbols and lenses keep the last documentSymbol and codeLens answers
	// with the report they were made from (symbols.go, lenses.go).
	symbols struct {
		rep  *analysis.Report
		syms []any
	}
	lenses lensCache
}

// inSync reports whether f's text is the client's. Out of sync, the
// analysis describes a text the client does not have: the server then
// publishes only the out-of-sync diagnostic, shows no code lens, and
// offers no code action (an edit computed on our text would change the
// wrong lines of the client's). Every code action path checks it through
// server.actionableFile.
func (f *file) inSync() bool { return f.syncErr == nil }

// fileManager holds the open documents. Every method is called from the
// router's single worker goroutine; the mutex only makes that assumption
// safe to break (tests, the status request).
type fileManager struct {
	mu      sync.Mutex
	files   map[protocol.DocumentURI]*file
	ignored map[protocol.DocumentURI]bool // open, but not session files
}

func newFileManager() *fileManager {
	return &fileManager{
		files:   make(map[protocol.DocumentURI]*file),
		ignored: make(map[protocol.DocumentURI]bool),
	}
}

// isSessionFile reports whether an opened document is one sessionls
// analyses: language id jsonl, a .jsonl URI, or a path matching a glob.
func isSessionFile(uri protocol.DocumentURI, languageID string, globs, roots []string) bool {
	if strings.EqualFold(languageID, "jsonl") {
		return true
	}
	p := uriPath(string(uri))
	if strings.HasSuffix(strings.ToLower(p), ".jsonl") {
		return true
	}
	for _, g := range globs {
		if matchGlob(g, p, roots) {
			return true
		}
	}
	return false
}

// open starts tracking a document (replacing one already open at uri).
func (m *fileManager) open(uri protocol.DocumentURI, languageID string, version int32, text string, opts analysis.Options) *file {
	f := &file{uri: uri, languageID: languageID, version: version, doc: analysis.NewDocument(text, docOptions(opts)), opts: opts, dialect: dialect.Seed{}}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[uri] = f
	delete(m.ignored, uri)
	return f
}

func (m *fileManager) ignore(uri protocol.DocumentURI) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, uri)
	m.ignored[uri] = true
}

func (m *fileManager) isIgnored(uri protocol.DocumentURI) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ignored[uri]
}

// close stops tracking uri; it returns the file if it was a session file.
func (m *fileManager) close(uri protocol.DocumentURI) *file {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.files[uri]
	delete(m.files, uri)
	delete(m.ignored, uri)
	return f
}

func (m *fileManager) get(uri protocol.DocumentURI) *file {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.files[uri]
}

// all returns the open session files (in no particular order).
func (m *fileManager) all() []*file {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*file, 0, len(m.files))
	for _, f := range m.files {
		out = append(out, f)
	}
	return out
}

func toAnalysisChanges(cs []contentChange) []analysis.Change {
	out := make([]analysis.Change, len(cs))
	for i, c := range cs {
		out[i].Text = c.Text
		if c.Range != nil {
			out[i].Range = &analysis.Range{
				Start: analysis.Position{Line: int(c.Range.Start.Line), Character: int(c.Range.Start.Character)},
				End:   analysis.Position{Line: int(c.Range.End.Line), Character: int(c.Range.End.Character)},
			}
		}
	}
	return out
}

// errStale says a file is ignoring ranged edits until a full-text change.
var errStale = errors.New("an earlier edit could not be applied; waiting for a full-text change to resynchronize")

// applyChanges applies one didChange's changes to f. Changes before the
// last full-text change are moot (it replaces everything), so they are
// skipped; that also lets a full-text change resynchronize a file out of
// sync. On error the document keeps its last good text and the file is out
// of sync. The version is the client's either way (the out-of-sync
// diagnostic is published for it).
func (f *file) applyChanges(version int32, cs []contentChange) error {
	f.version = version
	start := 0
	for i, c := range cs {
		if c.Range == nil {
			start = i
		}
	}
	full := len(cs) > 0 && cs[start].Range == nil
	if !f.inSync() && !full {
		return errStale
	}
	if !full {
		start = 0
	}
	if err := f.doc.Apply(toAnalysisChanges(cs[start:])); err != nil {
		f.syncErr = err
		return fmt.Errorf("applying edit to version %d: %w", version, err)
	}
	f.syncErr = nil
	return nil
}

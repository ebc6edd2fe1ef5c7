package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis/ctxmap"
	"github.com/sessionls/sessionls/analysis/ctxmap/mappage"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// methodContextMap is the custom request for the context map of an open
// document:
//
//	sessionls/contextMap {"uri": "<document uri>", "html": true}
//	→ {"version": 3, "map": <analysis/ctxmap.Map>, "html": "<!DOCTYPE html>…"}
//
// map is the map of the document's text as the server holds it, with its
// current budget (the editor's setting, else its sessionls.toml's): the
// model `sessionls map --budget BUDGET FILE` builds for the same text.
// With the tokens setting on, tokens are counted too and the map is sized
// by them (as `map --tokens`), for a document of at most maxMapTokenBytes;
// a larger one is mapped in characters and its map's tokensError says why.
// html, when asked for, is the page `sessionls map` writes for that map
// (analysis/ctxmap/mappage): an editor shows it as is. version is the
// document version the map describes.
const methodContextMap = "sessionls/contextMap"

// maxMapTokenBytes bounds the text whose tokens a map counts while the
// editor waits (the tokenizer reads a few megabytes a second per core).
const maxMapTokenBytes = 4 << 20

type contextMapResult struct {
	Version int32       `json:"version"`
	Map     *ctxmap.Map `json:"map"`
	HTML    string      `json:"html,omitempty"`
}

func (s *server) contextMap(ctx context.Context, params any) (*contextMapResult, error) {
	const usage = `sessionls/contextMap needs {"uri": "<document uri>", "html": true|false}`
	m, _ := params.(map[string]any)
	uri, _ := m["uri"].(string)
	if uri == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, usage)
	}
	wantHTML := false
	if v, ok := m["html"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, usage+`: "html" is not a boolean`)
		}
		wantHTML = b
	}
	f := s.files.get(protocol.DocumentURI(uri))
	if f == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("sessionls/contextMap: %s is not an open session file", uri))
	}
	cmap, tokenizer, err := s.buildMap(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("sessionls/contextMap: %s: %w", uri, err)
	}
	res := &contextMapResult{Version: f.version, Map: cmap}
	if wantHTML {
		name := uri
		if p, ok := filePath(f.uri); ok {
			name = p
		}
		var b strings.Builder
		o := mappage.Options{Name: name, FileURL: uri, Tokenizer: tokenizer, Version: serverVersion}
		if err := mappage.Write(&b, cmap, o); err != nil {
			return nil, fmt.Errorf("sessionls/contextMap: rendering the page of %s: %w", uri, err)
		}
		res.HTML = b.String()
	}
	return res, nil
}

// buildMap maps f: from the report the server keeps (no second analysis),
// or with the tokens setting on, from an analysis of its text that counts
// them. It returns the tokenizer's name when tokens were counted.
func (s *server) buildMap(ctx context.Context, f *file) (*ctxmap.Map, string, error) {
	budget := f.opts.Budget
	cfg := ctxmap.Config{Budget: budget}
	if !s.currentSettings().tokens {
		m, err := ctxmap.FromReport(f.report(), cfg)
		return m, "", err
	}
	size := 0
	for i := range f.doc.LineCount() {
		size += len(f.doc.Line(i)) + 1
	}
	enc := s.tokenizerFor(f.uri)
	if size > maxMapTokenBytes {
		m, err := ctxmap.FromReport(f.report(), cfg)
		if err == nil {
			m.TokensError = fmt.Sprintf("the document is %s bytes, more than the %s whose tokens the server counts while the editor waits (sessionls map --tokens FILE counts them all)",
				textfmt.Thousands(size), textfmt.Thousands(maxMapTokenBytes))
		}
		return m, "", err
	}
	counter, err := tokens.New(enc)
	if err != nil {
		return nil, "", err
	}
	b := ctxmap.NewBuilder()
	opts := f.opts
	opts.Tokens, opts.Observer, opts.SkipMessages = counter, b, true
	rep, err := f.dialect.AnalyzeReader(ctx, strings.NewReader(f.doc.Text()), opts)
	if err != nil {
		return nil, "", err
	}
	cfg.ByTokens = true
	m, err := b.Build(rep, cfg)
	return m, string(enc), err
}

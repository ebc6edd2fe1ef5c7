package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// Token counts in the editor. Counting tokens costs far more than
// measuring characters, so the codeLens request never counts: with the
// tokens setting on, unit lenses are sent without a command and with
// lensData, and the client resolves the ones it shows (codeLens/resolve),
// which counts that unit's messages only. Counts are cached by line text,
// so a unit is counted once while its lines are unchanged. The hover counts
// the one message under the cursor.

// lensData is the data of an unresolved unit lens.
type lensData struct {
	URI  protocol.DocumentURI `json:"uri"`
	Line int                  `json:"line"` // the unit's first line (Unit.StartLine)
}

// maxCachedBytes bounds the line text the token cache keeps alive.
const maxCachedBytes = 64 << 20

// The server answers one message at a time, and the tokenizer reads a
// megabyte or two a second: a resolve or a hover that would count more
// than this much text skips the tokens instead of holding up the editor.
const (
	maxUnitTokenBytes  = 2 << 20
	maxHoverTokenBytes = 1 << 20
)

var errTooLong = errors.New("too much text to count tokens while the editor waits")

// tokenState holds a counter per encoding and the counts already made.
type tokenState struct {
	mu       sync.Mutex
	counters map[tokens.Encoding]*tokens.Counter
	counts   map[tokenKey]int
	bytes    int
}

type tokenKey struct {
	enc  tokens.Encoding
	line string
}

func newTokenState() *tokenState {
	return &tokenState{counters: map[tokens.Encoding]*tokens.Counter{}, counts: map[tokenKey]int{}}
}

// message counts the tokens of the message on the line text l (a valid
// line), with the cache.
func (ts *tokenState) message(enc tokens.Encoding, l string) (int, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	k := tokenKey{enc, l}
	if n, ok := ts.counts[k]; ok {
		return n, nil
	}
	c := ts.counters[enc]
	if c == nil {
		var err error
		if c, err = tokens.New(enc); err != nil {
			return 0, err
		}
		ts.counters[enc] = c
	}
	n, err := c.Message([]byte(l))
	if err != nil {
		return 0, err
	}
	if ts.bytes+len(l) > maxCachedBytes {
		clear(ts.counts)
		ts.bytes = 0
	}
	ts.counts[k] = n
	ts.bytes += len(l)
	return n, nil
}

// unitTokens counts the tokens of unit u of doc's report rep.
func (ts *tokenState) unitTokens(ctx context.Context, enc tokens.Encoding, doc *analysis.Document, rep *analysis.Report, u analysis.Unit) (int64, error) {
	size := 0
	for _, m := range rep.Messages[u.First : u.Last+1] {
		size += len(doc.Line(m.Line - 1))
	}
	if size > maxUnitTokenBytes {
		return 0, fmt.Errorf("%d bytes: %w", size, errTooLong)
	}
	var sum int64
	for _, m := range rep.Messages[u.First : u.Last+1] {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := ts.message(enc, doc.Line(m.Line-1))
		if err != nil {
			return 0, fmt.Errorf("line %d: %w", m.Line, err)
		}
		sum += int64(n)
	}
	return sum, nil
}

// CodeLensResolve completes an unresolved unit lens: its title gains the
// unit's token count, "1,234 chars · ≈ 310 tokens · 3 messages · 45,678
// from newest", with the command the lens has without tokens
// (sessionls.setBudget to the unit's chars from newest). A lens whose unit
// is gone (the document changed since) gets an empty title and no command
// id; the client asks for fresh lenses after a change anyway. A unit of
// more than maxUnitTokenBytes of text keeps the title without tokens.
func (s *server) CodeLensResolve(ctx context.Context, p *protocol.CodeLens) (*protocol.CodeLens, error) {
	out := *p
	out.Command = &protocol.Command{}
	var d lensData
	raw, err := json.Marshal(p.Data)
	if err != nil || json.Unmarshal(raw, &d) != nil || d.URI == "" {
		return &out, nil
	}
	f := s.files.get(d.URI)
	if f == nil {
		return &out, nil
	}
	rep := f.doc.Report()
	k := sort.Search(len(rep.Units), func(k int) bool { return rep.Units[k].StartLine >= d.Line })
	if k == len(rep.Units) || rep.Units[k].StartLine != d.Line {
		return &out, nil
	}
	u := rep.Units[k]
	n, err := s.toks.unitTokens(ctx, s.tokenizerFor(d.URI), f.doc, rep, u)
	if err != nil {
		s.logger.Sugar().Infof("codeLens/resolve: cannot count the tokens of the unit at line %d of %s: %v", d.Line, d.URI, err)
		n = -1 // the title without tokens
	}
	l := unitLens(f.doc, u, n)
	out.Command = l.Command
	return &out, nil
}

// hoverTokens is the hover's token line for the message on line text l
// whose cost is cost: "≈ 19 tokens · 4.3 chars per token (o200k_base)",
// or "" when they cannot be counted (or the line is longer than
// maxHoverTokenBytes).
func (s *server) hoverTokens(uri protocol.DocumentURI, l string, cost int64) string {
	if len(l) > maxHoverTokenBytes {
		return ""
	}
	enc := s.tokenizerFor(uri)
	n, err := s.toks.message(enc, l)
	if err != nil || n == 0 {
		return ""
	}
	return fmt.Sprintf("≈ %s tokens · %.1f chars per token (%s)", textfmt.Thousands(int64(n)), float64(cost)/float64(n), enc)
}

// tokenizerFor is a document's encoding: the editor's tokenizer setting if
// the user set one, else its configuration file's (whose default is
// o200k_base), as for every other setting.
func (s *server) tokenizerFor(uri protocol.DocumentURI) tokens.Encoding {
	if enc := s.currentSettings().tokenizer; enc != "" {
		return enc
	}
	cs, _ := s.configFor(uri)
	if enc, err := tokens.ParseEncoding(cs.Tokenizer.V); err == nil {
		return enc
	}
	return tokens.Default
}

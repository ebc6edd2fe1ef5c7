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
	// Budget marks the budget lens (Σ or ✂, on line Line), whose title
	// gains the file's or the kept units' tokens.
	Budget bool `json:"budget,omitempty"`
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
	return ts.messagesTokens(ctx, enc, doc, rep.Messages[u.First:u.Last+1], maxUnitTokenBytes)
}

// messagesTokens sums the tokens of msgs (messages of doc), or fails with
// errTooLong, counting nothing, when their lines hold more than limit
// bytes.
func (ts *tokenState) messagesTokens(ctx context.Context, enc tokens.Encoding, doc *analysis.Document, msgs []analysis.Message, limit int) (int64, error) {
	size := 0
	for _, m := range msgs {
		size += len(doc.Line(m.Line - 1))
	}
	if size > limit {
		return 0, fmt.Errorf("%s bytes, more than the %s the server counts while the editor waits: %w",
			textfmt.Thousands(int64(size)), textfmt.Thousands(int64(limit)), errTooLong)
	}
	var sum int64
	for _, m := range msgs {
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

// maxTotalTokenBytes bounds the text whose tokens the budget lens and the
// status count (the whole file's, for the totals): 15 MB of session take
// about 0.3 CPU s the first time (sessionls budget --tokens on the loaded
// 2-core machine) and only the changed lines after an edit (the cache);
// the cache holds 64 MB of lines, so a file this size stays in it.
const maxTotalTokenBytes = 32 << 20

// docTokens are the token totals of a document, as `sessionls budget
// --tokens` reports them: total is every message's (totalTokens), kept
// the kept units' (cutoff.keptTokens, -1 without a cutoff). They exist
// only for a file that loads.
type docTokens struct {
	enc         tokens.Encoding
	total, kept int64
}

// budgetTokens counts a document's totals for the budget lens and the
// status. It fails for a file that does not load (the runtime holds no
// messages of it) and for one of more than maxTotalTokenBytes. A document
// of another dialect than seed is counted by its dialect (dialectTokens):
// its lines are records, not the text of seed messages.
func (s *server) budgetTokens(ctx context.Context, f *file, rep *analysis.Report) (docTokens, error) {
	enc := s.tokenizerFor(f.uri)
	doc := f.doc
	dt := docTokens{enc: enc, kept: -1}
	if !rep.Loads() {
		return dt, errors.New("the file does not load")
	}
	if !f.isSeed() {
		tr, err := s.dialectTokens(f, enc)
		if err != nil {
			return dt, err
		}
		dt.total = tr.TotalTokens
		if c := tr.Cutoff; c != nil && tr.CutoffErr == nil {
			dt.kept = c.KeptTokens
		}
		return dt, nil
	}
	var err error
	if dt.total, err = s.toks.messagesTokens(ctx, enc, doc, rep.Messages, maxTotalTokenBytes); err != nil {
		return dt, err
	}
	if c := rep.Cutoff; c != nil && rep.CutoffErr == nil {
		dt.kept = 0
		for _, u := range rep.Units[c.FirstUnit:] {
			// Counted above: the cache answers.
			n, err := s.toks.messagesTokens(ctx, enc, doc, rep.Messages[u.First:u.Last+1], maxTotalTokenBytes)
			if err != nil {
				return dt, err
			}
			dt.kept += n
		}
	}
	return dt, nil
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
	rep := f.report()
	if d.Budget {
		return s.resolveBudgetLens(ctx, f, rep, d, out)
	}
	k := sort.Search(len(rep.Units), func(k int) bool { return rep.Units[k].StartLine >= d.Line })
	if k == len(rep.Units) || rep.Units[k].StartLine != d.Line {
		return &out, nil
	}
	u := rep.Units[k]
	n, err := int64(-1), error(nil)
	if f.isSeed() {
		n, err = s.toks.unitTokens(ctx, s.tokenizerFor(d.URI), f.doc, rep, u)
	} else {
		// Another dialect's lines are records, not seed messages' text:
		// its own analysis with tokens counts the unit (same units).
		var tr *analysis.Report
		if tr, err = s.dialectTokens(f, s.tokenizerFor(d.URI)); err == nil {
			if j := sort.Search(len(tr.Units), func(j int) bool { return tr.Units[j].StartLine >= d.Line }); j < len(tr.Units) && tr.Units[j].StartLine == d.Line {
				n = tr.Units[j].Tokens
			}
		}
	}
	if err != nil {
		s.logger.Sugar().Infof("codeLens/resolve: cannot count the tokens of the unit at line %d of %s: %v", d.Line, d.URI, err)
		n = -1 // the title without tokens
	}
	l := unitLens(f.doc, u, n)
	out.Command = l.Command
	return &out, nil
}

// resolveBudgetLens completes the budget lens of the tokens setting: the
// Σ lens's title with the file's tokens after its chars, "Σ 12,345 chars ·
// ≈ 3,100 tokens · 42 messages · set a context budget", the ✂ lens's with
// the kept units' tokens, "✂ budget 8,000 · keeps lines 12–40 · 7,912
// chars · ≈ 1,980 tokens · 11 messages above are trimmed" (the totals of
// `sessionls budget --tokens`). When they cannot be counted, the title is
// the one without tokens; when the lens has moved (the document changed
// since), the title is empty.
func (s *server) resolveBudgetLens(ctx context.Context, f *file, rep *analysis.Report, d lensData, out protocol.CodeLens) (*protocol.CodeLens, error) {
	line1, title, countable := budgetLens(rep, f.opts.Budget, -1)
	if title == "" || !countable || line1 != d.Line {
		return &out, nil
	}
	out.Command = &protocol.Command{Title: title, Command: commandSetBudget}
	dt, err := s.budgetTokens(ctx, f, rep)
	if err != nil {
		s.logger.Sugar().Infof("codeLens/resolve: cannot count the tokens of %s: %v", f.uri, err)
		return &out, nil
	}
	n := dt.total
	if f.opts.Budget > 0 {
		n = dt.kept
	}
	_, out.Command.Title, _ = budgetLens(rep, f.opts.Budget, n)
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
	if err != nil {
		return ""
	}
	return tokenLine(int64(n), cost, enc)
}

// tokenLine is the hover's token line for n tokens of a text of cost
// chars: "≈ 19 tokens · 4.3 chars per token (o200k_base)", "" for none.
func tokenLine(n, cost int64, enc tokens.Encoding) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("≈ %s tokens · %.1f chars per token (%s)", textfmt.Thousands(n), float64(cost)/float64(n), enc)
}

// dialectHoverTokens is the hover's token line for 0-based line i of a
// non-seed document: the tokens its dialect counts for the messages of
// that line (the text their cost is computed from, as `sessionls budget
// --tokens` counts it), from the report with tokens the lenses and the
// status use (dialectTokens). A line holding several messages (a Claude
// Code record with tool results) is one record, counted once: its
// tokens and chars are the line's. With the tokens setting off the hover
// counts, like a seed message's, at most maxHoverTokenBytes of text while
// the editor waits (a larger document's tokens are shown once the setting
// has counted them); with it on, as much as the lenses (maxTotalTokenBytes).
func (s *server) dialectHoverTokens(f *file, i int) string {
	enc := s.tokenizerFor(f.uri)
	limit := maxHoverTokenBytes
	if s.currentSettings().tokens {
		limit = maxTotalTokenBytes
	}
	tr, err := s.dialectTokensWithin(f, enc, limit)
	if err != nil {
		return ""
	}
	m, ok := tr.MessageAtLine(i + 1)
	if !ok {
		return ""
	}
	var n, cost int64
	for _, msg := range tr.Messages[m:] {
		if msg.Line != i+1 {
			break
		}
		n += msg.Tokens
		cost += msg.Cost
	}
	return tokenLine(n, cost, enc)
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

// dialectTokens is a non-seed document's report with its tokens: its
// dialect's analysis with a token counter (each dialect counts the content
// its API would be sent, as `sessionls budget --tokens` does), made once
// per text, options and encoding and kept with the document (file.stale
// drops it). It fails for a text of more than maxTotalTokenBytes and when
// a message's tokens cannot be counted.
func (s *server) dialectTokens(f *file, enc tokens.Encoding) (*analysis.Report, error) {
	return s.dialectTokensWithin(f, enc, maxTotalTokenBytes)
}

// dialectTokensWithin is dialectTokens counting a text of at most limit
// bytes (a report already made is returned whatever its size).
func (s *server) dialectTokensWithin(f *file, enc tokens.Encoding, limit int) (*analysis.Report, error) {
	if f.altTok != nil && f.altTokEnc == enc {
		return f.altTok, f.altTokErr
	}
	text := f.doc.Text()
	if len(text) > limit {
		return nil, fmt.Errorf("%s bytes, more than the %s the server counts while the editor waits: %w",
			textfmt.Thousands(int64(len(text))), textfmt.Thousands(int64(limit)), errTooLong)
	}
	c, err := s.toks.counter(enc)
	if err != nil {
		return nil, err
	}
	opts := f.opts
	opts.Tokens = c
	rep := f.dialect.Analyze([]byte(text), opts)
	f.altTok, f.altTokEnc, f.altTokErr = rep, enc, nil
	if rep.TokensErr != nil {
		f.altTokErr = rep.TokensErr
	}
	return f.altTok, f.altTokErr
}

// counter is the token counter of enc, made once.
func (ts *tokenState) counter(enc tokens.Encoding) (*tokens.Counter, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	c := ts.counters[enc]
	if c == nil {
		var err error
		if c, err = tokens.New(enc); err != nil {
			return nil, err
		}
		ts.counters[enc] = c
	}
	return c, nil
}

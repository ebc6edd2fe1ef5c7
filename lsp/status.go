package lsp

import (
	"context"
	"fmt"

	"github.com/sessionls/sessionls/analysis"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// statusResult is the answer to sessionls/status {"uri": "..."}, for a
// status bar. Nullable fields are null when they do not apply: no budget,
// or a budget with no cutoff (the file does not load, or trimContext
// throws; error then says why).
type statusResult struct {
	Budget        *int64  `json:"budget"`
	TotalChars    int64   `json:"totalChars"`
	KeptChars     *int64  `json:"keptChars"`
	FirstKeptLine *int    `json:"firstKeptLine"`
	Messages      int     `json:"messages"`
	Loads         bool    `json:"loads"`
	Error         *string `json:"error"`
	// MinBudget is the least budget that works (the newest unit's cost);
	// null when the file does not load or holds no messages.
	MinBudget *int64 `json:"minBudget"`
	// BudgetSource says where the budget comes from: "editor setting
	// sessionls.budget", or the key in a configuration file
	// ("/repo/sessionls.toml:3:1"); null without a budget.
	BudgetSource *string `json:"budgetSource"`
	statusTokens
	// Dialect is the session format the document is read in ("seed",
	// "claude-code", "codex"); DialectWhy says why: "set by ..." or
	// "auto (default), detected: line 1, the first line JSON.parse
	// accepts, is a ... record".
	Dialect    string `json:"dialect"`
	DialectWhy string `json:"dialectWhy"`
	statusContext
}

// statusTokens: with the tokens setting on, for a file that loads, the
// tokenizer, every message's tokens (totalTokens) and the kept units'
// (keptTokens, null without a cutoff), as `sessionls budget --tokens`
// counts them; tokensError says why they are null when they cannot be
// counted (a file of more than maxTotalTokenBytes). The keys are absent
// with the setting off or for a file that does not load. Embedded, so
// its keys are statusResult's own, in this place.
type statusTokens struct {
	Tokenizer   *string `json:"tokenizer,omitempty"`
	TotalTokens *int64  `json:"totalTokens,omitempty"`
	KeptTokens  *int64  `json:"keptTokens,omitempty"`
	TokensError *string `json:"tokensError,omitempty"`
}

// statusContext: for a dialect whose file records the model's usage
// (claude-code, codex), the last turn's context (contextTokens, at
// contextLine), the model's window (contextWindow, absent when unknown)
// and the fill in percent of it (contextFill); compactions counts the
// compaction points, and for a compacted file that loads the resume keys
// say what a resume sends, the messages from the last compaction on
// (analysis.Report.Resume, `budget --format json`'s resume): their first
// and last lines, count and chars. The keys are absent when the file
// records none. Embedded, as statusTokens.
type statusContext struct {
	ContextTokens   *int64 `json:"contextTokens,omitempty"`
	ContextLine     *int   `json:"contextLine,omitempty"`
	ContextWindow   *int64 `json:"contextWindow,omitempty"`
	ContextFill     *int64 `json:"contextFill,omitempty"`
	Compactions     int    `json:"compactions,omitempty"`
	ResumeStartLine *int   `json:"resumeStartLine,omitempty"`
	ResumeEndLine   *int   `json:"resumeEndLine,omitempty"`
	ResumeMessages  *int   `json:"resumeMessages,omitempty"`
	ResumeChars     *int64 `json:"resumeChars,omitempty"`
}

func (s *server) status(ctx context.Context, params any) (*statusResult, error) {
	m, _ := params.(map[string]any)
	uri, _ := m["uri"].(string)
	if uri == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, `sessionls/status needs {"uri": "<document uri>"}`)
	}
	f := s.files.get(protocol.DocumentURI(uri))
	if f == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("sessionls/status: %s is not an open session file", uri))
	}
	rep := f.report()
	res := &statusResult{
		TotalChars: rep.TotalChars,
		Messages:   len(rep.Messages),
		Loads:      rep.Loads(),
		Dialect:    f.dialect.Name(),
		DialectWhy: f.dialectWhy,
	}
	res.statusContext = contextStatus(rep)
	if b := f.opts.Budget; b > 0 {
		res.Budget = &b
		src := s.budgetSource(f.uri)
		res.BudgetSource = &src
	}
	if c := rep.Cutoff; c != nil && rep.CutoffErr == nil {
		kept, first := c.KeptChars, c.FirstKeptLine
		res.KeptChars, res.FirstKeptLine = &kept, &first
	}
	if n, ok := rep.MinBudget(); ok {
		res.MinBudget = &n
	}
	var msg string
	switch {
	case !rep.Loads():
		msg = loadError(rep)
	case rep.CutoffErr != nil:
		msg = rep.CutoffErr.Error()
	}
	if msg != "" {
		res.Error = &msg
	}
	if s.currentSettings().tokens && rep.Loads() {
		res.statusTokens = s.tokensStatus(ctx, f, rep)
	}
	return res, nil
}

// contextStatus is the status's part on the model's context.
func contextStatus(rep *analysis.Report) statusContext {
	var c statusContext
	if u, ok := lastUsage(rep); ok {
		c.ContextTokens, c.ContextLine = &u.ContextTokens, &u.Line
		if fill, ok := u.Fill(); ok {
			c.ContextWindow, c.ContextFill = &u.ContextWindow, &fill
		}
	}
	c.Compactions = len(rep.Compactions)
	if rs, ok := rep.Resume(); ok {
		c.ResumeStartLine, c.ResumeEndLine, c.ResumeMessages, c.ResumeChars = &rs.StartLine, &rs.EndLine, &rs.Messages, &rs.Chars
	}
	return c
}

// tokensStatus is the status's part on tokens, for a file that loads.
func (s *server) tokensStatus(ctx context.Context, f *file, rep *analysis.Report) statusTokens {
	dt, err := s.budgetTokens(ctx, f, rep)
	enc := string(dt.enc)
	t := statusTokens{Tokenizer: &enc}
	if err != nil {
		e := "cannot count the tokens: " + err.Error()
		t.TokensError = &e
		return t
	}
	t.TotalTokens = &dt.total
	if dt.kept >= 0 {
		t.KeptTokens = &dt.kept
	}
	return t
}

// budgetSource says where a document's budget comes from, by the one
// precedence rule of optionsFor: the editor's setting where the user set
// one, else its configuration file's key.
func (s *server) budgetSource(uri protocol.DocumentURI) string {
	return s.effectiveSettings(uri).Budget.Source.String()
}

// loadError is what loadSession throws for the file (the engine's wording,
// kept when the invalid-line checks are off); for a file too long to read,
// the short form the lenses show.
func loadError(rep *analysis.Report) string {
	lf := rep.LoadFailure()
	if lf.Line == 0 {
		return lf.Summary()
	}
	return lf.Message
}

package analysis

import (
	"cmp"
	"slices"

	"github.com/sessionls/sessionls/internal/textfmt"
)

// Facts some session formats record beside their messages (issue 21): the
// model's own account of each turn and the points where the history was
// compacted. The seed runtime records neither, so a seed report leaves
// both nil and pays nothing for them.

// Usage is what the model reported for one turn, where the file records it
// (Codex CLI's token_count events, Claude Code's message usage).
type Usage struct {
	Line int // physical line (1-based) that records it
	// The turn's tokens as the model's API counted them. How cached input
	// relates to input is the API's: OpenAI counts cached input inside
	// InputTokens, Anthropic beside it; ContextTokens is the sum that is
	// the context either way.
	InputTokens       int64
	CachedInputTokens int64
	OutputTokens      int64
	ReasoningTokens   int64
	// ContextTokens is the context the model read at that turn.
	ContextTokens int64
	// ContextWindow is the model's context window: as the file records it
	// (Codex CLI), or the documented window of the model the turn names
	// (Claude Code, whose files do not record it); 0 when unknown.
	ContextWindow int64
}

// Compaction is a point where the history was compacted: the model is no
// longer sent the messages before it, but a summary (or a replacement
// history) that Line holds.
type Compaction struct {
	Line int // physical line (1-based) of the compaction record
	// Replaced is how many messages (Report.Messages, from 0) precede it:
	// the history it replaces.
	Replaced int
	// Chars is the cost of what takes their place (in the units of
	// Message.Cost).
	Chars int64
}

// SetLoad says whether the dialect's loader loads the file: line 0 when it
// does; otherwise the line (1-based) of the first reason it refuses it and
// its message, which LoadFailure returns. A JSON-only analysis
// (Options.JSONOnly) sets the first line JSON.parse refuses, which a
// dialect whose loader skips such lines replaces with its own verdict.
func (r *Report) SetLoad(line int, message string) {
	r.FirstInvalidLine, r.loadMessage = max(line, 0), message
	if line <= 0 {
		r.loadMessage = ""
	}
}

// Fill is the turn's context as a whole percent of its window, rounded
// half up (23 for 45,210 of 200,000); ok is false when the window is
// unknown.
func (u Usage) Fill() (percent int64, ok bool) {
	if u.ContextWindow <= 0 {
		return 0, false
	}
	return (u.ContextTokens*100 + u.ContextWindow/2) / u.ContextWindow, true
}

// Summary says what the compaction did, as the front ends show it: "13
// messages replaced by a 2,340-char summary". A dialect whose report holds
// no message before the compaction (Claude Code resumes from the last
// boundary: Replaced 0) says "the history before it" instead.
func (c Compaction) Summary() string {
	what := "the history before it"
	if c.Replaced > 0 {
		what = textfmt.Plural(c.Replaced, "message", "messages")
	}
	return what + " replaced by a " + textfmt.Thousands(c.Chars) + "-char summary"
}

// Resume is what resuming a compacted session sends of its history: the
// messages from its last compaction on (the last Compaction.Replaced
// messages precede it and are not sent), the compaction's summary or
// replacement history first, in the units of the budget.
type Resume struct {
	// StartLine and EndLine are the physical lines of the first and the
	// last message sent (both the last compaction's line when none is).
	StartLine, EndLine int
	Messages           int
	Chars              int64
	// Tokens is their tokens, when Options.Tokens counted them.
	Tokens int64
}

// Resume is what a resume of the session sends (see Resume), for every
// dialect whose report has Compactions: for Codex CLI the compaction's
// replacement and the messages after it, for Claude Code (Replaced 0: the
// report's messages are the conversation it resumes) every message. ok is
// false when the history was never compacted (a resume then sends every
// message: TotalChars, TotalTokens) or the file does not load (a resume
// is refused). It reads the units, so a report made with SkipMessages has
// it too: a dialect closes its units at a compaction, none holding
// messages from both sides of it.
func (r *Report) Resume() (rs Resume, ok bool) {
	n := len(r.Compactions)
	if n == 0 || !r.Loads() {
		return Resume{}, false
	}
	c := r.Compactions[n-1]
	k, _ := slices.BinarySearchFunc(r.Units, c.Replaced, func(u Unit, first int) int { return cmp.Compare(u.First, first) })
	if k == len(r.Units) {
		return Resume{StartLine: c.Line, EndLine: c.Line}, true
	}
	u := r.Units[k]
	rs = Resume{StartLine: u.StartLine, EndLine: r.Units[len(r.Units)-1].EndLine, Chars: u.FromNewest, Tokens: u.TokensFromNewest}
	rs.Messages = r.Units[len(r.Units)-1].Last - u.First + 1
	return rs, true
}

// Summary says what a resume sends, as every front end shows it: "a
// resume sends lines 23–40: 11 messages, 2,118 chars", with ", 590
// tokens" when tokens says they were counted.
func (rs Resume) Summary(tokens bool) string {
	if rs.Messages == 0 {
		return "a resume sends no message"
	}
	s := "a resume sends " + textfmt.LineRange(rs.StartLine, rs.EndLine) + ": " +
		textfmt.Plural(rs.Messages, "message", "messages") + ", " + textfmt.Thousands(rs.Chars) + " chars"
	if tokens {
		s += ", " + textfmt.Thousands(rs.Tokens) + " tokens"
	}
	return s
}

package codex

import (
	"fmt"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// callState is a call of the current segment (since the last compaction).
type callState struct {
	id       string
	msg      int // index in the messages; -1 for a call in a replacement history
	ln       int
	span     line.Span
	family   callFamily
	name     string
	answered bool
	lastOut  int // index of the last output answering it
}

// collector builds the dialect's part of the report from the facts of the
// lines JSON.parse accepts, in line order: the loader's verdicts, the
// history's messages, the pairing of calls with outputs, compactions and
// usage. It holds a few words per message and one entry per call of the
// current segment, never a line.
type collector struct {
	findings    []analysis.Finding
	msgs        []analysis.Message
	calls       map[string]*callState
	open        []*callState
	lastOut     map[int]int // message index of a call → index of its last output
	usage       []analysis.Usage
	compactions []analysis.Compaction
	haveMeta    bool
	skipped     int
	since       int64 // chars of the history since the last compaction
	tokErr      *analysis.TokenError
}

func newCollector() *collector {
	return &collector{calls: map[string]*callState{}, lastOut: map[int]int{}}
}

// refuse records that codex refuses the file, at line ln (col -1: the
// whole line).
func (c *collector) refuse(rep *analysis.Report, ln, col int, msg string) {
	if rep.FirstInvalidLine == 0 || ln < rep.FirstInvalidLine {
		rep.SetLoad(ln, msg)
	}
	span := line.Span{}
	if col >= 0 {
		span = line.Span{StartCol: col, EndCol: col + 1}
	}
	c.findings = append(c.findings, analysis.Finding{Line: ln, Span: span, Code: analysis.CodeCodexResumeRefused, Message: msg})
}

// add takes line n's facts, in line order.
func (c *collector) add(n int, f facts) {
	switch {
	case f.blank || f.badUTF8 >= 0 || f.jsonBad:
		return // skipped before parsing; a file not UTF-8 is refused (textScan)
	case f.skip != "":
		c.skipped++
		c.findings = append(c.findings, analysis.Finding{
			Line: n, Span: f.whole, Code: analysis.CodeCodexSkippedLine,
			Message: "codex skips this line when it resumes the session: " + f.skip,
		})
		return
	}
	rec := f.rec
	switch rec.kind {
	case kindSessionMeta:
		c.haveMeta = true
		return
	case kindEvent:
		if u := rec.usage; u != nil {
			// The context at that turn is codex's own measure,
			// TokenUsage::tokens_in_context_window: last_token_usage's
			// total_tokens (input, cached input included, + output).
			c.usage = append(c.usage, analysis.Usage{
				Line: n, InputTokens: u.input, CachedInputTokens: u.cached, OutputTokens: u.output,
				ReasoningTokens: u.reasoning, ContextTokens: u.total, ContextWindow: u.window,
			})
		}
		return
	case kindCompacted:
		c.closeSegment(n)
		c.compactions = append(c.compactions, analysis.Compaction{Line: n, Replaced: len(c.msgs), Chars: rec.summary})
		what := "a summary"
		if rec.hasRepl {
			what = "a replacement history"
		}
		c.findings = append(c.findings, analysis.Finding{
			Line: n, Span: f.whole, Code: analysis.CodeCodexCompaction,
			Message: fmt.Sprintf("compacted: the %s above (%s chars) are no longer sent; the model is sent %s of %s chars instead",
				textfmt.Plural(len(c.msgs), "message", "messages"), textfmt.Thousands(c.since), what, textfmt.Thousands(rec.summary)),
		})
		for _, sub := range rec.replaced {
			if sub.kind == kindCall {
				c.calls[sub.callID] = &callState{id: sub.callID, msg: -1, family: sub.family, answered: true}
			}
		}
		c.msgs = append(c.msgs, analysis.Message{Line: n, Role: line.RoleUser, Cost: rec.summary, Tokens: f.tokens})
		c.since = rec.summary
		return
	case kindMessage, kindReasoning, kindCall, kindOutput:
	default:
		return // turn_context, and response items never sent (Other)
	}
	m := analysis.Message{Line: n, Cost: rec.cost, Tokens: f.tokens}
	if f.tokErr != nil && c.tokErr == nil {
		c.tokErr = &analysis.TokenError{Line: n, Err: f.tokErr}
	}
	switch rec.kind {
	case kindMessage:
		m.Role = line.RoleUser
		if rec.role == "assistant" {
			m.Role = line.RoleAssistant
		}
	case kindReasoning:
		m.Role = line.RoleAssistant
	case kindCall:
		m.Role = line.RoleAssistant
		m.Calls = []line.Call{{ID: rec.callID, IDSpan: f.idSpan, Name: rec.name}}
		if prev, ok := c.calls[rec.callID]; ok {
			var rel []analysis.Related
			if prev.ln > 0 {
				rel = append(rel, analysis.Related{Line: prev.ln, Span: prev.span, Message: "first used here"})
			}
			c.findings = append(c.findings, analysis.Finding{
				Line: n, Span: f.idSpan, Code: analysis.CodeDuplicateCallID, Related: rel,
				Message: fmt.Sprintf("call_id %s is used by an earlier call: its output answers whichever call the API pairs it with, and the other is left without one", quoteID(rec.callID)),
			})
		}
		cs := &callState{id: rec.callID, msg: len(c.msgs), ln: n, span: f.idSpan, family: rec.family, name: rec.name}
		c.calls[rec.callID] = cs
		c.open = append(c.open, cs)
	case kindOutput:
		m.Role = line.RoleTool
		m.ToolCallID = rec.callID
		m.ToolCallIDSpan = f.idSpan
		m.IsError = rec.isError
		cs, ok := c.calls[rec.callID]
		switch {
		case !ok || cs.family != rec.family:
			c.findings = append(c.findings, analysis.Finding{
				Line: n, Span: f.idSpan, Code: analysis.CodeOrphanToolResult,
				Message: fmt.Sprintf("no %s before this %s has call_id %s: codex drops it when it resumes, and %s",
					callType(rec.family), rec.family.outputType(), quoteID(rec.callID), rec.family.orphanError(quoteID(rec.callID))),
			})
		case cs.answered && cs.msg >= 0:
			c.findings = append(c.findings, analysis.Finding{
				Line: n, Span: f.idSpan, Code: analysis.CodeDuplicateCallID,
				Related: []analysis.Related{{Line: cs.ln, Span: cs.span, Message: "the call"}},
				Message: fmt.Sprintf("a second %s for call_id %s: the call already has its output", rec.family.outputType(), quoteID(rec.callID)),
			})
			cs.lastOut = len(c.msgs)
		default:
			cs.answered = true
			cs.lastOut = len(c.msgs)
		}
	}
	c.since += m.Cost
	c.msgs = append(c.msgs, m)
}

func callType(f callFamily) string {
	if f == famToolSearch {
		return "tool_search_call"
	}
	return strings.TrimSuffix(f.outputType(), "_output")
}

// closeSegment ends the calls of a segment: at the end of the file
// (compactedAt 0), or at a compaction, after which they are no longer sent.
func (c *collector) closeSegment(compactedAt int) {
	for _, cs := range c.open {
		if cs.answered {
			c.lastOut[cs.msg] = max(c.lastOut[cs.msg], cs.lastOut)
			continue
		}
		msg := fmt.Sprintf("%s %s (%s) has no %s: a history sent as recorded is rejected with \"No tool output found for %s %s.\" (codex itself sends \"aborted\" in its place when it resumes)",
			callType(cs.family), quoteID(cs.id), quoteID(cs.name), cs.family.outputType(), cs.family.call(), quoteID(cs.id))
		if compactedAt > 0 {
			msg = fmt.Sprintf("%s %s (%s) has no %s; the compaction at line %d replaced it, so it is no longer sent (a history rebuilt from the lines would be rejected with \"No tool output found for %s %s.\")",
				callType(cs.family), quoteID(cs.id), quoteID(cs.name), cs.family.outputType(), compactedAt, cs.family.call(), quoteID(cs.id))
		}
		c.findings = append(c.findings, analysis.Finding{Line: cs.ln, Span: cs.span, Code: analysis.CodeMissingToolResult, Message: msg})
	}
	c.open = nil
	clear(c.calls)
}

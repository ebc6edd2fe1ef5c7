package claude

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// Codes this dialect adds to the registry (analysis/rules.go).
const (
	CodeBrokenParentChain = analysis.CodeBrokenParentChain
	CodeDuplicateUUID     = analysis.CodeDuplicateUUID
	CodeMalformedRecord   = analysis.CodeMalformedRecord
)

// reader decodes records in the engine's workers and keeps them in order.
type reader struct {
	count   func(string) (int, error)
	entries []*entry
	// scratch holds the workers' buffers (*[]byte) between records.
	scratch sync.Pool
}

func (r *reader) Decode(l []byte) any {
	buf, _ := r.scratch.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	e := decode(l, r.count, buf)
	if cap(*buf) <= 1<<20 { // a huge record's buffer is let go
		r.scratch.Put(buf)
	}
	return e
}

func (r *reader) Record(rec *analysis.Record) {
	e, ok := rec.Value.(*entry)
	if !ok {
		return
	}
	e.ln, e.offset, e.size = rec.Line, rec.Offset, rec.Len
	r.entries = append(r.entries, e)
}

// counter is what a token counter offers beyond the runtime's messages
// (analysis/tokens.Counter has it).
type counter interface {
	Count(text string) (int, error)
}

func newReader(opts analysis.Options) *reader {
	r := &reader{}
	if c, ok := opts.Tokens.(counter); ok {
		r.count = c.Count
	}
	return r
}

// jsonOptions are the options of the JSON-level pass.
func jsonOptions(opts analysis.Options, r *reader) analysis.Options {
	return analysis.Options{
		JSONOnly: true, Records: r, SkipMessages: true,
		Disabled: opts.Disabled, MaxFindingsPerCode: opts.MaxFindingsPerCode, OmittedLines: opts.OmittedLines,
	}
}

// conv is a transcript read: its records, the conversation the loader
// resumes (the chain from the last leaf), and the API messages it sends.
type conv struct {
	entries []*entry
	byUUID  map[string]int // index of the first record with each uuid
	chain   []int          // indexes into entries, oldest first
	onChain map[int]bool
	msgs    []apiMsg
	broken  bool // the chain stops at a parentUuid naming no record
	// For fixes, built when first needed: the records naming each uuid
	// as parent, and each record's root.
	kids  map[string][]int
	roots []int
}

// apiMsg is one message of the API request: consecutive records of the
// same role, merged (Claude Code writes one streamed response as several
// assistant records, and parallel calls' results as several user records;
// the Messages API combines consecutive turns of one role).
type apiMsg struct {
	role  string
	parts []part // content blocks in order (a string content is one part, block -1)
}

type part struct {
	e, b int // entry index, block index (-1: the whole string content)
}

// read builds the conversation of entries.
func read(entries []*entry) *conv {
	c := &conv{entries: entries, byUUID: make(map[string]int, len(entries)), onChain: map[int]bool{}}
	for i, e := range entries {
		if e.hasUUID {
			if _, dup := c.byUUID[e.uuid]; !dup {
				c.byUUID[e.uuid] = i
			}
		}
	}
	// The leaf: the last user or assistant record of the main
	// conversation (not a subagent's sidechain); in a subagent's own
	// transcript (subagents/agent-*.jsonl, every record a sidechain), its
	// last one.
	leaf, side := -1, -1
	for i := len(entries) - 1; i >= 0 && leaf < 0; i-- {
		e := entries[i]
		if e.hasUUID && (e.typ == "user" || e.typ == "assistant") {
			if !e.sidechain {
				leaf = i
			} else if side < 0 {
				side = i
			}
		}
	}
	if leaf < 0 {
		leaf = side
	}
	for i := leaf; i >= 0; {
		if c.onChain[i] {
			c.broken = true // a loop
			break
		}
		c.onChain[i] = true
		c.chain = append(c.chain, i)
		e := entries[i]
		if e.boundary || !e.hasParent {
			break
		}
		p, ok := c.byUUID[e.parent]
		if !ok {
			c.broken = true
			break
		}
		i = p
	}
	for l, r := 0, len(c.chain)-1; l < r; l, r = l+1, r-1 {
		c.chain[l], c.chain[r] = c.chain[r], c.chain[l]
	}
	for _, i := range c.chain {
		e := entries[i]
		if !e.api {
			continue
		}
		if n := len(c.msgs); n == 0 || c.msgs[n-1].role != e.role {
			c.msgs = append(c.msgs, apiMsg{role: e.role})
		}
		m := &c.msgs[len(c.msgs)-1]
		if e.str {
			m.parts = append(m.parts, part{i, -1})
			continue
		}
		for b := range e.blocks {
			m.parts = append(m.parts, part{i, b})
		}
	}
	return c
}

func (c *conv) block(p part) *block {
	if p.b < 0 {
		return nil
	}
	return &c.entries[p.e].blocks[p.b]
}

// The Messages API's errors, verbatim (their messages.N index counts the
// request's messages from 0).
func errMissing(n int, ids []string) string {
	return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", n, strings.Join(ids, ", "))
}

func errUnexpected(n, k int, id string) string {
	return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", n, k, id)
}

func errNotUnique(n, k int) string {
	return fmt.Sprintf("messages.%d.content.%d: `tool_use` ids must be unique", n, k)
}

// check finds what the loader and the API make of the conversation.
func (c *conv) check(refused map[int]bool) []analysis.Finding {
	var fs []analysis.Finding
	add := func(e *entry, at line.Span, code, msg string, rel ...analysis.Related) {
		sev := analysis.SeverityWarning
		if r, _, ok := analysis.RuleFor(code); ok {
			sev = r.SeverityIn(Dialect{}.Name())
		}
		fs = append(fs, analysis.Finding{Line: e.ln, Span: at, Severity: sev, Code: code, Message: msg, Related: rel})
	}
	refusedNote := ""
	if len(refused) > 0 {
		refusedNote = fmt.Sprintf(" (a line JSON.parse refuses, such as line %d, may have held it)", minKey(refused))
	}
	for i, e := range c.entries {
		if e.bad != "" {
			add(e, e.badAt, CodeMalformedRecord, fmt.Sprintf("%s: Claude Code writes no such record, and what its loader does with it is not documented (it may drop the record or fail to resume)", e.bad))
		}
		if e.hasUUID {
			if first := c.byUUID[e.uuid]; first != i {
				f := c.entries[first]
				add(e, e.uuidAt, CodeDuplicateUUID,
					fmt.Sprintf("uuid %s is already the uuid of the record at line %d: a parentUuid naming it is ambiguous, and the loader keeps one of the two", strconv.Quote(e.uuid), f.ln),
					analysis.Related{Line: f.ln, Span: f.uuidAt, Message: "the first record with this uuid"})
			}
		}
		if e.hasParent {
			if _, ok := c.byUUID[e.parent]; !ok {
				what := "a record off the resumed conversation (a sidechain or an abandoned branch)"
				if c.onChain[i] {
					what = "the conversation Claude Code resumes: it walks the parentUuid chain back from the last message and stops here, so every earlier message is lost to the model"
				}
				add(e, e.parentAt, CodeBrokenParentChain,
					fmt.Sprintf("parentUuid %s names no record in the file%s; this is %s", strconv.Quote(e.parent), refusedNote, what))
			}
		}
	}
	for _, pr := range c.pairing() {
		at, msg, rel := c.finding(pr)
		add(c.entries[pr.p.e], at, pr.code, msg, rel...)
	}
	return fs
}

// problem is a breach of the API's rules on tool calls and results: a
// duplicate tool_use id, a group of tool_use blocks of message n without
// their results (missing, in the order of the calls), or a tool_result of
// message n (content index k) without its tool_use.
type problem struct {
	code    string
	n, k    int
	p       part   // where the finding goes
	first   part   // duplicate: the first use of the id
	missing []part // missing: every unanswered call of message n
}

// pairing checks the API's rules on tool calls and results over the
// request's messages.
func (c *conv) pairing() []problem {
	var out []problem
	seen := map[string]part{}
	for n, m := range c.msgs {
		switch m.role {
		case "assistant":
			var calls []part
			for k, p := range m.parts {
				b := c.block(p)
				if b == nil || b.typ != toolUse || !b.hasID {
					continue
				}
				if f, dup := seen[b.id]; dup {
					out = append(out, problem{code: analysis.CodeDuplicateCallID, n: n, k: k, p: p, first: f})
				} else {
					seen[b.id] = p
				}
				calls = append(calls, p)
			}
			if len(calls) == 0 {
				continue
			}
			answered := map[string]bool{}
			if n+1 < len(c.msgs) && c.msgs[n+1].role == "user" {
				for _, p := range c.msgs[n+1].parts {
					if b := c.block(p); b != nil && b.typ == toolResult && b.hasID {
						answered[b.id] = true
					}
				}
			}
			var missing []part
			for _, p := range calls {
				if !answered[c.block(p).id] {
					missing = append(missing, p)
				}
			}
			for _, p := range missing {
				out = append(out, problem{code: analysis.CodeMissingToolResult, n: n, p: p, missing: missing})
			}
		case "user":
			declared := map[string]bool{}
			if n > 0 && c.msgs[n-1].role == "assistant" {
				for _, p := range c.msgs[n-1].parts {
					if b := c.block(p); b != nil && b.typ == toolUse && b.hasID {
						declared[b.id] = true
					}
				}
			}
			for k, p := range m.parts {
				b := c.block(p)
				if b == nil || b.typ != toolResult || !b.hasID || declared[b.id] {
					continue
				}
				out = append(out, problem{code: analysis.CodeOrphanToolResult, n: n, k: k, p: p})
			}
		}
	}
	return out
}

// finding words a problem.
func (c *conv) finding(pr problem) (at line.Span, msg string, rel []analysis.Related) {
	b := c.block(pr.p)
	switch pr.code {
	case analysis.CodeDuplicateCallID:
		first := c.entries[pr.first.e]
		return b.idAt, fmt.Sprintf("tool_use id %s is already used at line %d; the API refuses the next request: 400 %s", strconv.Quote(b.id), first.ln, errNotUnique(pr.n, pr.k)),
			[]analysis.Related{{Line: first.ln, Span: c.block(pr.first).idAt, Message: "the first tool_use with this id"}}
	case analysis.CodeMissingToolResult:
		ids := make([]string, len(pr.missing))
		for i, p := range pr.missing {
			ids[i] = c.block(p).id
		}
		when := "the next request gets: 400 "
		if pr.n+1 >= len(c.msgs) {
			when = "the conversation ends with the call unanswered (an interrupted tool call), so the first request after resuming gets: 400 "
		}
		return b.idAt, fmt.Sprintf("tool_use %s has no tool_result in the next user message; %s%s", strconv.Quote(b.id), when, errMissing(pr.n, ids)), nil
	default:
		return b.idAt, fmt.Sprintf("tool_result %s answers no tool_use in the assistant message before it; the next request gets: 400 %s", strconv.Quote(b.id), errUnexpected(pr.n, pr.k, b.id)), nil
	}
}

func minKey(m map[int]bool) int {
	first := 0
	for k := range m {
		if first == 0 || k < first {
			first = k
		}
	}
	return first
}

// messages maps the conversation to the engine's model: an assistant
// record is an assistant message declaring its tool_use blocks as calls;
// a user record's tool_result blocks are tool messages, each answering its
// tool_use_id, and the rest of it (text, images, a string content) a user
// message. A record's cost is the UTF-16 length of JSON.stringify of its
// {role, content}; a tool message costs its block's, and the record's
// first message carries the rest.
func (c *conv) messages() []analysis.Message {
	out := make([]analysis.Message, 0, len(c.chain)+len(c.chain)/4)
	for _, i := range c.chain {
		e := c.entries[i]
		if !e.api {
			continue
		}
		start := len(out)
		if e.role == "assistant" {
			m := analysis.Message{Line: e.ln, Role: line.RoleAssistant, Cost: e.cost, Tokens: e.tokens}
			for _, b := range e.blocks {
				if b.typ == toolUse && b.hasID {
					m.Calls = append(m.Calls, line.Call{ID: b.id, IDSpan: b.idAt, Name: b.name})
				}
			}
			out = append(out, m)
			continue
		}
		rest := e.cost
		hasOther := e.str || len(e.blocks) == 0
		for _, b := range e.blocks {
			if b.typ == toolResult && b.hasID {
				out = append(out, analysis.Message{Line: e.ln, Role: line.RoleTool, Cost: b.cost, ToolCallID: b.id, ToolCallIDSpan: b.idAt, IsError: b.isError})
				rest -= b.cost
			} else {
				hasOther = true
			}
		}
		if hasOther || len(out) == start {
			out = append(out, analysis.Message{Line: e.ln, Role: line.RoleUser})
		}
		// The record's first message carries the rest of its cost (the
		// wrapper, separators, other blocks) and its tokens.
		out[start].Cost += rest
		out[start].Tokens = e.tokens
	}
	return out
}

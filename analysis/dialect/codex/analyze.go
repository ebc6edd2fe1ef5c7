package codex

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// syntheticOutput is the output of the result the unsafe fix adds for a
// call that never got one (issue 21's wording).
const syntheticOutput = "tool call interrupted; no result was recorded"

// physLine is one physical line of the file.
type physLine struct {
	n          int // 1-based
	start, end int // data[start:end], without '\n'
	nl         bool
}

// lines splits data as the engine counts lines: on '\n', a last line
// without '\n' counted.
func lines(data []byte) []physLine {
	var out []physLine
	start := 0
	for n := 1; start < len(data); n++ {
		end, nl := len(data), false
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end, nl = start+i, true
		}
		out = append(out, physLine{n: n, start: start, end: end, nl: nl})
		start = end + 1
	}
	return out
}

// read is a line codex's loader reads, with its record.
type read struct {
	physLine
	rec record
}

// scan is what the loader makes of a file: the records it reads, in order,
// and the findings about lines it cannot read or the file as a whole.
type scan struct {
	lines    []physLine
	reads    []read
	findings []analysis.Finding
	refused  int // line of the first reason codex refuses the file; -1 if none
	skipped  int
}

// scanFile reads data as RolloutRecorder::load_rollout_items and
// get_rollout_history do (docs/semantics.md, "Codex CLI").
func scanFile(data []byte) *scan {
	s := &scan{lines: lines(data), refused: -1}
	if !utf8.Valid(data) {
		bad := len(data)
		for i := 0; i < len(data); {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				bad = i
				break
			}
			i += size
		}
		ln := 1 + bytes.Count(data[:bad], []byte{'\n'})
		col := 0
		if k := bytes.LastIndexByte(data[:bad], '\n'); k >= 0 {
			col = int(width16(bytes.ToValidUTF8(data[k+1:bad], []byte("\uFFFD"))))
		} else {
			col = int(width16(bytes.ToValidUTF8(data[:bad], []byte("\uFFFD"))))
		}
		s.refuse(ln, line.Span{Start: bad - lineStart(data, bad), End: bad - lineStart(data, bad) + 1, StartCol: col, EndCol: col + 1},
			fmt.Sprintf("codex cannot read the file: byte 0x%02X at byte %s is not UTF-8, so tokio::fs::read_to_string fails (\"stream did not contain valid UTF-8\") and codex resume refuses the whole session", data[bad], textfmt.Thousands(int64(bad))))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		s.refuse(1, line.Span{}, "codex refuses the file: \"empty session file\" (it holds only whitespace)")
		return s
	}
	haveMeta := false
	for _, pl := range s.lines {
		l := data[pl.start:pl.end]
		l = bytes.TrimSuffix(l, []byte{'\r'}) // Rust's str::lines drops a CR before '\n'
		if len(bytes.TrimSpace(l)) == 0 || !utf8.Valid(l) {
			continue // skipped by the loader; a file not UTF-8 is refused above
		}
		if r := line.Parse(l); r.Verdict == line.InvalidJSON {
			// The damage findings (invalid-json and its causes) come from
			// the engine's JSON-level analysis; see damage.go.
			s.skipped++
			continue
		}
		if why := serdeRejects(l); why != "" {
			s.skip(pl.n, l, "serde_json cannot parse it: "+why)
			continue
		}
		rec, why := readRecord(l)
		if why != "" {
			s.skip(pl.n, l, why)
			continue
		}
		if rec.kind == kindSessionMeta {
			haveMeta = true
		}
		s.reads = append(s.reads, read{pl, rec})
	}
	if !haveMeta {
		s.refuse(1, line.Span{}, "codex refuses the file: \"failed to parse thread ID from rollout file\" (no session_meta line it can read)")
	}
	return s
}

func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

func (s *scan) refuse(ln int, span line.Span, msg string) {
	if s.refused < 0 || ln < s.refused {
		s.refused = ln
	}
	s.findings = append(s.findings, analysis.Finding{Line: ln, Span: span, Code: analysis.CodeCodexResumeRefused, Message: msg})
}

func (s *scan) skip(ln int, l []byte, why string) {
	s.skipped++
	s.findings = append(s.findings, analysis.Finding{
		Line: ln, Span: wholeLine(l), Code: analysis.CodeCodexSkippedLine,
		Message: "codex skips this line when it resumes the session: " + why,
	})
}

func wholeLine(l []byte) line.Span {
	return line.Span{Start: 0, End: len(l), StartCol: 0, EndCol: int(width16(bytes.ToValidUTF8(l, []byte("\uFFFD"))))}
}

// callIDSpan finds the call_id member's string literal in a line.
func callIDSpan(l []byte) line.Span {
	key := []byte(`"call_id":`)
	i := bytes.Index(l, key)
	if i < 0 {
		return wholeLine(l)
	}
	s := i + len(key)
	for s < len(l) && (l[s] == ' ' || l[s] == '\t') {
		s++
	}
	if s >= len(l) || l[s] != '"' {
		return wholeLine(l)
	}
	e, _ := scanString(l, s+1)
	e++
	if e > len(l) {
		e = len(l)
	}
	c0 := int(width16(l[:s]))
	return line.Span{Start: s, End: e, StartCol: c0, EndCol: c0 + int(width16(l[s:e]))}
}

// family words, for messages.
func (f callFamily) call() string {
	if f == famCustom {
		return "custom tool call"
	}
	return "function call"
}

func (f callFamily) outputType() string {
	if f == famCustom {
		return "custom_tool_call_output"
	}
	return "function_call_output"
}

// analyze is the whole analysis of data in memory.
func analyze(data []byte, opts analysis.Options) *analysis.Report {
	s := scanFile(data)
	rep := &analysis.Report{Lines: len(s.lines), Width16: width16(bytes.ToValidUTF8(data, []byte("\uFFFD")))}
	findings := append(damage(data, opts), s.findings...)
	rep.InvalidLines = s.skipped
	if s.refused > 0 {
		rep.FirstInvalidLine = s.refused
	}

	type callState struct {
		id       string
		msg      int // index in Messages
		ln       int
		span     line.Span
		family   callFamily
		name     string
		answered bool
		lastOut  int // index of the last output answering it
	}
	var msgs []analysis.Message
	calls := map[string]*callState{}
	var open []*callState // calls of the current segment, in order
	lastOutOf := map[int]int{}
	counter, _ := opts.Tokens.(interface{ Count(string) (int, error) })
	var sinceCompaction int64
	var tokensSince int64

	// closeSegment ends the calls of a segment: at the end of the file, or
	// at a compaction (compactedAt), after which they are no longer sent.
	closeSegment := func(compactedAt int) {
		for _, c := range open {
			if c.answered {
				continue
			}
			msg := fmt.Sprintf("%s %s (%s) has no %s: a history sent as recorded is rejected with \"No tool output found for %s %s.\" (codex itself sends \"aborted\" in its place when it resumes)",
				strings.ReplaceAll(c.family.outputType(), "_output", ""), quoteID(c.id), quoteID(c.name), c.family.outputType(), c.family.call(), quoteID(c.id))
			if compactedAt > 0 {
				msg = fmt.Sprintf("%s %s (%s) has no %s; the compaction at line %d replaced it, so it is no longer sent (a history rebuilt from the lines would be rejected with \"No tool output found for %s %s.\")",
					strings.ReplaceAll(c.family.outputType(), "_output", ""), quoteID(c.id), quoteID(c.name), c.family.outputType(), compactedAt, c.family.call(), quoteID(c.id))
			}
			findings = append(findings, analysis.Finding{Line: c.ln, Span: c.span, Code: analysis.CodeMissingToolResult, Message: msg})
		}
		for _, c := range open {
			if c.answered {
				lastOutOf[c.msg] = max(lastOutOf[c.msg], c.lastOut)
			}
		}
		open = nil
		clear(calls)
	}

	for _, rd := range s.reads {
		rec := rd.rec
		l := bytes.TrimSuffix(data[rd.start:rd.end], []byte{'\r'})
		switch rec.kind {
		case kindEvent:
			if rec.usage != nil {
				// The context at that turn is codex's own measure,
				// TokenUsage::tokens_in_context_window: last_token_usage's
				// total_tokens (input, cached input included, + output).
				u := rec.usage
				rep.Usage = append(rep.Usage, analysis.Usage{
					Line: rd.n, InputTokens: u.input, CachedInputTokens: u.cached, OutputTokens: u.output,
					ReasoningTokens: u.reasoning, ContextTokens: u.total, ContextWindow: u.window,
				})
			}
			continue
		case kindCompacted:
			closeSegment(rd.n)
			before := len(msgs)
			rep.Compactions = append(rep.Compactions, analysis.Compaction{Line: rd.n, Replaced: before, Chars: rec.summary})
			what := fmt.Sprintf("a summary of %s chars", textfmt.Thousands(rec.summary))
			if rec.hasRepl {
				what = fmt.Sprintf("a replacement history of %s chars", textfmt.Thousands(rec.summary))
			}
			findings = append(findings, analysis.Finding{
				Line: rd.n, Span: wholeLine(l), Code: analysis.CodeCodexCompaction,
				Message: fmt.Sprintf("compacted: the %d messages above (%s chars) are no longer sent; the model is sent %s instead",
					before, textfmt.Thousands(sinceCompaction), what),
			})
			for _, sub := range rec.replaced {
				if sub.kind == kindCall {
					calls[sub.callID] = &callState{id: sub.callID, msg: -1, family: sub.family, answered: true}
				}
			}
			m := analysis.Message{Line: rd.n, Role: line.RoleUser, Cost: rec.summary}
			if counter != nil {
				if n, err := counter.Count(rec.sentText); err == nil {
					m.Tokens = int64(n)
				}
			}
			msgs = append(msgs, m)
			sinceCompaction, tokensSince = m.Cost, m.Tokens
			continue
		case kindMessage, kindReasoning, kindCall, kindOutput:
		default:
			continue
		}
		m := analysis.Message{Line: rd.n, Cost: rec.cost}
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
			span := callIDSpan(l)
			m.Calls = []line.Call{{ID: rec.callID, IDSpan: span, Name: rec.name}}
			if prev, ok := calls[rec.callID]; ok {
				rel := []analysis.Related{}
				if prev.ln > 0 {
					rel = append(rel, analysis.Related{Line: prev.ln, Span: prev.span, Message: "first declared here"})
				}
				findings = append(findings, analysis.Finding{
					Line: rd.n, Span: span, Code: analysis.CodeDuplicateCallID, Related: rel,
					Message: fmt.Sprintf("call_id %s is used by an earlier call: its output answers whichever call the API pairs it with, and the other is left without one", quoteID(rec.callID)),
				})
			}
			c := &callState{id: rec.callID, msg: len(msgs), ln: rd.n, span: span, family: rec.family, name: rec.name}
			calls[rec.callID] = c
			open = append(open, c)
		case kindOutput:
			m.Role = line.RoleTool
			m.ToolCallID = rec.callID
			m.ToolCallIDSpan = callIDSpan(l)
			m.IsError = rec.isError
			c, ok := calls[rec.callID]
			switch {
			case !ok || c.family != rec.family:
				findings = append(findings, analysis.Finding{
					Line: rd.n, Span: m.ToolCallIDSpan, Code: analysis.CodeOrphanToolResult,
					Message: fmt.Sprintf("no %s before this %s declares call_id %s: codex drops it when it resumes, and a history sent as recorded is rejected with \"No tool call found for %s output with call_id %s.\"",
						strings.ReplaceAll(rec.family.outputType(), "_output", ""), rec.family.outputType(), quoteID(rec.callID), rec.family.call(), quoteID(rec.callID)),
				})
			case c.answered && c.msg >= 0:
				findings = append(findings, analysis.Finding{
					Line: rd.n, Span: m.ToolCallIDSpan, Code: analysis.CodeDuplicateCallID,
					Related: []analysis.Related{{Line: c.ln, Span: c.span, Message: "the call"}},
					Message: fmt.Sprintf("a second %s for call_id %s: the call already has its output", rec.family.outputType(), quoteID(rec.callID)),
				})
				c.lastOut = len(msgs)
			default:
				c.answered = true
				c.lastOut = len(msgs)
			}
		}
		if counter != nil {
			if n, err := counter.Count(rec.sentText); err == nil {
				m.Tokens = int64(n)
			} else if rep.TokensErr == nil {
				rep.TokensErr = &analysis.TokenError{Line: rd.n, Err: err}
			}
		}
		sinceCompaction += m.Cost
		tokensSince += m.Tokens
		msgs = append(msgs, m)
	}
	closeSegment(0)
	rep.TotalChars = sinceCompaction
	if counter != nil {
		rep.TotalTokens = tokensSince
	}
	rep.Units = units(msgs, lastOutOf)
	if !opts.SkipMessages {
		rep.Messages = msgs
	}
	rep.Findings = keep(findings, opts, rep)
	return rep
}

func quoteID(id string) string { return textfmt.Sanitize(id) }

// units groups messages as the engine does: a message with calls takes
// every message up to the last output answering one of them.
func units(msgs []analysis.Message, lastOut map[int]int) []analysis.Unit {
	var us []analysis.Unit
	for i := 0; i < len(msgs); {
		end := i
		for j := i; j <= end; j++ {
			if k, ok := lastOut[j]; ok && k > end {
				end = k
			}
		}
		u := analysis.Unit{First: i, Last: end, StartLine: msgs[i].Line, EndLine: msgs[end].Line}
		for k := i; k <= end; k++ {
			u.Chars += msgs[k].Cost
			u.Tokens += msgs[k].Tokens
		}
		us = append(us, u)
		i = end + 1
	}
	var from, fromT int64
	for i := len(us) - 1; i >= 0; i-- {
		from += us[i].Chars
		fromT += us[i].Tokens
		us[i].FromNewest, us[i].TokensFromNewest = from, fromT
	}
	return us
}

// keep applies the severity from the registry, Options.Disabled and
// Options.MaxFindingsPerCode, and sorts the findings by line.
func keep(fs []analysis.Finding, opts analysis.Options, rep *analysis.Report) []analysis.Finding {
	out := fs[:0]
	kept := map[string]int{}
	sortFindings(fs)
	for _, f := range fs {
		if opts.Disabled[f.Code] {
			continue
		}
		r, _, ok := analysis.RuleFor(f.Code)
		if !ok {
			continue
		}
		f.Severity = r.Severity
		if opts.MaxFindingsPerCode > 0 && kept[f.Code] >= opts.MaxFindingsPerCode {
			i := 0
			for i < len(rep.Omitted) && rep.Omitted[i].Code != f.Code {
				i++
			}
			if i == len(rep.Omitted) {
				rep.Omitted = append(rep.Omitted, analysis.Omitted{Code: f.Code, Severity: r.Severity})
			}
			rep.Omitted[i].N++
			if opts.OmittedLines[f.Code] {
				rep.Omitted[i].Lines = append(rep.Omitted[i].Lines, int32(f.Line))
			}
			continue
		}
		kept[f.Code]++
		out = append(out, f)
	}
	return out
}

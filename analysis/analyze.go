package analysis

import (
	"bytes"
	"cmp"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/sessionls/sessionls/analysis/line"
)

// engine holds the knobs of an analysis. Tests shrink them (7-byte chunks,
// a parser stand-in); the exported functions use newEngine's defaults.
type engine struct {
	parse       func([]byte) line.Result
	workers     int   // goroutines parsing at once
	chunk       int   // AnalyzeReader's read size, in bytes
	parallelMin int   // Analyze parses in parallel from this many bytes up
	maxLine     int64 // AnalyzeReader holds no line wider than this, in UTF-16 units
	settleFrom  int   // AnalyzeReader tries a long line's verdict on its prefix from this many bytes
}

func newEngine() engine {
	return engine{
		parse:       line.Parse,
		workers:     max(1, runtime.GOMAXPROCS(0)),
		chunk:       1 << 20,
		parallelMin: 4 << 20,
		maxLine:     MaxStringLength,
		// Past a few chunks, so that the ordinary long line (a big tool
		// output) is not parsed twice; below check's memory bound, so
		// that /dev/zero settles within it.
		settleFrom: 8 << 20,
	}
}

// Analyze analyses a whole file held in memory. Large inputs are parsed in
// parallel across GOMAXPROCS goroutines; the report is the same either way.
// The report does not refer to data's memory.
func Analyze(data []byte, opts Options) *Report {
	e := newEngine()
	opts = e.mode(opts)
	return e.analyze(data, opts)
}

// mode sets e up for opts: JSON.parse alone with Options.JSONOnly (the
// options that need messages then cleared); opts as given otherwise.
func (e *engine) mode(opts Options) Options {
	if !opts.JSONOnly {
		return opts
	}
	e.parse = line.ParseJSON
	opts.Budget, opts.TokenBudget, opts.Tokens, opts.Observer = 0, 0, nil, nil
	return opts
}

func (e *engine) analyze(data []byte, opts Options) *Report {
	c := newCollector(opts)
	if len(data) < e.parallelMin || e.workers < 2 {
		var t tally
		parseLines(e.parse, opts, data, &t)
		c.add(&t)
		return c.finish()
	}
	pieces := splitLines(data, e.workers*4)
	tallies := make([]tally, len(pieces))
	err := newPool(e.workers).each(len(pieces), func(k int) {
		parseLines(e.parse, opts, pieces[k], &tallies[k])
	})
	if err != nil {
		panic(err) // in the caller's goroutine, where it can be recovered
	}
	for k := range tallies {
		c.add(&tallies[k])
		tallies[k] = tally{}
	}
	return c.finish()
}

// splitLines cuts data into about n pieces, each ending just after a '\n'
// (the last piece excepted), so that no line is split.
func splitLines(data []byte, n int) [][]byte {
	size := max(len(data)/n, 1)
	var pieces [][]byte
	for len(data) > 0 {
		if len(data) <= size {
			pieces = append(pieces, data)
			break
		}
		end := len(data)
		if i := bytes.IndexByte(data[size:], '\n'); i >= 0 {
			end = size + i + 1
		}
		pieces = append(pieces, data[:end])
		data = data[end:]
	}
	return pieces
}

// tally is what parsing one run of whole lines yields, with line numbers
// counted from the start of the run (the collector shifts them).
type tally struct {
	lines    int   // physical lines: one per '\n', plus an unterminated last line
	nonEmpty int   // lines the runtime numbers
	width16  int64 // UTF-16 length, newlines included
	size     int64 // bytes, newlines included
	msgs     []Message
	recs     []Record // Options.JSONOnly: the valid lines
	invalid  []invalidLine
	tokErr   *TokenError // the first message whose tokens could not be counted
}

func (t *tally) reset() {
	clear(t.msgs) // drop references to Calls and strings
	clear(t.recs) // and to decoded values
	*t = tally{msgs: t.msgs[:0], invalid: t.invalid[:0], recs: t.recs[:0]}
}

// parseLines parses buf line by line into t. buf holds whole lines; only the
// file's last line may lack its '\n'. Exactly empty lines are skipped, as the
// runtime's filter(Boolean) does. Nothing in t refers to buf's memory. With
// a counter (opts.Tokens), every valid message's tokens are counted too.
// With opts.JSONOnly a valid line is a Record, decoded by opts.Records.
func parseLines(parse func([]byte) line.Result, opts Options, buf []byte, t *tally) {
	counter, jsonOnly := opts.Tokens, opts.JSONOnly
	t.size += int64(len(buf))
	rest := buf
	for len(rest) > 0 {
		var l []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
			t.width16++
		} else {
			l, rest = rest, nil
		}
		t.lines++
		if len(l) == 0 {
			continue
		}
		t.nonEmpty++
		r := parse(l)
		t.width16 += int64(r.Width16)
		if r.Verdict != line.Valid {
			t.invalid = append(t.invalid, invalidLine{
				line: t.lines, runtimeLine: t.nonEmpty, verdict: r.Verdict,
				reason: detach(r.Reason, buf), span: r.Span, damage: classify(l, &r),
			})
			continue
		}
		if jsonOnly {
			t.recs = append(t.recs, record(opts.Records, l, &r, t.lines, buf, rest))
			continue
		}
		m := message(&r, t.lines, buf)
		if counter != nil {
			n, err := counter.Message(l)
			if err != nil && t.tokErr == nil {
				t.tokErr = &TokenError{Line: t.lines, Err: err}
			}
			m.Tokens = int64(n)
		}
		t.msgs = append(t.msgs, m)
	}
}

// record makes the Record of valid line l of buf, before rest (the lines
// after it; nil when l ends buf without a '\n').
func record(dec RecordReader, l []byte, r *line.Result, ln int, buf, rest []byte) Record {
	start := len(buf) - len(rest) - len(l)
	if rest != nil {
		start-- // l's '\n'
	}
	rec := Record{Line: ln, Offset: int64(start), Len: len(l), Span: r.Span, Width16: r.Width16}
	if dec != nil {
		rec.Value = dec.Decode(l)
	}
	return rec
}

// message makes the Message of a valid line's result.
func message(r *line.Result, ln int, buf []byte) Message {
	m := Message{
		Line: ln, Role: r.Role, Cost: r.Cost,
		ToolCallID: detach(r.ToolCallID, buf), ToolCallIDSpan: r.ToolCallIDSpan,
		IsError: r.IsError, Calls: r.Calls, Depth: r.Depth,
	}
	if buf == nil {
		return m // the caller's strings are immutable (Document)
	}
	for i := range m.Calls {
		c := &m.Calls[i]
		c.ID, c.Name = detach(c.ID, buf), detach(c.Name, buf)
	}
	return m
}

// detach returns s, copied if it shares memory with buf. line.Parse may hand
// out strings that point into the line it was given (zero-copy); a report
// must not, because buf is reused (streams) or owned by the caller.
func detach(s string, buf []byte) string {
	if len(s) == 0 || len(buf) == 0 {
		return s
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	b := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	if p >= b && p < b+uintptr(len(buf)) {
		return strings.Clone(s)
	}
	return s
}

// collector assembles a Report from tallies taken in line order.
type collector struct {
	opts    Options
	rep     *Report
	link    linker
	nodes   nodeList
	invalid []invalidLine
	// pend is the refused line whose cause waits for the next refused
	// line (hasPend); prevInv the one before it (hasPrev); causer names
	// their causes in line order.
	pend, prevInv    invalidLine
	hasPend, hasPrev bool
	causer           causer
	// invalidCut counts the invalid lines not kept in invalid (past the
	// findings limit and past the first maxRelated+1).
	invalidCut int
	checks     []Finding
	nonEmpty   int
	size       int64 // bytes taken
	limit      *findingLimit
}

func newCollector(opts Options) *collector {
	c := &collector{opts: opts, rep: &Report{}, limit: newFindingLimit(opts)}
	c.link.findings = &c.checks
	c.link.disabled = opts.Disabled
	c.link.limit = c.limit
	return c
}

// add takes the next run of lines. t may be reused afterwards.
func (c *collector) add(t *tally) {
	off := c.rep.Lines
	c.reserve(len(t.msgs), 0)
	for i := range t.msgs {
		m := &t.msgs[i]
		m.Line += off
		c.addMessage(m)
	}
	if t.tokErr != nil && c.rep.TokensErr == nil {
		c.rep.TokensErr = &TokenError{Line: t.tokErr.Line + off, Err: t.tokErr.Err}
	}
	for i := range t.recs {
		rec := &t.recs[i]
		rec.Line += off
		rec.Offset += c.size
		if c.opts.Records != nil {
			c.opts.Records.Record(rec)
		}
		if !c.opts.SkipMessages {
			c.rep.Records = append(c.rep.Records, *rec)
		}
	}
	for _, v := range t.invalid {
		v.line += off
		v.runtimeLine += c.nonEmpty
		// A line's cause is known once the refused line after it is
		// (a record split over lines), so each waits for the next.
		if c.hasPend {
			c.settle(&v)
		}
		c.pend, c.hasPend = v, true
	}
	c.rep.Lines += t.lines
	c.nonEmpty += t.nonEmpty
	c.rep.Width16 += t.width16
	c.size += t.size
}

// settle names the cause of the refused line waiting (next is the refused
// line after it, nil at the end) and keeps it, or only counts it past the
// limit (by its cause's code).
func (c *collector) settle(next *invalidLine) {
	v := c.pend
	c.hasPend = false
	var prev *invalidLine
	if c.hasPrev && c.prevInv.runtimeLine == v.runtimeLine-1 {
		prev = &c.prevInv
	}
	if next != nil && next.runtimeLine != v.runtimeLine+1 {
		next = nil
	}
	c.causer.decide(&v, prev, next)
	c.prevInv, c.hasPrev = v, true
	if c.limit != nil && !c.opts.Disabled[v.code()] && !c.limit.keep(v.code(), v.line) {
		// Past the limit: no finding. The first lines are kept all
		// the same, for the load message and the first's Related.
		if len(c.invalid) > maxRelated {
			c.invalidCut++
			return
		}
		v.omitted = true
	}
	c.invalid = append(c.invalid, v)
}

// reserve sizes the collector for msgs more messages declaring calls call
// ids, when the caller knows (appending to large slices grows them by a
// quarter at a time, copying all of it each time).
func (c *collector) reserve(msgs, calls int) {
	if !c.opts.SkipMessages {
		c.rep.Messages = slices.Grow(c.rep.Messages, msgs)
	}
	if c.link.decls == nil && calls > 0 {
		c.link.decls = newDeclTable(calls)
	}
}

// addMessage takes the next valid message, with its final line number.
func (c *collector) addMessage(m *Message) {
	if tooDeep(m.Depth) && !c.opts.Disabled[CodeDeepNesting] && c.limit.keep(CodeDeepNesting, m.Line) {
		c.checks = append(c.checks, deepFinding(m))
	}
	nd := c.link.add(m)
	c.nodes.add(nd, m.Tokens)
	c.rep.TotalChars += m.Cost
	c.rep.TotalTokens += m.Tokens
	if c.opts.Observer != nil {
		c.opts.Observer.Observe(m, int(nd.owner))
	}
	if !c.opts.SkipMessages {
		c.rep.Messages = append(c.rep.Messages, *m)
	}
}

// finish groups the units, runs the checks that need the whole file, finds
// the cutoff and sorts the findings.
func (c *collector) finish() *Report {
	r, off := c.rep, c.opts.Disabled
	c.link.finish()
	if c.hasPend {
		c.settle(nil)
	}
	r.InvalidLines = len(c.invalid) + c.invalidCut
	if len(c.invalid) > 0 {
		r.FirstInvalidLine = c.invalid[0].line
		r.loadMessage = loadMessage(c.invalid, c.opts.JSONOnly)
	}
	r.Units = buildUnits(&c.nodes)
	linkAnswers(r.Messages, &c.nodes)

	var fs []Finding
	invalidFindings(c.invalid, &fs, off, c.opts.JSONOnly)
	fs = append(fs, c.checks...)
	if !off[CodeSweptMessage] {
		sweptFindings(r.Units, &c.nodes, &fs, c.limit)
	}
	r.Findings = sizeAndBudget(r, c.opts, fs)
	if c.limit != nil {
		r.Omitted = c.limit.omitted
	}
	return r
}

// sizeAndBudget appends to fs the findings that depend on the file's size
// and the units' costs (file-too-large, budget-cutoff, budget-exceeded),
// sets r's cutoff, and sorts fs by line and column. Findings already in fs
// keep their order among equals, and these come after them.
func sizeAndBudget(r *Report, opts Options, fs []Finding) []Finding {
	off := opts.Disabled
	r.Cutoff, r.CutoffErr, r.budgetByTokens = nil, nil, opts.TokenBudget > 0
	if r.Width16 > MaxStringLength && !off[CodeFileTooLarge] {
		fs = append(fs, tooLargeFinding(r.Width16))
	}
	byTokens := opts.TokenBudget > 0
	budget := opts.Budget
	if byTokens {
		budget = opts.TokenBudget
	}
	if budget > 0 && r.Loads() && !(byTokens && (opts.Tokens == nil || r.TokensErr != nil)) {
		cut, err := cut(r.Units, r.Messages, budget, byTokens)
		if err != nil {
			r.CutoffErr = err
		} else {
			r.Cutoff = &cut
		}
		if f := budgetFinding(r.Units, r.MessageCount(), cut, err); !off[f.Code] {
			fs = append(fs, f)
		}
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if a.Line != b.Line {
			return cmp.Compare(a.Line, b.Line)
		}
		return cmp.Compare(a.Span.StartCol, b.Span.StartCol)
	})
	return fs
}

package analysis

import (
	"bytes"
	"cmp"
	"math"
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
	c := newCollector(opts, e.parse)
	if len(data) < e.parallelMin {
		var t tally
		parseLines(e.parse, opts, data, &t)
		c.add(&t)
		return c.finish()
	}
	// Pieces of at most maxPiece bytes, so that a tally's offsets and line
	// numbers fit its 32-bit runs (refusedRun), on one core too.
	pieces := splitLines(data, max(e.workers*4, len(data)/maxPiece+1))
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

// maxPiece bounds the bytes before the last line of a run of lines Analyze
// parses as one: every line of a piece begins within its first maxPiece
// bytes. AnalyzeReader's chunks are smaller (a line longer than a chunk
// is one chunk alone, and one node could hold has fewer than 2³¹ bytes).
const maxPiece = 1 << 30

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
	// refused are the refused lines of buf, in runs; the collector parses
	// again, from buf, the few whose reason and span it reports.
	refused []refusedRun
	buf     []byte
	// invalid is a refused line the stream did not hold (tallyLong), with
	// its reason and span.
	invalid []invalidLine
	tokErr  *TokenError // the first message whose tokens could not be counted
}

func (t *tally) reset() {
	clear(t.msgs) // drop references to Calls and strings
	clear(t.recs) // and to decoded values
	*t = tally{msgs: t.msgs[:0], invalid: t.invalid[:0], recs: t.recs[:0], refused: t.refused[:0]}
}

// refusedRun is n refused lines of a tally with one verdict and the same
// damage flags, on consecutive runtime lines, each step physical lines
// after the one before (exactly empty lines between them): a chunk of
// blank lines is one run, and a line alone costs 16 bytes, not the ~180 of
// an invalidLine. Line numbers are counted from the tally's start and fit
// 32 bits (a chunk, or a piece of at most maxPiece bytes before its last
// line).
type refusedRun struct {
	line, runtimeLine int32 // the first line's (from 1)
	n, step           uint16
	verdict           line.Verdict
	flags             damageFlags
}

// refuse adds a refused line.
func (t *tally) refuse(ln, rt int, verdict line.Verdict, flags damageFlags) {
	if k := len(t.refused) - 1; k >= 0 {
		p := &t.refused[k]
		if p.verdict == verdict && p.flags == flags && int(p.runtimeLine)+int(p.n) == rt && p.n < math.MaxUint16 {
			d := ln - (int(p.line) + int(p.n-1)*int(p.step))
			if (p.n == 1 && d <= math.MaxUint16) || d == int(p.step) {
				p.step = uint16(d)
				p.n++
				return
			}
		}
	}
	t.refused = append(t.refused, refusedRun{line: int32(ln), runtimeLine: int32(rt), n: 1, verdict: verdict, flags: flags})
}

// parseLines parses buf line by line into t. buf holds whole lines; only the
// file's last line may lack its '\n'. Exactly empty lines are skipped, as the
// runtime's filter(Boolean) does. Nothing in t refers to buf's memory but
// t.buf. With a counter (opts.Tokens), every valid message's tokens are
// counted too. With opts.JSONOnly a valid line is a Record, decoded by
// opts.Records.
func parseLines(parse func([]byte) line.Result, opts Options, buf []byte, t *tally) {
	counter, jsonOnly := opts.Tokens, opts.JSONOnly
	t.size += int64(len(buf))
	t.buf = buf
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
			d := classify(l, &r)
			t.refuse(t.lines, t.nonEmpty, r.Verdict, d.flags())
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
	parse   func([]byte) line.Result // parses again the refused lines reported
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
	// findings limit, or disabled, and past the first maxRelated+1).
	invalidCut int
	checks     []Finding
	nonEmpty   int
	size       int64 // bytes taken
	limit      *findingLimit
}

func newCollector(opts Options, parse func([]byte) line.Result) *collector {
	c := &collector{opts: opts, parse: parse, rep: &Report{}, limit: newFindingLimit(opts)}
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
		c.take(&v)
	}
	src := lineCursor{buf: t.buf}
	for k := range t.refused {
		run := &t.refused[k]
		d := run.flags.damage()
		for i := range int(run.n) {
			ln := int(run.line) + i*int(run.step)
			v := invalidLine{line: ln + off, runtimeLine: int(run.runtimeLine) + i + c.nonEmpty, verdict: run.verdict, damage: d}
			if c.take(&v) {
				c.fill(&c.pend, src.at(ln))
			}
		}
	}
	c.rep.Lines += t.lines
	c.nonEmpty += t.nonEmpty
	c.rep.Width16 += t.width16
	c.size += t.size
}

// take makes v the refused line waiting for the next one, and reports
// whether its reason and span must be filled in now (it may be reported):
// past the limit, a line is only counted, and its bytes are not read
// again. v's reason is filled in when it has one.
func (c *collector) take(v *invalidLine) (fill bool) {
	// A line's cause is known once the refused line after it is (a
	// record split over lines), so each waits for the next.
	if c.hasPend {
		c.settle(v)
	}
	c.pend, c.hasPend = *v, true
	return v.reason == "" && c.mayKeep(&c.pend)
}

// fill sets v's reason, span and damage from its bytes l, parsed again
// (the tally kept only its verdict and damage flags).
func (c *collector) fill(v *invalidLine, l []byte) {
	r := c.parse(l)
	v.reason, v.span, v.damage = detach(r.Reason, l), r.Span, classify(l, &r)
}

// mayKeep reports whether settle may keep v (the refused line waiting):
// whether it is among the first refused lines, or a code the causer may
// give it is neither disabled nor past the limit. Both only grow less
// likely as lines come, so a line it rules out is only counted.
func (c *collector) mayKeep(v *invalidLine) bool {
	if len(c.invalid) <= maxRelated {
		return true
	}
	var prev *invalidLine
	if c.hasPrev && c.prevInv.runtimeLine == v.runtimeLine-1 {
		prev = &c.prevInv
	}
	code, maySplit := c.causer.peek(v, prev)
	return c.keepable(code) || (maySplit && c.keepable(CodeSplitRecord))
}

// keepable reports whether a finding of code could still be kept.
func (c *collector) keepable(code string) bool {
	return !c.opts.Disabled[code] && (c.limit == nil || c.limit.kept[code] < c.limit.max)
}

// lineCursor finds lines of a tally's buffer, moving forward from the last
// one found (the collector asks in line order): over a tally, it reads its
// buffer once at most.
type lineCursor struct {
	buf       []byte
	line, off int // line (from 1) begins at buf[off]
}

// at returns the bytes of line ln (counted from the tally's start).
func (s *lineCursor) at(ln int) []byte {
	if s.line == 0 || s.line > ln {
		s.line, s.off = 1, 0
	}
	for ; s.line < ln; s.line++ {
		s.off += bytes.IndexByte(s.buf[s.off:], '\n') + 1
	}
	l := s.buf[s.off:]
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	return l
}

// settle names the cause of the refused line waiting (next is the refused
// line after it, nil at the end) and keeps it, or only counts it past the
// limit (by its cause's code) or when its code is disabled.
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
	code := v.code()
	if c.opts.Disabled[code] || (c.limit != nil && !c.limit.keep(code, v.line)) {
		// No finding. The first lines are kept all the same, for the
		// load message and the first's Related.
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

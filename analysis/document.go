package analysis

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/sessionls/sessionls/analysis/line"
)

// Position is an LSP position: 0-based line and UTF-16 column, in the
// client's line numbering (see Document).
type Position struct{ Line, Character int }

// Range is an LSP-style half-open range.
type Range struct{ Start, End Position }

// Change is one content change: Range nil replaces the whole text.
type Change struct {
	Range *Range
	Text  string
}

// ErrInvalidPosition is wrapped by Apply's error when a change's range does
// not fit the text (a language server should then ask for the full text).
var ErrInvalidPosition = errors.New("invalid position")

// Document is an open file kept as lines; edits re-parse only the lines they
// touch, then units, costs, checks and cutoff are recomputed from the cached
// line results when Report is called. When every touched line kept its
// shape (typing inside a message's content, or on a line that stays
// invalid), the last report is patched instead: on a 50 MB transcript that
// is about 1 ms, and a full recomputation about 4 ms of CPU.
//
// The text is split on '\n' only, as the runtime splits it; a '\r' stays
// part of its line. Those are the lines Line, LineResult and the Report
// number. An LSP client numbers lines differently: it also ends a line at a
// '\r' that no '\n' follows (a lone '\r', which JSON takes as whitespace,
// so one valid runtime line can show as two), and it does not count the
// '\r' of a "\r\n" as part of the line. Positions given to Apply and to
// RuntimePosition, and returned by EditorPosition, are the client's. The
// document keeps an index of its lone '\r's to map between the two; it is
// empty for almost every file, and the mapping is then the identity.
//
// Positions count UTF-16 code units of the text as readFile decodes it: an
// invalid UTF-8 sequence (a maximal subpart, as WHATWG decoding defines it)
// is one U+FFFD, one unit; a character outside the BMP is two. As the LSP
// specification says, a character past the end of its line means the end
// of the line (before its line break). Apply rejects a position past the
// last line (except {EditorLineCount(), 0}, taken as the end of the text,
// which some clients send when they delete the last lines), a negative
// one, one between the two halves of a surrogate pair, and a range whose
// end comes before its start.
//
// A Document is not safe for concurrent use. Reports it returns are shared
// and must not be modified.
type Document struct {
	eng     engine
	opts    Options
	lines   []string
	results []lineRes // results[i] is the verdict on lines[i]; zero for ""
	report  *Report   // nil when stale

	// crs lists, in line order, the lines holding a lone '\r' before their
	// last byte (see crLine); nil for almost every file. A '\r' ending the
	// last line is lone too, and is found by looking at that line.
	crs []crLine

	// base is the last report computed. While the edits since then kept
	// the number of lines, before holds the result base saw for each line
	// they touched, so Report can patch base instead of starting over; a
	// nil before means it cannot.
	base    *Report
	before  map[int]lineRes
	patched int // reports patched rather than recomputed (for tests)

	// Of the last Apply of more than one change (for tests): the work
	// it did (see maxEditWork), and the most bytes of replaced lines it
	// held at once to undo them.
	batchWork, undoBytes int
}

// NewDocument analyses text. A bug in the parser panics in the caller's
// goroutine, even when the text is parsed across cores.
func NewDocument(text string, opts Options) *Document {
	return newDocument(newEngine(), text, opts)
}

func newDocument(e engine, text string, opts Options) *Document {
	d := &Document{eng: e, opts: opts}
	var err error
	d.lines, d.results, err = d.parseText(text)
	if err != nil {
		panic(err) // in the caller's goroutine, where it can be recovered
	}
	d.crs = indexCRs(text, d.lines)
	return d
}

// parseText splits text into lines and parses them, across cores when the
// text is large. Its error is a panic of a worker (a bug in the parser).
func (d *Document) parseText(text string) ([]string, []lineRes, error) {
	if len(text) < d.eng.parallelMin || d.eng.workers < 2 {
		lines := strings.Split(text, "\n")
		results := make([]lineRes, len(lines))
		for i, l := range lines {
			results[i] = d.parse(l)
		}
		return lines, results, nil
	}
	// Runs of whole lines of about equal byte size, each split and parsed
	// by one worker: splitting the whole text first was a pass over it on
	// one core (issue 19).
	starts := textRuns(text, 64)
	runLines := make([][]string, len(starts))
	runResults := make([][]lineRes, len(starts))
	err := newPool(d.eng.workers).each(len(starts), func(k int) {
		lines := strings.Split(runText(text, starts, k), "\n")
		results := make([]lineRes, len(lines))
		for i, l := range lines {
			results[i] = d.parse(l)
		}
		runLines[k], runResults[k] = lines, results
	})
	if err != nil {
		return nil, nil, err
	}
	n := 0
	for _, ls := range runLines {
		n += len(ls)
	}
	lines := make([]string, 0, n)
	results := make([]lineRes, 0, n)
	for k := range runLines {
		lines = append(lines, runLines[k]...)
		results = append(results, runResults[k]...)
	}
	return lines, results, nil
}

// textRuns returns where up to n runs of text's lines begin: the first at
// 0, each other one just after a '\n', in increasing order.
func textRuns(text string, n int) []int {
	starts := []int{0}
	for k := 1; k < n; k++ {
		p := max(len(text)/n*k, starts[len(starts)-1])
		j := strings.IndexByte(text[p:], '\n')
		if j < 0 {
			break
		}
		if s := p + j + 1; s > starts[len(starts)-1] {
			starts = append(starts, s)
		}
	}
	return starts
}

// runText is run k of textRuns' starts without the '\n' that ends it
// (but the last): strings.Split of it gives the run's lines, and the runs'
// lines one after another are strings.Split(text, "\n").
func runText(text string, starts []int, k int) string {
	if k == len(starts)-1 {
		return text[starts[k]:]
	}
	return text[starts[k] : starts[k+1]-1]
}

// parse is the verdict on one line; an empty line is skipped by the runtime
// and gets the zero lineRes (Valid, no message).
func (d *Document) parse(s string) lineRes {
	if s == "" {
		return lineRes{}
	}
	r := d.parseLine(s)
	lr := lineRes{width16: r.Width16, verdict: r.Verdict}
	if r.Verdict == line.Valid {
		lr.msg = &r
	} else {
		dm := classify(stringBytes(s), &r)
		lr.flags = dm.flags()
	}
	return lr
}

// parseLine parses a non-empty line. The parser only reads its input, so
// the string's bytes are lent to it without a copy. Strings in the result
// may point into s, which is immutable and lives as long as they do.
func (d *Document) parseLine(s string) line.Result {
	return d.eng.parse(stringBytes(s))
}

// lineRes is what a Document keeps of a line's verdict (24 bytes): a
// valid message's Result (its role, ids and calls, which the checks and
// the report read), and of a refused line its verdict, width and damage
// flags only. Its reason and span are found again, by parsing the line,
// for the few lines a report lists (Options.MaxFindingsPerCode) and for
// LineResult: a million refused lines cost their text and 40 bytes each,
// not a ~170-byte line.Result each.
type lineRes struct {
	msg     *line.Result // a valid, non-empty line's
	width16 int
	verdict line.Verdict
	flags   damageFlags // a refused line's
}

// undo is what reverts one applied change.
type undo struct {
	at       int // first line replaced
	added    int // lines that replaced them
	lines    []string
	results  []lineRes
	wasWhole bool
}

// Apply applies changes in order; an out-of-range change is an error and
// leaves the document as it was before the call, and so is a bug in the
// parser while it parses a whole new text across cores.
//
// More than one change is applied on a gap buffer (applyBatch), and any
// edit is refused with ErrEditTooCostly past maxEditWork.
func (d *Document) Apply(changes []Change) error {
	d.batchWork, d.undoBytes = 0, 0
	if len(changes) > 1 && changes[0].Range == nil {
		// A full text, then changes to it (what a client that resends the
		// text before its edits sends): the text alone, then the rest.
		lines, results, crs, report, base, before := d.lines, d.results, d.crs, d.report, d.base, d.before
		if err := d.Apply(changes[:1]); err != nil {
			return fmt.Errorf("change 1 of %d: %w", len(changes), err)
		}
		if err := d.Apply(changes[1:]); err != nil {
			d.lines, d.results, d.crs, d.report, d.base, d.before = lines, results, crs, report, base, before
			return fmt.Errorf("after change 1 of %d: %w", len(changes), err)
		}
		return nil
	}
	if len(changes) > 1 && d.crs == nil && batchable(changes) {
		if handled, err := d.applyBatch(changes); handled {
			return err
		}
	}
	log := make([]undo, 0, len(changes))
	crs := d.crs // never modified in place: see replaceCRs
	docBytes, work, held := 0, 0, 0
	if len(changes) > 1 {
		for _, l := range d.lines {
			docBytes += len(l) + 1
		}
	}
	for k, ch := range changes {
		before := len(d.lines)
		u, err := d.apply(ch)
		if err == nil && len(changes) > 1 {
			// Bounded like applyBatch: the lines shifted and the bytes
			// copied, and the replaced lines held for the undo.
			replaced := 0
			for _, l := range u.lines {
				replaced += len(l)
			}
			held += replaced
			d.undoBytes = max(d.undoBytes, held)
			work += 16*(before-u.at) + len(ch.Text) + replaced
			if limit := maxEditWork(docBytes); work > limit || held > docBytes+maxUndoExtra {
				log = append(log, u)
				err = fmt.Errorf("the edit needs more than %d bytes of work on a %d-byte document (send the whole text instead): %w",
					limit, docBytes, ErrEditTooCostly)
			}
		}
		if err != nil {
			for i := len(log) - 1; i >= 0; i-- {
				d.revert(log[i])
			}
			d.crs = crs
			if len(changes) > 1 {
				return fmt.Errorf("change %d of %d: %w", k+1, len(changes), err)
			}
			return err
		}
		log = append(log, u)
		d.report = nil
	}
	d.batchWork = work
	d.remember(log)
	return nil
}

// maxUndoExtra bounds the bytes of replaced lines an Apply applying
// changes one by one holds for its undo, beyond the document's own size.
const maxUndoExtra = 64 << 20

// batchable reports whether no change holds a '\r' (which could make a
// lone '\r', and so change the client's line numbering mid-edit).
func batchable(changes []Change) bool {
	for _, ch := range changes {
		if ch.Range == nil || strings.IndexByte(ch.Text, '\r') >= 0 {
			return false
		}
	}
	return true
}

// remember records, for the lines that changes touched, the results that
// the last report saw.
func (d *Document) remember(log []undo) {
	if d.before == nil {
		return
	}
	for _, u := range log {
		if u.wasWhole || u.added != len(u.lines) {
			d.before = nil
			return
		}
		for k, r := range u.results {
			if _, ok := d.before[u.at+k]; !ok {
				d.before[u.at+k] = r
			}
		}
	}
}

func (d *Document) apply(ch Change) (undo, error) {
	if ch.Range == nil {
		lines, results, err := d.parseText(ch.Text)
		if err != nil {
			return undo{}, err
		}
		u := undo{at: 0, lines: d.lines, results: d.results, wasWhole: true, added: len(lines)}
		d.lines, d.results = lines, results
		d.crs = indexCRs(ch.Text, d.lines)
		return u, nil
	}
	s, e := ch.Range.Start, ch.Range.End
	if e.Line < s.Line || (e.Line == s.Line && e.Character < s.Character) {
		return undo{}, fmt.Errorf("range end %d:%d is before its start %d:%d: %w", e.Line, e.Character, s.Line, s.Character, ErrInvalidPosition)
	}
	sl, sb, err := d.offset(s)
	if err != nil {
		return undo{}, fmt.Errorf("range start: %w", err)
	}
	el, eb, err := d.offset(e)
	if err != nil {
		return undo{}, fmt.Errorf("range end: %w", err)
	}
	if el < sl || (el == sl && eb < sb) {
		// Cannot happen for ordered positions; kept so that a slip in the
		// mapping is an error rather than a corrupted text.
		return undo{}, fmt.Errorf("range end %d:%d is before its start %d:%d: %w", e.Line, e.Character, s.Line, s.Character, ErrInvalidPosition)
	}
	text := d.lines[sl][:sb] + ch.Text + d.lines[el][eb:]
	fresh := strings.Split(text, "\n")
	res := make([]lineRes, len(fresh))
	for i, l := range fresh {
		res[i] = d.parse(l)
	}
	u := undo{
		at: sl, added: len(fresh),
		lines:   slices.Clone(d.lines[sl : el+1]),
		results: slices.Clone(d.results[sl : el+1]),
	}
	d.lines = slices.Replace(d.lines, sl, el+1, fresh...)
	d.results = slices.Replace(d.results, sl, el+1, res...)
	d.replaceCRs(sl, el+1, fresh)
	return u, nil
}

func (d *Document) revert(u undo) {
	if u.wasWhole {
		d.lines, d.results = u.lines, u.results
		return
	}
	d.lines = slices.Replace(d.lines, u.at, u.at+u.added, u.lines...)
	d.results = slices.Replace(d.results, u.at, u.at+u.added, u.results...)
}

// offset converts a client's position to a line index and a byte offset in
// it; a character past the end of the client's line is its end.
func (d *Document) offset(p Position) (int, int, error) {
	if p.Line < 0 {
		return 0, 0, fmt.Errorf("line %d is negative: %w", p.Line, ErrInvalidPosition)
	}
	if p.Character < 0 {
		return 0, 0, fmt.Errorf("line %d: character %d is negative: %w", p.Line, p.Character, ErrInvalidPosition)
	}
	n := d.EditorLineCount()
	if p.Line == n && p.Character == 0 {
		// Just past the last line: the end of the text.
		last := len(d.lines) - 1
		return last, len(d.lines[last]), nil
	}
	sg, ok := d.segment(p.Line)
	if !ok {
		return 0, 0, fmt.Errorf("line %d is outside the document's %d lines: %w", p.Line, n, ErrInvalidPosition)
	}
	b, err := byteOffset(d.lines[sg.line][sg.from:sg.to], p.Character)
	if err != nil {
		return 0, 0, fmt.Errorf("line %d: %w", p.Line, err)
	}
	return sg.line, sg.from + b, nil
}

// byteOffset returns the byte offset of UTF-16 column col (not negative) in
// s, or len(s) when col is past its end.
func byteOffset(s string, col int) (int, error) {
	units := 0
	for i := 0; i < len(s); {
		if units == col {
			return i, nil
		}
		w, n := line.Char16(s[i:])
		if units+n > col {
			return 0, fmt.Errorf("character %d falls inside a surrogate pair: %w", col, ErrInvalidPosition)
		}
		units += n
		i += w
	}
	return len(s), nil
}

// width16 is the length of s in UTF-16 units, as line.Char16 counts them.
func width16(s string) int {
	units := 0
	for i := 0; i < len(s); {
		w, n := line.Char16(s[i:])
		units += n
		i += w
	}
	return units
}

// SetOptions changes budget or disabled codes.
func (d *Document) SetOptions(opts Options) {
	d.opts = opts
	d.report, d.base, d.before = nil, nil, nil
}

// Text returns the whole text (it joins the lines: O(size)).
func (d *Document) Text() string { return strings.Join(d.lines, "\n") }

// LineCount is the number of lines (split on '\n'; a trailing '\n' ends
// with an empty last line, as editors show it).
func (d *Document) LineCount() int { return len(d.lines) }

// Line returns line i (0-based) without its '\n', or "" out of range.
func (d *Document) Line(i int) string {
	if i < 0 || i >= len(d.lines) {
		return ""
	}
	return d.lines[i]
}

// LineResult is the verdict on line i (0-based); an empty line is Valid
// with RoleNone (skipped by the runtime), and so is a line out of range.
func (d *Document) LineResult(i int) line.Result {
	if i < 0 || i >= len(d.results) {
		return line.Result{}
	}
	r := &d.results[i]
	switch {
	case r.msg != nil:
		return *r.msg
	case r.verdict == line.Valid:
		return line.Result{} // an empty line
	}
	return d.parseLine(d.lines[i]) // a refused line keeps no reason
}

// Report is the current analysis (computed lazily after edits, from the
// cached line verdicts, without parsing). It equals Analyze's report on
// Text().
func (d *Document) Report() *Report {
	if d.report != nil {
		return d.report
	}
	r, ok := d.patch()
	if ok {
		d.patched++
	} else {
		r = d.analyze()
	}
	d.report, d.base, d.before = r, r, make(map[int]lineRes)
	return r
}

// maxPatchLines bounds the lines a patch handles; past it, starting over
// costs about the same.
const maxPatchLines = 256

// patch derives the report from base when every line touched since is a
// valid message before and after with the same shape (role, ids and their
// spans): then only costs and widths changed, so messages, units, checks
// and sweeps stay; units' sums, totals and the size and budget findings are
// redone. This is the common case of typing inside a message's content,
// and it costs a copy of the report's arrays instead of a re-analysis.
func (d *Document) patch() (*Report, bool) {
	b := d.base
	if b == nil || d.before == nil || len(d.before) > maxPatchLines || d.opts.SkipMessages {
		return nil, false
	}
	type update struct {
		msg   int
		ln    int
		delta int64
	}
	ups := make([]update, 0, len(d.before))
	var width int64
	invalidChanged := false
	for i, old := range d.before {
		now := &d.results[i]
		width += int64(now.width16 - old.width16)
		if old.verdict != line.Valid && now.verdict != line.Valid {
			if d.opts.MaxFindingsPerCode > 0 {
				// Which refused lines the limit keeps depends on
				// their causes: start over.
				return nil, false
			}
			// Still invalid (typing on a broken line): the set of invalid
			// lines is the same, only their findings change.
			invalidChanged = true
			continue
		}
		if !sameShape(&old, now) {
			return nil, false
		}
		k, ok := b.MessageAtLine(i + 1)
		if !ok {
			return nil, false
		}
		ups = append(ups, update{msg: k, ln: i + 1, delta: now.msg.Cost - old.msg.Cost})
	}
	r := *b
	r.Messages = slices.Clone(b.Messages)
	r.Units = slices.Clone(b.Units)
	for _, u := range ups {
		r.Messages[u.msg] = keepAnswers(message(d.results[u.ln-1].msg, u.ln, nil), &b.Messages[u.msg])
		r.Units[r.UnitOfMessage(u.msg)].Chars += u.delta
		r.TotalChars += u.delta
	}
	var sum int64
	for k := len(r.Units) - 1; k >= 0; k-- {
		sum += r.Units[k].Chars
		r.Units[k].FromNewest = sum
	}
	r.Width16 += width
	fs := make([]Finding, 0, len(b.Findings)+1)
	for _, f := range b.Findings {
		switch {
		case scopeOf(f.Code) >= ScopeFile:
			// Made again below (sizeAndBudget), from the new totals.
		case IsRefusal(f.Code):
			// A refused line's: made again when a refused line changed.
			if !invalidChanged {
				fs = append(fs, f)
			}
		default:
			// A line's or unit's, from facts of messages every edited
			// line kept (sameShape).
			fs = append(fs, f)
		}
	}
	if invalidChanged {
		// Invalid lines carry no other finding, so appending theirs after
		// the checks' sorts them as a fresh analysis does.
		inv := d.invalidLines()
		invalidFindings(inv, &fs, d.opts.Disabled, false)
		r.loadMessage = loadMessage(inv, false)
	}
	r.Findings = sizeAndBudget(&r, d.opts, fs)
	if len(r.Findings) == 0 {
		r.Findings = nil // as a fresh analysis leaves it
	}
	return &r, true
}

// stringBytes is s's bytes, shared, for reading only.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// invalidLines lists the invalid lines, numbered as the report numbers them.
func (d *Document) invalidLines() []invalidLine {
	var inv []invalidLine
	nonEmpty := 0
	for i, l := range d.lines {
		if l == "" {
			continue
		}
		nonEmpty++
		if d.results[i].verdict != line.Valid {
			r := d.parseLine(l)
			inv = append(inv, invalidLine{line: i + 1, runtimeLine: nonEmpty, verdict: r.Verdict, reason: r.Reason, span: r.Span, damage: classify(stringBytes(l), &r)})
		}
	}
	return inv
}

// sameShape reports whether two results are valid messages that link and
// are checked alike: every fact of shapeFacts is the same (the content,
// and so the cost and width, may differ).
func sameShape(x, y *lineRes) bool {
	if x.msg == nil || y.msg == nil {
		return false
	}
	a, b := x.msg, y.msg
	facts := shapeFacts()
	if a.Verdict != line.Valid || b.Verdict != line.Valid || a.Role == line.RoleNone || facts&FactLine != 0 {
		return false
	}
	if facts&FactRole != 0 && a.Role != b.Role {
		return false
	}
	if facts&FactDeep != 0 && tooDeep(a.Depth) != tooDeep(b.Depth) {
		return false
	}
	if facts&FactIDs != 0 {
		if a.ToolCallID != b.ToolCallID || a.ToolCallIDSpan != b.ToolCallIDSpan || len(a.Calls) != len(b.Calls) {
			return false
		}
		for i := range a.Calls {
			if a.Calls[i].ID != b.Calls[i].ID || a.Calls[i].IDSpan != b.Calls[i].IDSpan {
				return false
			}
		}
	}
	return true
}

// analyze computes the report from the cached line results.
func (d *Document) analyze() *Report {
	// A document patches its report on most edits, without seeing every
	// message again: an observer would see some rebuilds and not others.
	opts := d.opts
	opts.Observer = nil
	c := newCollector(opts, d.eng.parse)
	msgs, calls := 0, 0
	for i := range d.results {
		if r := d.results[i].msg; r != nil && r.Role != line.RoleNone {
			msgs++
			calls += len(r.Calls)
		}
	}
	c.reserve(msgs, calls)
	nonEmpty := 0
	width := int64(len(d.lines) - 1) // the '\n's
	for i, l := range d.lines {
		if l == "" {
			continue
		}
		nonEmpty++
		r := &d.results[i]
		width += int64(r.width16)
		if r.verdict != line.Valid {
			// Through the collector's limit, as a stream's: past it a
			// refused line is only counted, and not parsed again.
			v := invalidLine{line: i + 1, runtimeLine: nonEmpty, verdict: r.verdict, damage: r.flags.damage()}
			if c.take(&v) {
				c.fill(&c.pend, stringBytes(l))
			}
			continue
		}
		m := message(r.msg, i+1, nil)
		c.addMessage(&m)
	}
	c.rep.Lines = len(d.lines)
	if d.lines[len(d.lines)-1] == "" {
		c.rep.Lines-- // a text ending in '\n' (or empty) has no last line
	}
	c.rep.Width16 = width
	return c.finish()
}

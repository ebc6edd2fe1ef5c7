package fix

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/sessionls/sessionls/analysis/line"

	"github.com/sessionls/sessionls/analysis"
)

// roundResult is what one round of FixAll made of its data.
type roundResult struct {
	data   []byte
	origin []int
	fixed  int
	lost   Loss
}

// streamRound is one round of FixAll: Select(plan(data, …)), then origins
// and Apply of the selected fixes, made as plan hands each fix over, so
// that the round holds the fixes of one line at a time instead of one Fix
// (about 170 bytes, and three copies of the list) per fixed line.
//
// Apply orders fixes by their first edit and plan by line; the two agree
// when each fix's first edit comes after every earlier line's fixes'
// first edits, which holds for plan's fixes (a fix's first edit is on its
// own line). streamRound checks it, and that no selected fix overlaps an
// earlier one (Apply would skip it while origins counts it): ok is false
// when either fails, and the round must be made the old way.
func streamRound(data []byte, prev []int, idx planIndex, declared map[string]bool, jsonOnly, unsafe bool) (r roundResult, ambs []Ambiguity, ok bool) {
	ok = true
	var out []byte // made at the first fix: a round that fixes nothing copies nothing
	copied := 0    // data[:copied] is in out, edited
	last := 0      // end of the last applied fix's edits
	maxStart := 0  // the greatest first edit of the lines flushed
	var group []Fix
	og := originWalker{data: data, prev: prev}
	flush := func() {
		if len(group) == 0 {
			return
		}
		if out == nil {
			out = make([]byte, 0, len(data)+64)
		}
		slices.SortStableFunc(group, func(a, b Fix) int { return cmp.Compare(a.Edits[0].Start, b.Edits[0].Start) })
		if group[0].Edits[0].Start < maxStart {
			ok = false
		}
		for _, f := range group {
			if f.Edits[0].Start < last {
				ok = false // Apply would skip it
				break
			}
			for _, e := range f.Edits {
				out = append(out, data[copied:e.Start]...)
				out = append(out, e.New...)
				copied = e.End
			}
			last = f.Edits[len(f.Edits)-1].End
		}
		maxStart = max(maxStart, group[len(group)-1].Edits[0].Start)
		group = group[:0]
	}
	sel := selector{unsafe: unsafe}
	ambs = planEach(data, idx, declared, jsonOnly, func(f Fix) {
		if !ok || !sel.take(f) {
			return
		}
		if len(f.Edits) == 0 {
			ok = false // Apply would index its first edit
			return
		}
		if len(group) > 0 && group[0].Line != f.Line {
			flush()
		}
		group = append(group, f)
		og.fix(f)
		r.fixed++
		r.lost = r.lost.Add(f.Lost)
	})
	flush()
	if !ok || r.fixed == 0 {
		return roundResult{}, ambs, ok
	}
	r.data = append(out, data[copied:]...)
	r.origin = og.finish()
	return r, ambs, true
}

// selector is Select one fix at a time, in line order.
type selector struct {
	unsafe     bool
	firstOther int // line of the first selected fix that is no orphan deletion
}

// take reports whether Select keeps f, given the fixes taken before it.
func (s *selector) take(f Fix) bool {
	if f.Safety == Unsafe && !s.unsafe {
		return false
	}
	if f.Code == analysis.CodeOrphanToolResult {
		if s.firstOther > 0 && s.firstOther < f.Line {
			return false
		}
	} else if s.firstOther == 0 {
		s.firstOther = f.Line
	}
	return true
}

// originWalker is origins one fix at a time, in line order: it walks the
// lines of data once, as origins does.
type originWalker struct {
	data []byte
	prev []int
	out  []int
	pos  int // offset of the next line not walked
	ln   int // its number, less one
}

// line returns the next line of data: its number, offsets and whether a
// '\n' ends it; false past the end.
func (w *originWalker) line() (ln, start, end int, nl, ok bool) {
	if w.pos >= len(w.data) {
		return 0, 0, 0, false, false
	}
	start, end = w.pos, len(w.data)
	if i := bytes.IndexByte(w.data[start:], '\n'); i >= 0 {
		end, nl = start+i, true
	}
	w.pos = end + 1
	w.ln++
	return w.ln, start, end, nl, true
}

func (w *originWalker) origin(ln int) int {
	if w.prev != nil {
		return w.prev[ln-1]
	}
	return ln
}

// fix takes the next fix in line order. As in origins, a fix on a line
// already walked (a second fix of a line, or one within an earlier fix's
// lines) counts for nothing.
func (w *originWalker) fix(f Fix) {
	if f.Line <= w.ln {
		return
	}
	spanStart := -1
	for {
		ln, start, end, nl, ok := w.line()
		if !ok {
			return
		}
		if ln < f.Line {
			w.out = append(w.out, w.origin(ln))
			continue
		}
		if spanStart < 0 {
			spanStart = start
		}
		if ln < max(f.EndLine, f.Line) {
			continue // the fix's span goes on
		}
		if nl {
			end++
		}
		for range editedLines(w.data, spanStart, end, f.Edits) {
			w.out = append(w.out, 0)
		}
		return
	}
}

// finish walks the lines no fix took and returns the origins.
func (w *originWalker) finish() []int {
	for {
		ln, _, _, _, ok := w.line()
		if !ok {
			return w.out
		}
		w.out = append(w.out, w.origin(ln))
	}
}

// roundIndex analyses data for a round of FixAll and returns only what
// planning reads of its findings (planIndex): the line and code of each
// finding of a fixable or refusal code, with the span of an orphan tool
// result (the span of its toolCallId, as the engine sets it). The engine
// lists one finding of each code and keeps the lines of the others as a
// LineList (a few bytes for a run of lines), so that a round costs no
// message and no Finding per refused line.
//
// ok is false, and the round must analyse data with opts itself, when
// opts already limits the findings (the plan is then of those listed), when
// an Observer or a RecordReader would see the file twice, or when two of
// the findings share a line (their order within the line would be lost).
func roundIndex(ctx context.Context, data []byte, opts analysis.Options) (idx planIndex, ok bool, err error) {
	if opts.MaxFindingsPerCode > 0 || opts.Observer != nil || opts.Records != nil {
		return idx, false, nil
	}
	keep := func(code string) bool { return Fixable(code) || analysis.IsRefusal(code) }
	ropts := opts
	ropts.MaxFindingsPerCode = 1
	ropts.OmittedLines = map[string]bool{}
	for _, c := range analysis.Codes() {
		if keep(c) {
			ropts.OmittedLines[c] = true
		}
	}
	rep, err := analysis.AnalyzeReader(ctx, bytes.NewReader(data), ropts)
	if err != nil {
		return idx, false, err
	}
	// Each line's finding, once: its want and, for a refusal, its refusal.
	wanted := func(code string) bool {
		return Fixable(code) && !(opts.JSONOnly && code == analysis.CodeOrphanToolResult)
	}
	n, nr := 0, 0
	count := func(code string, k int) {
		if wanted(code) {
			n += k
		}
		if analysis.IsRefusal(code) {
			nr += k
		}
	}
	for _, f := range rep.Findings {
		count(f.Code, 1)
	}
	for _, o := range rep.Omitted {
		count(o.Code, o.Lines.Len())
	}
	idx = planIndex{wants: make([]want, 0, n), refused: make(refusals, 0, nr)}
	add := func(ln int, code string, span line.Span) {
		if wanted(code) {
			idx.wants = append(idx.wants, want{ln, code, span})
		}
		if analysis.IsRefusal(code) {
			idx.refused = append(idx.refused, refusal{ln, code})
		}
	}
	orphans := false
	for _, f := range rep.Findings {
		add(f.Line, f.Code, f.Span)
	}
	for _, o := range rep.Omitted {
		if !keep(o.Code) {
			continue
		}
		for ln := range o.Lines.All() {
			add(ln, o.Code, line.Span{})
		}
		orphans = orphans || (o.Code == analysis.CodeOrphanToolResult && wanted(o.Code))
	}
	rep = nil
	// Lines found in order per code; merged by line here.
	slices.SortStableFunc(idx.wants, func(a, b want) int { return cmp.Compare(a.line, b.line) })
	slices.SortStableFunc(idx.refused, func(a, b refusal) int { return cmp.Compare(a.ln, b.ln) })
	for i := 1; i < len(idx.wants); i++ {
		if idx.wants[i].line == idx.wants[i-1].line {
			return planIndex{}, false, nil
		}
	}
	for i := 1; i < len(idx.refused); i++ {
		if idx.refused[i].ln == idx.refused[i-1].ln {
			return planIndex{}, false, nil
		}
	}
	if orphans {
		// The omitted orphans' spans, read again from their lines.
		k := 0
		w := idx.wants
		ForEachLine(data, func(ln, start, end int, _ bool) bool {
			for k < len(w) && w[k].line < ln {
				k++
			}
			if k < len(w) && w[k].line == ln && w[k].code == analysis.CodeOrphanToolResult && w[k].span == (line.Span{}) {
				w[k].span = line.Parse(data[start:end]).ToolCallIDSpan
			}
			return k < len(w)
		})
	}
	return idx, true, nil
}

// editedLines is CountLines(applyEdits(data[start:end], edits)), edits in
// data's offsets, without making the edited bytes.
func editedLines(data []byte, start, end int, edits []Edit) int {
	n, size := 0, 0
	var last byte
	piece := func(b string) {
		if len(b) > 0 {
			n += strings.Count(b, "\n")
			size += len(b)
			last = b[len(b)-1]
		}
	}
	prev := start
	for _, e := range edits {
		piece(string(data[prev:e.Start])) // no copy: the conversion does not escape
		piece(e.New)
		prev = e.End
	}
	piece(string(data[prev:end]))
	if size > 0 && last != '\n' {
		n++
	}
	return n
}

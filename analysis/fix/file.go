package fix

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// Fixable reports whether findings with this code can have a fix in the
// runtime's sessions: whether one of the engine's kinds of repair (the fix
// table's, but for a dialect's own) repairs them. A dialect may repair
// more (Claude Code's transcripts: claude.Fixable); ask the dialect's Plan
// for those.
func Fixable(code string) bool {
	return analysis.HasFixes(code)
}

// Compute returns the fix of every finding in findings that has one, in
// line order. data is the file the findings are about.
func Compute(data []byte, findings []analysis.Finding) []Fix {
	fixes, _ := Plan(data, findings)
	return fixes
}

// Plan returns the fix of every finding in findings that has one, in line
// order, and the runs of lines whose interleaved pieces can be rejoined in
// more than one way (which get no fix). data is the file the findings are
// about.
//
// Repairs across lines come first: a record split over lines by raw line
// breaks (safe), then the pairing of interleaved appends' pieces; the fix
// of such a run of lines is the fix of the finding on its first line, and
// the other lines get no fix of their own. Every other line gets its own
// repair. An orphan tool result is deleted only when no refused line holds
// its id as an "id" member and none holds a damaged assistant record (the
// assistant declaring it may be on a line the fixes could not save, or in
// the part of it the damage lost): see OrphanHeld.
func Plan(data []byte, findings []analysis.Finding) ([]Fix, []Ambiguity) {
	return plan(data, findings, map[string]bool{}, false)
}

// PlanJSON is Plan at JSON.parse's level alone, for the findings of a
// JSON-only analysis (analysis.Options.JSONOnly, a dialect's JSON level):
// a line a repair leaves is accepted when JSON.parse accepts it, whatever
// its value; the runtime's record repairs (a missing isError or toolCalls)
// and its orphan tool results are not made.
func PlanJSON(data []byte, findings []analysis.Finding) ([]Fix, []Ambiguity) {
	return plan(data, findings, map[string]bool{}, true)
}

// ComputeJSON is Compute at JSON.parse's level alone (see PlanJSON).
func ComputeJSON(data []byte, findings []analysis.Finding) []Fix {
	fixes, _ := PlanJSON(data, findings)
	return fixes
}

// plan is Plan with the call ids that refused lines declared, adding those
// of data's refused lines to it: FixAll keeps them from round to round, so
// that an orphan whose damaged assistant an earlier round repaired or
// deleted stays held.
//
// With jsonOnly a repair's lines are judged by JSON.parse alone (PlanJSON).
func plan(data []byte, findings []analysis.Finding, declared map[string]bool, jsonOnly bool) ([]Fix, []Ambiguity) {
	var out []Fix
	ambs := planEach(data, indexFindings(findings, jsonOnly), declared, jsonOnly, func(f Fix) { out = append(out, f) })
	return out, ambs
}

// want is a finding plan looks for a fix of.
type want struct {
	line int
	code string
	span line.Span
}

// refusal is the code of the refusal of a line.
type refusal struct {
	ln   int
	code string
}

// refusals are the refused lines, sorted, one per line (24 bytes a line
// where a map took about twice that).
type refusals []refusal

func (r refusals) find(ln int) (string, bool) {
	i, ok := slices.BinarySearchFunc(r, ln, func(e refusal, ln int) int { return cmp.Compare(e.ln, ln) })
	if !ok {
		return "", false
	}
	return r[i].code, true
}

func (r refusals) has(ln int) bool { _, ok := r.find(ln); return ok }

// code is the code of line ln's refusal, "" for none.
func (r refusals) code(ln int) string { c, _ := r.find(ln); return c }

// planIndex is what plan reads of the findings: the fixable ones sorted by
// line (in findings' order on a line), and the refused lines.
type planIndex struct {
	wants   []want
	refused refusals
}

// indexFindings indexes findings for plan.
func indexFindings(findings []analysis.Finding, jsonOnly bool) planIndex {
	n, nr := 0, 0
	for _, f := range findings {
		if Fixable(f.Code) && !(jsonOnly && f.Code == analysis.CodeOrphanToolResult) {
			n++
		}
		if analysis.IsRefusal(f.Code) {
			nr++
		}
	}
	idx := planIndex{wants: make([]want, 0, n), refused: make(refusals, 0, nr)} // no growing
	for _, f := range findings {
		if Fixable(f.Code) && !(jsonOnly && f.Code == analysis.CodeOrphanToolResult) {
			idx.wants = append(idx.wants, want{f.Line, f.Code, f.Span})
		}
		if analysis.IsRefusal(f.Code) {
			idx.refused = append(idx.refused, refusal{f.Line, f.Code})
		}
	}
	idx.sort()
	return idx
}

// sort orders the index by line, keeping findings' order on a line; of
// two refusals of a line, the later one stands (as in a map by line).
func (idx *planIndex) sort() {
	slices.SortStableFunc(idx.wants, func(a, b want) int { return cmp.Compare(a.line, b.line) })
	r := idx.refused
	slices.SortStableFunc(r, func(a, b refusal) int { return cmp.Compare(a.ln, b.ln) })
	k := 0
	for i := range r {
		if k > 0 && r[k-1].ln == r[i].ln {
			r[k-1] = r[i]
			continue
		}
		r[k] = r[i]
		k++
	}
	idx.refused = r[:k]
}

// planEach is plan handing each fix to emit, in plan's order (line order;
// on one line, a repair across lines first), instead of collecting them:
// FixAll applies them as they come, so that a file of a million refused
// lines never holds a million fixes (see streamRound).
func planEach(data []byte, idx planIndex, declared map[string]bool, jsonOnly bool, emit func(Fix)) []Ambiguity {
	parse := parseFunc(line.Parse)
	if jsonOnly {
		parse = line.ParseJSON
	}
	wants, refused := idx.wants, idx.refused
	if len(wants) == 0 {
		return nil
	}
	bad := make([]fileLine, 0, len(refused)) // the refused lines, in order
	if len(refused) > 0 {
		j := 0
		ForEachLine(data, func(ln, start, end int, nl bool) bool {
			for j < len(refused) && refused[j].ln < ln {
				j++
			}
			if j < len(refused) && refused[j].ln == ln {
				bad = append(bad, fileLine{ln: ln, start: start, end: end, nl: nl})
			}
			return len(bad) < len(refused)
		})
	}
	var out []Fix
	var ambs []Ambiguity
	owned := map[int]bool{} // lines a repair across lines took
	isRefused := refused.has
	for i := 0; i < len(bad); i++ {
		l := bad[i].bytes(data)
		if r := line.Parse(l); r.Verdict != line.InvalidJSON || !strings.Contains(r.Reason, "unterminated string") {
			continue
		}
		if f, last, ok := splitRecord(data, bad[i], isRefused, parse); ok {
			f.Code = refused.code(f.Line)
			out = append(out, f)
			for i < len(bad) && bad[i].ln <= last {
				owned[bad[i].ln] = true
				i++
			}
			i--
		}
	}
	var part []fileLine
	evidence := false // a refused line shows appends interleaved
	seenLong := false // a refused line of several writes came before
	for _, b := range bad {
		if owned[b.ln] {
			continue
		}
		l := b.bytes(data)
		switch {
		case len(l) > analysis.ChunkSize && l[0] == '{':
			// A line of several writes that begins a record: it may hold
			// other appends' pieces, unless a safe repair of its own
			// explains it (a long record with a trailing comma).
			if lf, ok := forLine(l, refused.code(b.ln), parse); ok && lf.Safety == Safe && !interleavedHead(l) {
				continue
			}
			evidence = evidence || interleavedHead(l)
			seenLong = true
			part = append(part, b)
		case seenLong && continuation(l):
			// The rest of a record whose first writes are on a line before.
			evidence = true
			part = append(part, b)
		}
	}
	if evidence {
		// Where appends interleaved, a line the runtime accepts may be a
		// splice too (the head of one record and the tail of another,
		// both parsing): every line of several writes takes part.
		var all []fileLine
		k := 0
		ForEachLine(data, func(ln, start, end int, nl bool) bool {
			for k < len(part) && part[k].ln < ln {
				all = append(all, part[k])
				k++
			}
			if k < len(part) && part[k].ln == ln {
				return true
			}
			if !refused.has(ln) && end-start > analysis.ChunkSize && data[start] == '{' {
				all = append(all, fileLine{ln: ln, start: start, end: end, nl: nl})
			}
			return true
		})
		part = append(all, part[k:]...)
		fs, as, lossy := solveInterleaved(data, part, parse)
		ownRange := func(from, to int) {
			for _, p := range part {
				if p.ln >= from && p.ln <= to {
					owned[p.ln] = true
				}
			}
		}
		firstRefused := func(from, to int) string {
			for _, p := range part {
				if c, ok := refused.find(p.ln); ok && p.ln >= from && p.ln <= to {
					return c
				}
			}
			return ""
		}
		for _, f := range fs {
			f.Code = firstRefused(f.Line, f.EndLine)
			out = append(out, f)
			ownRange(f.Line, f.EndLine)
		}
		for _, a := range as {
			for k := range a.Candidates {
				a.Candidates[k].Code = firstRefused(a.Line, a.EndLine)
			}
			// A line the runtime accepts that a way of pairing takes
			// apart may be a splice: say so.
			a.Questioned = questioned(a, part, func(ln int) bool { return !refused.has(ln) })
			ambs = append(ambs, a)
			ownRange(a.Line, a.EndLine)
		}
		// One way that loses pieces: a line whose own repair exists keeps
		// it (it may keep a record the pairing drops); the others take
		// the pairing's edit.
		starts := map[int]int{}
		for _, p := range part {
			starts[p.ln] = p.start
		}
		for _, les := range lossy {
			var rest []lineEdit
			for _, le := range les {
				owned[le.ln] = true
				code, isBad := refused.find(le.ln)
				if isBad {
					l := data[starts[le.ln]:]
					if i := bytes.IndexByte(l, '\n'); i >= 0 {
						l = l[:i]
					}
					if _, ok := forLine(l, code, parse); ok {
						owned[le.ln] = false
						continue
					}
				}
				rest = append(rest, le)
			}
			if f := fixOfLines(rest, func(ln int) int { return starts[ln] }); len(f.Edits) > 0 {
				f.Code = firstRefused(f.Line, f.EndLine)
				out = append(out, f)
			}
		}
	}
	for _, b := range bad {
		DeclaredIDs(b.bytes(data), declared)
	}
	// The repairs across lines, in line order, go before the repairs of
	// single lines on their line (a stable sort of the two lists, the
	// repairs across lines first, by line).
	slices.SortStableFunc(out, func(a, b Fix) int { return cmp.Compare(a.Line, b.Line) })
	c := 0
	k := 0
	ForEachLine(data, func(ln, start, end int, nl bool) bool {
		l := data[start:end]
		for ; k < len(wants) && wants[k].line <= ln; k++ {
			w := wants[k]
			if w.line < ln || owned[ln] {
				continue // not a line of data, or repaired with others
			}
			if w.code == analysis.CodeOrphanToolResult && OrphanHeld(l, w.span, declared) {
				continue
			}
			if lf, ok := forLine(l, w.code, parse); ok {
				for ; c < len(out) && out[c].Line <= ln; c++ {
					emit(out[c])
				}
				emit(ToFile(lf, ln, w.code, start, end, nl))
			}
		}
		return k < len(wants)
	})
	for ; c < len(out); c++ {
		emit(out[c])
	}
	return ambs
}

// afterIDKey reports whether l[:i] ends with the key "id" and a colon,
// whitespace allowed around it.
func afterIDKey(l []byte, i int) bool {
	j := i - 1
	for j >= 0 && isWS(l[j]) {
		j--
	}
	if j < 0 || l[j] != ':' {
		return false
	}
	j--
	for j >= 0 && isWS(l[j]) {
		j--
	}
	return j >= 3 && string(l[j-3:j+1]) == `"id"`
}

// maxLiteral bounds the string literals literals collects: a call id is
// short.
const maxLiteral = 1 << 10

// anyID is the key DeclaredIDs sets for a refused line that holds an
// assistant record: it may have declared any id in a part that is lost.
const anyID = "*"

// DeclaredIDs adds to set the string literals (quotes included) that are
// the value of an "id" member on l, a line the runtime refuses: the call
// ids it may declare. A literal is read from every '"' (a refused line may
// start inside a string, so both readings are taken). A refused line that
// holds an assistant record may have declared more ids in a part the
// damage cut off: then every id counts as declared.
func DeclaredIDs(l []byte, set map[string]bool) {
	if damagedAssistant(l) {
		set[anyID] = true
	}
	for i := bytes.IndexByte(l, '"'); i >= 0 && i < len(l); {
		j := i + 1
		for j < len(l) && l[j] != '"' {
			if l[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(l) {
			break
		}
		if j+1-i <= maxLiteral && afterIDKey(l, i) {
			set[string(l[i:j+1])] = true
		}
		i = j
	}
}

// damagedAssistant reports whether the refused line l may have lost an
// assistant's declarations: NULs where the file system lost data (they may
// have held one), or an assistant record that JSON.parse refuses and no
// safe repair explains (cut short, or interleaved).
func damagedAssistant(l []byte) bool {
	if zeroFilled(l) {
		return true
	}
	if !bytes.Contains(l, []byte(`"role":"assistant"`)) || line.Parse(l).Verdict != line.InvalidJSON {
		return false
	}
	lf, ok := ForLine(l, analysis.CodeInvalidJSON)
	return !ok || lf.Safety != Safe
}

// OrphanHeld reports whether the orphan tool result on line l, whose
// toolCallId literal is at span, must be kept: a refused line of the file
// (whose ids DeclaredIDs put in declared) may declare its id, and fixing
// or rejoining that line would make it no orphan, or its assistant was
// damaged. Deleting it then could lose an intact result; keeping it costs
// nothing (the runtime loads an orphan).
func OrphanHeld(l []byte, span line.Span, declared map[string]bool) bool {
	if declared[anyID] {
		return true
	}
	s := span
	return s.Start >= 0 && s.End <= len(l) && s.Start < s.End && declared[string(l[s.Start:s.End])]
}

// ForEachLine calls fn for each physical line of data: its 1-based number,
// the offsets of its bytes data[start:end] (without the '\n') and whether a
// '\n' ends it. It stops when fn returns false.
func ForEachLine(data []byte, fn func(ln, start, end int, nl bool) bool) {
	start := 0
	for ln := 1; start < len(data); ln++ {
		end := len(data)
		nl := false
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end, nl = start+i, true
		}
		if !fn(ln, start, end, nl) {
			return
		}
		start = end + 1
	}
}

// ToFile turns the repair of a line that occupies data[start:end] (nl: a
// '\n' follows it) into the fix of the finding (ln, code).
func ToFile(lf LineFix, ln int, code string, start, end int, nl bool) Fix {
	f := Fix{Line: ln, EndLine: ln, Code: code, Kinds: lf.Kinds, Safety: lf.Safety, Title: lf.Title, LineStart: start, Lost: lf.Lost}
	if lf.DeleteLine {
		if nl {
			end++
			if f.Lost.Bytes > 0 {
				f.Lost.Bytes++
			}
		}
		f.Edits = []Edit{{Start: start, End: end}}
		return f
	}
	f.Edits = make([]Edit, len(lf.Edits))
	for i, e := range lf.Edits {
		f.Edits[i] = Edit{Start: start + e.Start, End: start + e.End, New: e.New}
	}
	return f
}

// Apply returns data with the fixes applied. A fix whose edits overlap an
// earlier fix's is skipped (fixes of different lines never do).
func Apply(data []byte, fixes []Fix) []byte {
	fs := slices.Clone(fixes)
	slices.SortStableFunc(fs, func(a, b Fix) int { return cmp.Compare(a.Edits[0].Start, b.Edits[0].Start) })
	var es []Edit
	last := 0
	for _, f := range fs {
		if len(f.Edits) == 0 || f.Edits[0].Start < last {
			continue
		}
		es = append(es, f.Edits...)
		last = f.Edits[len(f.Edits)-1].End
	}
	return applyEdits(data, es)
}

// maxRounds bounds FixAll's analyse-and-fix rounds. Two suffice (fixes
// never break another line; only an orphan deletion waits a round, see
// FixAll), the third confirms that nothing is left.
const maxRounds = 4

// Result is what FixAll did.
type Result struct {
	// Data is the fixed file (the input itself when nothing was fixed).
	Data []byte
	// Fixed counts the findings fixed.
	Fixed int
	// Report is the analysis of Data, made with the options FixAll had.
	Report *analysis.Report
	// Origin has, for each physical line of Data, the number (1-based) of
	// the input line it is, unchanged; 0 for a line a fix wrote. It is nil
	// when nothing was fixed (every line is its own origin).
	Origin []int
	// Lost is what the applied fixes deleted from the input: bytes, and
	// records whole or partial (zero unless unsafe fixes were applied).
	Lost Loss
	// HeldOrphans counts the orphan tool results of Data that an unsafe
	// run did not delete because a refused line of the input (in any
	// round) may declare their id or held a damaged assistant (see
	// OrphanHeld). Fixing Data again cannot know that, and would delete
	// them: FixAll is idempotent but for these.
	HeldOrphans int
	// Ambiguities are the runs of lines of Data whose interleaved pieces
	// can be rejoined in more than one way: not fixed, each with its
	// candidate fixes (in Data's terms). A file with one does not load.
	Ambiguities []Ambiguity
}

// FixAll applies every safe fix (and with unsafe, every unsafe fix too) to
// data, analysing it with opts (findings of disabled codes are neither
// reported nor fixed), and repeats until nothing is left to fix.
//
// An orphan tool result is deleted only in a round where no line before it
// is fixed: fixing an earlier line (an assistant joined to another record,
// or one missing toolCalls) may declare the result's id, and then the
// result is no orphan.
//
// An orphan tool result is kept while a refused line of the input (in any
// round) may declare its id, or held an assistant the damage cut
// (Result.HeldOrphans counts them): deleting it could lose an intact
// result.
//
// Applying FixAll's output to FixAll again changes nothing, but for the
// held orphans with unsafe (the second run cannot know why they were held).
func FixAll(data []byte, opts analysis.Options, unsafe bool) Result {
	res, _ := FixAllContext(context.Background(), data, opts, unsafe)
	return res
}

// FixAllContext is FixAll that stops, with ctx's error, when ctx is done.
func FixAllContext(ctx context.Context, data []byte, opts analysis.Options, unsafe bool) (Result, error) {
	return fixAll(ctx, data, opts, unsafe, 0, nil)
}

// FixAllCapped is FixAllContext whose Result.Report, the analysis of the
// fixed data, keeps the first maxPerCode findings of each code and counts
// the rest in Report.Omitted (with the lines of omittedLines' codes), as
// analysis.Options.MaxFindingsPerCode and OmittedLines do: a file of a
// million refused lines no fix repairs then costs a few bytes a line, not
// a Finding and its message each. The rounds still plan every finding, so
// Data, Fixed, Lost, Origin, Ambiguities and HeldOrphans are FixAllContext's.
// Where a round cannot plan from its own index (opts already caps, or has
// an Observer or a RecordReader; two findings share a line) the report is
// whole, as FixAllContext's: the caller caps it too.
func FixAllCapped(ctx context.Context, data []byte, opts analysis.Options, unsafe bool, maxPerCode int, omittedLines map[string]bool) (Result, error) {
	return fixAll(ctx, data, opts, unsafe, maxPerCode, omittedLines)
}

// fixAll is FixAllContext, and FixAllCapped with maxPerCode > 0.
func fixAll(ctx context.Context, data []byte, opts analysis.Options, unsafe bool, maxPerCode int, omittedLines map[string]bool) (Result, error) {
	res := Result{Data: data}
	analyzeWith := func(o analysis.Options) error {
		rep, err := analysis.AnalyzeReader(ctx, bytes.NewReader(res.Data), o)
		res.Report = rep
		return err
	}
	analyze := func() error { return analyzeWith(opts) }
	capped := func() error {
		copts := opts
		copts.MaxFindingsPerCode, copts.OmittedLines = maxPerCode, omittedLines
		return analyzeWith(copts)
	}
	declared := map[string]bool{} // call ids refused lines declared, over the rounds
	for range maxRounds {
		// The findings the round plans: the report's, or only what
		// planning reads of them (see roundFindings), and then the report
		// is made once nothing is left to fix.
		idx, ok, err := roundIndex(ctx, res.Data, opts)
		if err != nil {
			return Result{}, err
		}
		if !ok {
			if err := analyze(); err != nil {
				return Result{}, err
			}
			idx = indexFindings(res.Report.Findings, opts.JSONOnly)
		}
		r, ambs, ok := streamRound(res.Data, res.Origin, idx, declared, opts.JSONOnly, unsafe)
		if !ok {
			// The fixes break an order streamRound relies on: the round as
			// Plan, Select, origins and Apply make it, holding its fixes
			// (planning again adds to declared the ids it already added).
			var all []Fix
			planEach(res.Data, idx, declared, opts.JSONOnly, func(f Fix) { all = append(all, f) })
			fixes := Select(all, unsafe)
			r = roundResult{data: Apply(res.Data, fixes), origin: origins(res.Data, fixes, res.Origin), fixed: len(fixes)}
			for _, f := range fixes {
				r.lost = r.lost.Add(f.Lost)
			}
		}
		if r.fixed == 0 {
			res.Ambiguities = ambs
			if res.Report == nil && maxPerCode > 0 && !(unsafe && opts.JSONOnly) {
				// idx is the whole index of res.Data (roundIndex's): the
				// held orphans are counted from its orphans (in a JSON-only
				// analysis idx has none, and the report is whole).
				if unsafe {
					res.HeldOrphans = heldOrphansOf(res.Data, idx, declared)
				}
				if err := capped(); err != nil {
					return Result{}, err
				}
				return res, nil
			}
			if res.Report == nil {
				if err := analyze(); err != nil {
					return Result{}, err
				}
			}
			if unsafe {
				res.HeldOrphans = heldOrphans(res.Data, res.Report.Findings, declared)
			}
			return res, nil
		}
		res.Report = nil // the next round analyses the fixed data
		res.Data, res.Origin = r.data, r.origin
		res.Fixed += r.fixed
		res.Lost = res.Lost.Add(r.lost)
	}
	if err := analyze(); err != nil {
		return Result{}, err
	}
	_, res.Ambiguities = plan(res.Data, res.Report.Findings, declared, opts.JSONOnly)
	if unsafe {
		res.HeldOrphans = heldOrphans(res.Data, res.Report.Findings, declared)
	}
	return res, nil
}

// heldOrphansOf is heldOrphans of the orphans idx wants fixed (idx has
// the whole file's, with their spans, and no two on a line).
func heldOrphansOf(data []byte, idx planIndex, declared map[string]bool) int {
	if len(declared) == 0 {
		return 0
	}
	var fs []analysis.Finding
	for _, w := range idx.wants {
		if w.code == analysis.CodeOrphanToolResult {
			fs = append(fs, analysis.Finding{Line: w.line, Code: w.code, Span: w.span})
		}
	}
	return heldOrphans(data, fs, declared)
}

// heldOrphans counts the orphan findings of data that declared holds.
func heldOrphans(data []byte, findings []analysis.Finding, declared map[string]bool) int {
	if len(declared) == 0 {
		return 0
	}
	lines := map[int]line.Span{}
	for _, f := range findings {
		if f.Code == analysis.CodeOrphanToolResult {
			lines[f.Line] = f.Span
		}
	}
	n := 0
	if len(lines) > 0 {
		ForEachLine(data, func(ln, start, end int, _ bool) bool {
			if sp, ok := lines[ln]; ok && OrphanHeld(data[start:end], sp, declared) {
				n++
			}
			return true
		})
	}
	return n
}

// Select returns the fixes FixAll applies in one round: the safe ones, with
// unsafe the unsafe ones too, except an orphan tool result's deletion
// after another selected fix (see FixAll). fixes are in line order.
func Select(fixes []Fix, unsafe bool) []Fix {
	var out []Fix
	firstOther := 0 // line of the first selected fix that is no orphan deletion
	for _, f := range fixes {
		if f.Safety == Unsafe && !unsafe {
			continue
		}
		if f.Code == analysis.CodeOrphanToolResult {
			if firstOther > 0 && firstOther < f.Line {
				continue
			}
		} else if firstOther == 0 {
			firstOther = f.Line
		}
		out = append(out, f)
	}
	return out
}

// CountLines is the number of physical lines of data: one per '\n', plus
// a last line without one.
func CountLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// Origins returns, for the lines of Apply(data, fixes), the input line each
// one is (from prev, the origins of data's lines; nil: data is the input),
// or 0 for a line a fix wrote: Result.Origin, for a dialect's own FixAll.
// fixes are in line order and do not overlap.
func Origins(data []byte, fixes []Fix, prev []int) []int { return origins(data, fixes, prev) }

// origins returns, for the lines of Apply(data, fixes), the input line each
// one is (from prev, the origins of data's lines; nil: data is the input),
// or 0 for a line a fix wrote. fixes are in line order and do not overlap.
func origins(data []byte, fixes []Fix, prev []int) []int {
	out := make([]int, 0, CountLines(data))
	k := 0
	spanStart := -1 // start of the lines of fixes[k], once reached
	ForEachLine(data, func(ln, start, end int, nl bool) bool {
		for k < len(fixes) && fixes[k].Line < ln && spanStart < 0 {
			k++
		}
		if k >= len(fixes) || fixes[k].Line > ln {
			o := ln
			if prev != nil {
				o = prev[ln-1]
			}
			out = append(out, o)
			return true
		}
		f := &fixes[k]
		if spanStart < 0 {
			spanStart = start
		}
		if ln < max(f.EndLine, f.Line) {
			return true // the fix's span goes on
		}
		if nl {
			end++
		}
		es := make([]Edit, len(f.Edits))
		for i, e := range f.Edits {
			es[i] = Edit{Start: e.Start - spanStart, End: e.End - spanStart, New: e.New}
		}
		for range CountLines(applyEdits(data[spanStart:end], es)) {
			out = append(out, 0)
		}
		spanStart = -1
		k++
		return true
	})
	return out
}

package fix

import (
	"bytes"
	"slices"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/jsonscan"
)

// Bounds on the work for one line: a hostile line must not make the fix
// engine quadratic.
const (
	// maxCommas is how many trailing commas one record may lose; a line
	// with more is not a hand-edit slip.
	maxCommas = 16
	// searchFactor and searchBase bound, in bytes scanned, the search for
	// where a truncated record ends when a complete one follows on its
	// line: searchFactor times the line's length plus searchBase. A line
	// that needs more gets no fix.
	searchFactor = 8
	searchBase   = 1 << 20
)

// Reasons from package line that the engine recognises.
const (
	reasonEndOfLine      = "unexpected end of line" // a prefix: "…: unterminated string" too
	reasonUnexpectedChar = "unexpected character "
	reasonIsError        = "isError must be a boolean"
	reasonToolCalls      = "assistant message requires a toolCalls array"
)

const (
	insertIsError   = `,"isError":false`
	insertToolCalls = `,"toolCalls":[]`
)

// ForLine returns the repair of physical line l (its bytes without the
// '\n') for the finding with the given code, and false when there is none.
// It never panics and its work is bounded by a small multiple of len(l).
func ForLine(l []byte, code string) (LineFix, bool) {
	return forLine(l, code, line.Parse)
}

// ForLineJSON is ForLine at JSON.parse's level alone (a dialect's JSON
// level, analysis.Options.JSONOnly): a repair is offered when every line it
// leaves is one JSON.parse accepts (or exactly empty), whatever its value.
func ForLineJSON(l []byte, code string) (LineFix, bool) {
	if code == analysis.CodeOrphanToolResult {
		return LineFix{}, false // a runtime message's check
	}
	return forLine(l, code, line.ParseJSON)
}

// parseFunc judges what a repair leaves: line.Parse (the runtime's record
// rules) or line.ParseJSON (JSON.parse alone).
type parseFunc func([]byte) line.Result

func forLine(l []byte, code string, parse parseFunc) (LineFix, bool) {
	switch code {
	case analysis.CodeOrphanToolResult:
		if r := line.Parse(l); r.Verdict != line.Valid || r.Role != line.RoleTool {
			return LineFix{}, false
		}
		return finish(LineFix{Kinds: []Kind{OrphanToolResult}, DeleteLine: true, Lost: Loss{int64(len(l)), 1}}), true
	default:
		if !analysis.IsRefusal(code) {
			return LineFix{}, false
		}
		if len(l) == 0 {
			return LineFix{}, false // skipped by the runtime: nothing to fix
		}
		lf, ok := repair(l, parse)
		if !ok || !accepted(l, lf, parse) {
			return LineFix{}, false
		}
		return finish(lf), true
	}
}

// finish sets the safety and title from the kinds.
func finish(lf LineFix) LineFix {
	slices.Sort(lf.Kinds)
	lf.Kinds = slices.Compact(lf.Kinds)
	lf.Safety = Safe
	for _, k := range lf.Kinds {
		if k.Safety() == Unsafe {
			lf.Safety = Unsafe
		}
	}
	lf.Title = title(lf.Kinds, lf.commas, lf.controls, lf.records)
	return lf
}

// accepted checks a repair the way the runtime will read it: every line it
// leaves is exactly empty (skipped) or a valid message. It guards against
// a repair that does not do what it claims. parse says what is valid.
func accepted(l []byte, lf LineFix, parse parseFunc) bool {
	if lf.DeleteLine {
		return true
	}
	if len(lf.Edits) == 0 {
		return false
	}
	for _, seg := range bytes.Split(applyEdits(l, lf.Edits), []byte{'\n'}) {
		if len(seg) > 0 && parse(seg).Verdict != line.Valid {
			return false
		}
	}
	return true
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipWS(l []byte, i int) int {
	for i < len(l) && isWS(l[i]) {
		i++
	}
	return i
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// piece is a record on a line: l[start:end], and the edits (offsets into
// the line) that make it a valid message.
type piece struct {
	start, end int
	edits      []Edit
	kinds      []Kind
	commas     int
	controls   int
}

// repair works out the repair of a non-empty invalid line.
func repair(l []byte, parse parseFunc) (LineFix, bool) {
	n := len(l)
	if skipWS(l, 0) == n {
		return LineFix{Kinds: []Kind{BlankLine}, DeleteLine: true}, true
	}
	if zeroFilled(l) {
		// Never the safe escape of control characters: the NULs stand
		// for lost data, and escaping them would make a damaged record
		// load as if it were whole.
		return zeroRepair(l, parse)
	}
	var lf LineFix
	// Byte order marks before the value (a file that starts with one, or
	// one concatenated after another).
	i := skipWS(l, 0)
	for bytes.HasPrefix(l[i:], bom) {
		lf.Edits = append(lf.Edits, Edit{Start: i, End: i + 3})
		lf.Kinds = append(lf.Kinds, BOM)
		i = skipWS(l, i+3)
	}
	if i == n {
		if n == 3*len(lf.Edits) {
			lf.Edits = normalize(lf.Edits)
			return lf, true // only marks: the line becomes exactly empty
		}
		// Marks and whitespace: what is left is a blank line.
		return LineFix{Kinds: []Kind{BOM, BlankLine}, DeleteLine: true}, true
	}

	budget := searchFactor*n + searchBase
	var pieces []piece
	pos := i
	truncFrom, truncTo := -1, -1 // a truncated part to delete, l[truncFrom:truncTo]
	for pos < n {
		if l[pos] != '{' {
			return LineFix{}, false // trailing content that is not a record
		}
		end := scanObject(l, pos, &budget)
		var p piece
		ok := end > 0
		if ok {
			p, ok = repairPiece(l, pos, end, parse)
		}
		if ok {
			pieces = append(pieces, p)
			pos = skipWS(l, end)
			continue
		}
		// Not a complete repairable record: a truncated one, alone or
		// before complete records.
		tail, k, found := truncatedBefore(l, pos, &budget, parse)
		whole := truncated(l[pos:])
		if found == 1 && !whole {
			pieces = append(pieces, tail...)
			truncFrom, truncTo = pos, k
		} else if found == 0 && whole {
			truncFrom, truncTo = pos, n
		} else {
			return LineFix{}, false // none, or two readings
		}
		break
	}
	if truncFrom >= 0 {
		lf.Kinds = append(lf.Kinds, TruncatedRecord)
		if len(pieces) == 0 {
			// The line held nothing else (its marks go with it).
			return LineFix{Kinds: []Kind{TruncatedRecord}, DeleteLine: true, Lost: Loss{int64(n), 1}}, true
		}
		// A record kept beside a truncated one must be whole from its
		// own first byte: one write() of node's appendFile, which lands
		// whole. A longer record was several writes, and the bytes past
		// its first 524,288 could be another record's tail (a splice of
		// two records that both parse); the fix of the file's
		// interleaved pieces decides those, not this one.
		for _, p := range pieces {
			if p.end-p.start >= analysis.ChunkSize {
				return LineFix{}, false
			}
		}
		// A part cut at a 524,288-byte boundary of the line, right where
		// another append begins, is the first writes of a record whose
		// rest may be on a later line (interleaved): not this line's to
		// delete; the fix of the file's interleaved pieces decides.
		if k := truncTo - truncFrom; truncFrom == 0 && truncTo < n && k%analysis.ChunkSize == 0 {
			return LineFix{}, false
		}
		lf.Lost = Loss{int64(truncTo - truncFrom), 1}
	}
	sep := "\n"
	if l[n-1] == '\r' {
		sep = "\r\n"
	}
	if truncFrom >= 0 && truncTo == n {
		// Truncated at the end, after complete records: delete it and
		// whatever separates it from them, keeping a final CR (a CRLF
		// file's line end).
		last := pieces[len(pieces)-1].end
		to := n
		if l[n-1] == '\r' && n-1 > last {
			to = n - 1
		}
		lf.Edits = append(lf.Edits, Edit{Start: last, End: to})
	} else if truncFrom >= 0 && truncFrom < pieces[0].start && truncTo == pieces[0].start {
		// Truncated before the first kept record.
		lf.Edits = append(lf.Edits, Edit{Start: truncFrom, End: truncTo})
	}
	for k, p := range pieces {
		if k > 0 {
			// The gap (whitespace, and a truncated part between the two
			// records) becomes a line break.
			lf.Edits = append(lf.Edits, Edit{Start: pieces[k-1].end, End: p.start, New: sep})
		}
		lf.Edits = append(lf.Edits, p.edits...)
		lf.Kinds = append(lf.Kinds, p.kinds...)
		lf.commas += p.commas
		lf.controls += p.controls
	}
	lf.records = len(pieces)
	if len(pieces) > 1 {
		lf.Kinds = append(lf.Kinds, JoinedRecords)
	}
	if len(lf.Kinds) == 0 {
		return LineFix{}, false // a valid line: nothing to fix
	}
	lf.Edits = normalize(lf.Edits)
	return lf, true
}

// scanObject returns the end of the object that starts at l[s] ('{') by
// following strings and brackets (jsonscan.SkipValue, the scanner the
// dialects use), or -1 when the line ends first, and charges the bytes it
// read to the budget. It does not validate: repairPiece parses what it
// delimits.
func scanObject(l []byte, s int, budget *int) int {
	end := jsonscan.SkipValue(l, s)
	if end < 0 {
		*budget -= len(l) - s
	} else {
		*budget -= end - s
	}
	return end
}

// truncated reports whether b (starting with '{') is the beginning of a
// JSON text cut short: JSON.parse fails only because the line ends. A final
// CR is left out: in a CRLF file it is the line end, and after a record cut
// inside a string JSON.parse would call it a control character.
func truncated(b []byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	if b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	r := line.Parse(b)
	return r.Verdict == line.InvalidJSON && strings.HasPrefix(r.Reason, reasonEndOfLine)
}

// truncatedBefore looks for where a truncated record that starts at l[s]
// ends when complete records follow it on the line: a k such that l[s:k]
// is truncated and l[k:] is one or more complete repairable records. It
// returns the records after the first such k, that k, and how many k were
// found (it stops at two: the line is then ambiguous), or -1 when the work
// budget ran out before it knew.
func truncatedBefore(l []byte, s int, budget *int, parse parseFunc) (tail []piece, at, found int) {
	for k := s + 1; k < len(l); k++ {
		j := bytes.IndexByte(l[k:], '{')
		if j < 0 {
			break
		}
		k += j
		// A record starts with a key.
		if q := skipWS(l, k+1); q >= len(l) || l[q] != '"' {
			continue
		}
		if *budget <= 0 {
			return nil, 0, -1
		}
		ps, ok := completeRecords(l, k, budget, parse)
		if *budget < 0 {
			return nil, 0, -1
		}
		if !ok {
			continue
		}
		*budget -= k - s
		if *budget < 0 {
			return nil, 0, -1
		}
		// Whitespace before the complete record separates the two (inside
		// the truncated record's last string a raw tab or CR would be a
		// control character, not the end of the line).
		if !truncated(bytes.TrimRight(l[s:k], " \t\r")) {
			continue
		}
		found++
		if found > 1 {
			return nil, 0, found
		}
		tail, at = ps, k
	}
	return tail, at, found
}

// completeRecords reads l[k:] as complete records separated by whitespace,
// each repairable, up to the end of the line.
func completeRecords(l []byte, k int, budget *int, parse parseFunc) ([]piece, bool) {
	var ps []piece
	for k < len(l) {
		if l[k] != '{' || *budget <= 0 {
			return nil, false
		}
		end := scanObject(l, k, budget)
		if end < 0 {
			return nil, false
		}
		// Cheap test first: what follows must be whitespace and a record
		// or the end; only then parse.
		next := skipWS(l, end)
		if next < len(l) && l[next] != '{' {
			return nil, false
		}
		*budget -= end - k
		p, ok := repairPiece(l, k, end, parse)
		if !ok {
			return nil, false
		}
		ps = append(ps, p)
		k = next
	}
	return ps, len(ps) > 0
}

// repairPiece makes l[start:end] a valid message, escaping raw control
// characters in strings, removing trailing commas and adding a missing
// isError or toolCalls; it fails for anything else.
func repairPiece(l []byte, start, end int, parse parseFunc) (piece, bool) {
	p := piece{start: start, end: end}
	work := l[start:end]
	// Raw control characters in strings first, all at once: a writer that
	// does not escape one does not escape any. They are always an error.
	es := escapeControls(work) // the edits so far, offsets into l[start:end], sorted
	if len(es) > 0 {
		work = applyEdits(work, es)
		p.controls = len(es)
		p.kinds = append(p.kinds, ControlCharacter)
	}
	added := false
	for {
		r := parse(work)
		switch r.Verdict {
		case line.Valid:
			for _, e := range es {
				p.edits = append(p.edits, Edit{Start: start + e.Start, End: start + e.End, New: e.New})
			}
			return p, true
		case line.InvalidJSON:
			at := r.Span.Start
			if p.commas >= maxCommas || at >= len(work) || (work[at] != '}' && work[at] != ']') ||
				!strings.HasPrefix(r.Reason, reasonUnexpectedChar) {
				return p, false
			}
			j := at - 1
			for j >= 0 && isWS(work[j]) {
				j--
			}
			if j < 0 || work[j] != ',' {
				return p, false
			}
			o, ok := toOriginal(es, j)
			if !ok {
				return p, false
			}
			work = append(work[:j:j], work[j+1:]...)
			es = insertEdit(es, Edit{Start: o, End: o + 1})
			p.commas++
			p.kinds = append(p.kinds, TrailingComma)
		case line.InvalidRecord:
			// Only a missing member (the span is then the whole value,
			// which starts at 0), and once.
			var ins string
			var kind Kind
			switch {
			case added || r.Span.Start != 0 || r.Span.End != len(work):
				return p, false
			case r.Reason == reasonIsError:
				ins, kind = insertIsError, MissingIsError
			case r.Reason == reasonToolCalls:
				ins, kind = insertToolCalls, MissingToolCalls
			default:
				return p, false
			}
			// After the last member: the last byte before the closing
			// brace that is not whitespace.
			j := len(work) - 2
			for j >= 0 && isWS(work[j]) {
				j--
			}
			if j <= 0 || work[j] == '{' {
				return p, false
			}
			o, ok := toOriginal(es, j+1)
			if !ok {
				return p, false
			}
			work = slices.Concat(work[:j+1], []byte(ins), work[j+1:])
			es = insertEdit(es, Edit{Start: o, End: o, New: ins})
			p.kinds = append(p.kinds, kind)
			added = true
		default:
			return p, false
		}
	}
}

// escapeControls returns the edits that write each raw control character
// (below U+0020) inside a string of b as JSON.stringify escapes it.
func escapeControls(b []byte) []Edit {
	var es []Edit
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inStr:
			inStr = c == '"'
		case c == '\\':
			i++
		case c == '"':
			inStr = false
		case c < 0x20:
			es = append(es, Edit{Start: i, End: i + 1, New: controlEscape(c)})
		}
	}
	return es
}

func controlEscape(c byte) string {
	switch c {
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	const hx = "0123456789abcdef"
	return `\u00` + string([]byte{hx[c>>4], hx[c&15]})
}

// toOriginal maps offset w of the working copy (the piece with edits es
// applied) back to the original piece. It fails for an offset inside a
// replacement's new text.
func toOriginal(es []Edit, w int) (int, bool) {
	delta := 0 // working offset minus original offset, so far
	for _, e := range es {
		ws := e.Start + delta
		if w < ws {
			break
		}
		if w < ws+len(e.New) {
			return 0, false
		}
		delta += len(e.New) - (e.End - e.Start)
	}
	return w - delta, true
}

// insertEdit adds e to the sorted edits es, after those that start at or
// before it.
func insertEdit(es []Edit, e Edit) []Edit {
	i := len(es)
	for i > 0 && es[i-1].Start > e.Start {
		i--
	}
	return slices.Insert(es, i, e)
}

// normalize sorts edits and merges those that touch, so that a repair is a
// list of disjoint replacements (a truncated part deleted next to a line
// break inserted is one edit).
func normalize(es []Edit) []Edit {
	slices.SortStableFunc(es, func(a, b Edit) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return a.End - b.End
	})
	out := es[:0]
	for _, e := range es {
		if k := len(out) - 1; k >= 0 && e.Start <= out[k].End {
			out[k].End = max(out[k].End, e.End)
			out[k].New += e.New
			continue
		}
		out = append(out, e)
	}
	return out
}

// applyEdits returns b with sorted, disjoint edits applied.
func applyEdits(b []byte, es []Edit) []byte {
	out := make([]byte, 0, len(b)+64)
	prev := 0
	for _, e := range es {
		out = append(out, b[prev:e.Start]...)
		out = append(out, e.New...)
		prev = e.End
	}
	return append(out, b[prev:]...)
}

// zeroFilled reports whether l holds a run of NULs that marks lost data
// (analysis.ZeroRuns).
func zeroFilled(l []byte) bool {
	found := false
	analysis.ZeroRuns(l, func(_, _ int) bool { found = true; return false })
	return found
}

// zeroRepair deletes the runs of NULs of l that mark lost data, with the
// partial records they cut, and keeps every complete record: those from
// the line's start up to the first record a run cuts, and after each run
// the complete records that run to the next run or the line's end (what
// precedes them after the run is the tail of a record whose head was
// lost). Each kept record is repaired as a record of a line would be.
func zeroRepair(l []byte, parse parseFunc) (LineFix, bool) {
	type span struct{ s, e int }
	var runs []span
	analysis.ZeroRuns(l, func(s, e int) bool { runs = append(runs, span{s, e}); return true })
	var kept []piece
	budget := searchFactor*len(l) + searchBase
	from := 0
	for i := 0; i <= len(runs); i++ {
		to := len(l)
		if i < len(runs) {
			to = runs[i].s
		}
		seg := l[:to] // the records of the segment l[from:to], offsets into l
		if i == 0 {
			// From the line's start: complete records while they last.
			pos := skipWS(seg, from)
			for pos < to && seg[pos] == '{' {
				end := scanObject(seg, pos, &budget)
				if end < 0 {
					break
				}
				p, ok := repairPiece(seg, pos, end, parse)
				if !ok {
					break
				}
				kept = append(kept, p)
				pos = skipWS(seg, end)
			}
		} else {
			// After lost data: the first place from which the rest of
			// the segment is complete records.
			for k := from; k < to; k++ {
				j := bytes.Index(seg[k:], []byte(`{"`))
				if j < 0 || budget <= 0 {
					break
				}
				k += j
				if ps, ok := completeRecords(seg, k, &budget, parse); ok {
					kept = append(kept, ps...)
					break
				}
			}
		}
		if i < len(runs) {
			from = runs[i].e
		}
	}
	lf := LineFix{Kinds: []Kind{ZeroFilled}}
	keptBytes := 0
	for _, p := range kept {
		keptBytes += p.end - p.start
		lf.Kinds = append(lf.Kinds, p.kinds...)
		lf.commas += p.commas
		lf.controls += p.controls
	}
	lf.Lost = Loss{int64(len(l) - keptBytes), len(runs)}
	if len(kept) == 0 {
		lf.DeleteLine = true
		return lf, true
	}
	// The line becomes the kept records, one a line, each byte for byte
	// but for its own repairs.
	var out []byte
	for k, p := range kept {
		if k > 0 {
			out = append(out, '\n')
		}
		es := make([]Edit, len(p.edits))
		for i, e := range p.edits {
			es[i] = Edit{Start: e.Start - p.start, End: e.End - p.start, New: e.New}
		}
		out = append(out, applyEdits(l[p.start:p.end], es)...)
	}
	lf.records = len(kept)
	lf.Edits = []Edit{{Start: 0, End: len(l), New: string(out)}}
	return lf, true
}

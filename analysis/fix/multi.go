package fix

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// Repairs that span lines: a record split over lines by raw line breaks in
// a string, and records whose pieces interleaved with other appends. Both
// need the file, not one line.

// fileLine is one physical line of the file: data[start:end], nl when a
// '\n' ends it.
type fileLine struct {
	ln         int
	start, end int
	nl         bool
}

func (l fileLine) bytes(data []byte) []byte { return data[l.start:l.end] }

// withBreak is the end of the line with its '\n'.
func (l fileLine) withBreak() int {
	if l.nl {
		return l.end + 1
	}
	return l.end
}

// Bounds on the repairs across lines.
const (
	// maxSplitLines is how many lines one record split by raw line breaks
	// may span.
	maxSplitLines = 64
	// maxStates bounds the ways of pairing interleaved pieces kept at once;
	// past it the pieces are too tangled to decide and get no fix.
	maxStates = 64
	// maxCandidates is how many ways of an ambiguous pairing are offered.
	maxCandidates = 4
)

// Ambiguity is a run of lines whose pieces can be rejoined in more than one
// way that makes every record valid: sessionls does not guess. Each
// candidate is an unsafe fix a person may choose; none is applied by
// FixAll.
type Ambiguity struct {
	Line, EndLine int // the lines whose pieces are in question (1-based, inclusive)
	// Candidates are some of the ways (at most maxCandidates), each a fix
	// of the lines Line to EndLine.
	Candidates []Fix
	// Ways counts the ways found (at least len(Candidates); it stops
	// counting at a bound, and More says so).
	Ways int
	More bool
	// Questioned are the lines of the run (in order) that the runtime
	// accepts and one of Candidates takes apart (rewrites or deletes): a
	// line of several writes that parses may be the head of one record
	// and the tail of another (a splice), so it is no record to trust
	// until a way is chosen.
	Questioned []int
}

// Message says what the ambiguity is, for a finding or a summary line.
func (a Ambiguity) Message() string {
	ways := waysText(a.Ways)
	if a.More && a.Ways < 1<<20 {
		ways = "at least " + ways
	}
	where := "line " + strconv.Itoa(a.Line)
	if a.EndLine > a.Line {
		where = "lines " + strconv.Itoa(a.Line) + "–" + strconv.Itoa(a.EndLine)
	}
	msg := "ambiguous: the interleaved pieces on " + where + " pair into valid records in " + ways +
		" ways; sessionls does not guess and fixes none of them (each way is an unsafe candidate fix)"
	switch q := a.Questioned; len(q) {
	case 0:
	case 1:
		msg += "; line " + strconv.Itoa(q[0]) + " parses, but a candidate takes it apart: it may be the head of one record and the tail of another"
	default:
		ns := make([]string, len(q))
		for i, n := range q {
			ns[i] = strconv.Itoa(n)
		}
		msg += "; lines " + strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1] +
			" parse, but candidates take them apart: each may be the head of one record and the tail of another"
	}
	return msg
}

// questioned returns the lines of ls (a run's lines) that the runtime
// accepts (accepted) and one of a's candidates edits: Ambiguity.Questioned.
// A candidate edits a line from its first byte (lineEdits), rewriting or
// deleting it.
func questioned(a Ambiguity, ls []fileLine, accepted func(ln int) bool) []int {
	edited := map[int]bool{}
	for _, c := range a.Candidates {
		for _, e := range c.Edits {
			edited[e.Start] = true
		}
	}
	var out []int
	for _, l := range ls {
		if l.ln >= a.Line && l.ln <= a.EndLine && edited[l.start] && accepted(l.ln) {
			out = append(out, l.ln)
		}
	}
	return out
}

// joinSplit joins head, a line that begins a record and ends inside a
// string, with the lines after it (more(k) is the k-th, k from 1, and false
// when there is none or it may not be joined: a line the runtime accepts),
// writing each line break as the escape \n and any raw control character as
// JSON.stringify escapes it, up to the first line at which the text is
// exactly one valid record. It returns that text, the number of lines
// joined after head, and how many control characters it escaped.
func joinSplit(head []byte, more func(k int) ([]byte, bool), parse parseFunc) (work []byte, k, controls int, ok bool) {
	if zeroFilled(head) {
		return nil, 0, 0, false
	}
	if s := skipWS(head, 0); s >= len(head) || head[s] != '{' {
		return nil, 0, 0, false
	}
	if r := line.Parse(head); r.Verdict != line.InvalidJSON || !strings.Contains(r.Reason, "unterminated string") {
		return nil, 0, 0, false // not cut inside a string
	}
	joined := slices.Clone(head)
	for k = 1; k <= maxSplitLines; k++ {
		l, ok := more(k)
		if !ok || zeroFilled(l) {
			break
		}
		joined = append(joined, `\n`...)
		joined = append(joined, l...)
		if len(l) == 0 {
			continue // an exactly empty line: a raw "\n\n"
		}
		es := escapeControls(joined)
		work = applyEdits(joined, es)
		r := parse(work)
		if r.Verdict == line.Valid {
			return work, k, len(es), true
		}
		if r.Verdict != line.InvalidJSON || !strings.HasPrefix(r.Reason, reasonEndOfLine) {
			break
		}
	}
	return nil, 0, 0, false
}

// splitFix is the fix replacing the lines from firstLine (at file offset
// lineStart) over k more lines, size bytes without the last '\n', with
// the joined record work.
func splitFix(firstLine, k, lineStart, size int, work []byte, controls int) Fix {
	f := Fix{
		Line: firstLine, EndLine: firstLine + k, Kinds: []Kind{SplitRecord}, Safety: Safe,
		LineStart: lineStart,
		Edits:     []Edit{{Start: lineStart, End: lineStart + size, New: string(work)}},
	}
	if controls > 0 {
		f.Kinds = append(f.Kinds, ControlCharacter)
	}
	f.Title = title(f.Kinds, 0, controls, 1)
	return f
}

// splitRecord returns the fix joining the line hd with the lines after it
// into one record (see joinSplit), and the number of its last line. Only
// lines the runtime refuses (refused) or skips (exactly empty) are joined.
func splitRecord(data []byte, hd fileLine, refused func(ln int) bool, parse parseFunc) (Fix, int, bool) {
	if !hd.nl {
		return Fix{}, 0, false
	}
	ends := []int{hd.end}
	work, k, controls, ok := joinSplit(hd.bytes(data), func(k int) ([]byte, bool) {
		start := ends[k-1] + 1
		if start > len(data) || (k > 1 && ends[k-1] == len(data)) {
			return nil, false
		}
		end := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end = start + i
		}
		l := data[start:end]
		if len(l) > 0 && !refused(hd.ln+k) {
			return nil, false
		}
		ends = append(ends, end)
		return l, true
	}, parse)
	if !ok {
		return Fix{}, 0, false
	}
	return splitFix(hd.ln, k, hd.start, ends[k]-hd.start, work, controls), hd.ln + k, true
}

// SplitFix is the fix of a record split over lines by raw line breaks,
// for a reader that holds only some lines (check's streamed fixes): lines
// are consecutive physical lines (without their '\n'), the first one
// firstLine at file offset lineStart, each after the first either exactly
// empty or refused by the runtime. It joins lines[0] with the fewest that
// follow into one valid record (see joinSplit), or returns false. The fix
// owns lines firstLine to Fix.EndLine.
func SplitFix(lines [][]byte, firstLine, lineStart int) (Fix, bool) {
	if len(lines) < 2 {
		return Fix{}, false
	}
	work, k, controls, ok := joinSplit(lines[0], func(k int) ([]byte, bool) {
		if k >= len(lines) {
			return nil, false
		}
		return lines[k], true
	}, line.Parse)
	if !ok {
		return Fix{}, false
	}
	size := k // the '\n's between the lines
	for _, l := range lines[:k+1] {
		size += len(l)
	}
	return splitFix(firstLine, k, lineStart, size, work, controls), true
}

// chunk is one write of node's appendFile as it lies in a line: lines are
// cut every ChunkSize bytes from their start, and the last piece of a line
// (which ends with the line break) is the last write of a record.
type chunk struct {
	line  int // index into the lines being solved
	start int // data[start:end]
	end   int
	final bool // the last piece of its line, which a '\n' ends: the last write of a record
	end0  bool // the last piece of its line (final, or the file's end)
	head  bool // it begins a record ('{"')
}

// interleaved reports whether a refused line takes part in the rejoining
// of interleaved pieces: it begins with a record and another record begins
// at one of its 524,288-byte boundaries, or it begins in the middle of one
// (after such a line).
func interleavedHead(l []byte) bool {
	if len(l) <= analysis.ChunkSize || l[0] != '{' {
		return false
	}
	for k := analysis.ChunkSize; k+1 < len(l); k += analysis.ChunkSize {
		if l[k] == '{' && l[k+1] == '"' {
			return true
		}
	}
	return false
}

func continuation(l []byte) bool {
	s := skipWS(l, 0)
	return s < len(l) && l[s] != '{' && !bytes.HasPrefix(l[s:], bom) && !zeroFilled(l)
}

// action is one step of a way of pairing pieces: a record closed on a line
// (its chunks), or chunks dropped.
type action struct {
	close   []int32 // the chunks of a record, the last one final
	dropped []int32
}

// hist is a way of pairing, as a list of actions, newest first (shared
// between the ways that branch from it).
type hist struct {
	prev *hist
	act  action
}

// solveState is a set of ways of pairing the pieces so far that leave the
// same records open, having lost the same bytes.
type solveState struct {
	open  [][]int32
	lost  int64
	hists []*hist // some of the ways (at most maxCandidates)
	ways  int     // how many ways (saturating)
}

func (s *solveState) key() string {
	var b []byte
	b = binary.AppendVarint(b, s.lost)
	for _, o := range s.open {
		b = binary.AppendUvarint(b, uint64(len(o)))
		for _, c := range o {
			b = binary.AppendUvarint(b, uint64(c))
		}
	}
	return string(b)
}

// solver pairs the pieces of interleaved appends.
type solver struct {
	data   []byte
	chunks []chunk
	parse  parseFunc               // what a valid record is
	memo   map[string]line.Verdict // a record's chunks → valid, a valid prefix (InvalidJSON), or neither (InvalidRecord)
	budget int                     // bytes left to parse
}

const (
	verdictValid  = line.Valid
	verdictPrefix = line.InvalidJSON
	verdictNone   = line.InvalidRecord
)

// judge says whether the record made of chunks cs is valid, a valid prefix
// of a record (cut short), or neither.
func (s *solver) judge(cs []int32) line.Verdict {
	var kb []byte
	for _, c := range cs {
		kb = binary.AppendUvarint(kb, uint64(c))
	}
	k := string(kb)
	if v, ok := s.memo[k]; ok {
		return v
	}
	var b []byte
	for _, c := range cs {
		b = append(b, s.data[s.chunks[c].start:s.chunks[c].end]...)
	}
	s.budget -= len(b)
	v := verdictNone
	// A writer wrote valid UTF-8 (JSON.stringify's text, encoded): pieces
	// that split a character must pair so that it is whole again. The
	// parser would read a broken sequence as U+FFFD, so this is checked
	// here.
	if len(b) > 0 && b[0] == '{' && utf8Prefix(b) {
		r := s.parse(b)
		switch {
		case r.Verdict == line.Valid && utf8.Valid(b):
			v = verdictValid
		case r.Verdict == line.InvalidJSON && strings.HasPrefix(r.Reason, reasonEndOfLine):
			v = verdictPrefix
		}
	}
	s.memo[k] = v
	return v
}

// utf8Prefix reports whether b is valid UTF-8 or valid UTF-8 followed by
// the start of a character that the next piece may complete.
func utf8Prefix(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return false
		}
		if c >= 0xC0 {
			return !utf8.FullRune(b[len(b)-k:]) && utf8.Valid(b[:len(b)-k])
		}
	}
	return false
}

// solveInterleaved pairs the chunks of the lines ls (refused lines taking
// part, in order) and returns, for each independent run of them, the fix
// or the ambiguity. It gives up (returns what it decided so far) when the
// ways multiply past maxStates or the parsing budget runs out.
func solveInterleaved(data []byte, ls []fileLine, parse parseFunc) (fixes []Fix, ambs []Ambiguity, lossy [][]lineEdit) {
	fixes, ambs, lossy, _ = solveCounting(data, ls, parse)
	return fixes, ambs, lossy
}

// solveCounting is solveInterleaved that also says how many bytes it
// parsed (its work).
func solveCounting(data []byte, ls []fileLine, parse parseFunc) (fixes []Fix, ambs []Ambiguity, lossy [][]lineEdit, parsed int) {
	s := &solver{data: data, memo: map[string]line.Verdict{}, parse: parse}
	total := 0
	for i, l := range ls {
		n := l.end - l.start
		total += n
		m := n / analysis.ChunkSize
		for k := 0; k <= m; k++ {
			// Without a '\n' the file ended inside the line: its last
			// piece ends no record.
			c := chunk{line: i, start: l.start + k*analysis.ChunkSize, end: min(l.start+(k+1)*analysis.ChunkSize, l.end), final: k == m && l.nl, end0: k == m}
			c.head = c.end-c.start >= 2 && data[c.start] == '{' && data[c.start+1] == '"'
			s.chunks = append(s.chunks, c)
		}
	}
	s.budget = 16*total + 64<<20
	defer func() { parsed = 16*total + 64<<20 - s.budget }()
	states := []*solveState{{ways: 1, hists: []*hist{nil}}}
	groupFirst := 0
	for ci := 0; ci < len(s.chunks); ci++ {
		c := s.chunks[ci]
		next := map[string]*solveState{}
		var order []string
		add := func(from *solveState, open [][]int32, lost int64, act action) {
			ns := &solveState{open: open, lost: lost}
			k := ns.key()
			if e, ok := next[k]; ok {
				ns = e
			} else {
				next[k] = ns
				order = append(order, k)
			}
			ns.ways = min(ns.ways+from.ways, 1<<20)
			for _, h := range from.hists {
				if len(ns.hists) < maxCandidates {
					ns.hists = append(ns.hists, &hist{prev: h, act: act})
				}
			}
		}
		for _, st := range states {
			moved := false
			try := func(rec []int32, j int) {
				v := s.judge(rec)
				open := slices.Clone(st.open)
				switch {
				case c.final && v == verdictValid:
					if j >= 0 {
						open = slices.Delete(open, j, j+1)
					}
					add(st, open, st.lost, action{close: rec})
					moved = true
				case !c.final && v == verdictPrefix:
					if j >= 0 {
						open[j] = rec
					} else {
						open = append(open, rec)
					}
					add(st, open, st.lost, action{})
					moved = true
				}
			}
			if c.head {
				try([]int32{int32(ci)}, -1)
			}
			for j, o := range st.open {
				try(append(slices.Clone(o), int32(ci)), j)
			}
			if !moved {
				// Nothing can take this piece: the tail of a record whose
				// head is not here, or a head that is no record.
				add(st, slices.Clone(st.open), st.lost+int64(c.end-c.start), action{dropped: []int32{int32(ci)}})
			}
		}
		states = states[:0]
		for _, k := range order {
			states = append(states, next[k])
		}
		if len(states) > maxStates || s.budget < 0 {
			return fixes, ambs, lossy, 0 // too tangled to decide
		}
		if !c.end0 {
			continue
		}
		// At the end of a line: when no way leaves a record open, the
		// lines so far are decided independently of the rest.
		last := ci == len(s.chunks)-1
		closed := true
		for _, st := range states {
			if len(st.open) > 0 {
				closed = false
			}
		}
		if !closed && !last {
			continue
		}
		if last && !closed {
			// Heads whose rest is not in the file are lost.
			for _, st := range states {
				for _, o := range st.open {
					for _, c := range o {
						st.lost += int64(s.chunks[c].end - s.chunks[c].start)
					}
					for k, h := range st.hists {
						st.hists[k] = &hist{prev: h, act: action{dropped: o}}
					}
				}
				st.open = nil
			}
		}
		f, a, les, ok := s.decide(ls, groupFirst, c.line, states)
		switch {
		case !ok:
		case a != nil:
			ambs = append(ambs, *a)
		case les != nil:
			lossy = append(lossy, les)
		default:
			fixes = append(fixes, f)
		}
		groupFirst = c.line + 1
		states = []*solveState{{ways: 1, hists: []*hist{nil}}}
	}
	return fixes, ambs, lossy, 0
}

// decide turns the ways of pairing the lines ls[first..last] into a fix
// (one way, or the only way that loses nothing) or an ambiguity.
func (s *solver) decide(ls []fileLine, first, last int, states []*solveState) (Fix, *Ambiguity, []lineEdit, bool) {
	// Ways that lose nothing are the valid pairings; only when there are
	// none are the lossy ways candidates.
	var pick []*solveState
	for _, st := range states {
		if st.lost == 0 {
			pick = append(pick, st)
		}
	}
	if len(pick) == 0 {
		pick = states
	}
	ways := 0
	var hs []*hist
	for _, st := range pick {
		ways += st.ways
		for _, h := range st.hists {
			if len(hs) < maxCandidates {
				hs = append(hs, h)
			}
		}
	}
	if ways == 0 || len(hs) == 0 {
		return Fix{}, nil, nil, false
	}
	if ways == 1 {
		if pick[0].lost > 0 {
			// One way, but it loses pieces: the lines' own repairs may
			// keep more (a record after a partial write that is not on a
			// write boundary); the caller decides line by line.
			return Fix{}, nil, s.lineEdits(ls, first, last, hs[0]), true
		}
		f := s.fixOf(ls, first, last, hs[0])
		if len(f.Edits) == 0 {
			return Fix{}, nil, nil, false
		}
		return f, nil, nil, true
	}
	a := &Ambiguity{Line: ls[first].ln, EndLine: ls[last].ln, Ways: ways, More: ways > len(hs) || ways >= 1<<20}
	for i, h := range hs {
		f := s.fixOf(ls, first, last, h)
		f.Safety = Unsafe
		f.Title = s.candidateTitle(ls, first, last, h, i+1, ways, f.Lost)
		a.Candidates = append(a.Candidates, f)
	}
	return Fix{}, a, nil, true
}

func waysText(n int) string {
	if n >= 1<<20 {
		return "many"
	}
	return strconv.Itoa(n)
}

// lineEdit is what a way of pairing does to one line: its edit (none when
// the line stays as it is) and what it deletes.
type lineEdit struct {
	ln   int
	edit *Edit
	lost Loss
}

// lineEdits is, line by line, what the way h does to the lines
// ls[first..last]: each line becomes the record whose last piece ends it
// (or is deleted when no record ends there); pieces dropped count as lost
// on the line they were on.
func (s *solver) lineEdits(ls []fileLine, first, last int, h *hist) []lineEdit {
	recOf := map[int][]int32{} // line index → chunks of the record closed there
	lost := map[int]Loss{}
	for ; h != nil; h = h.prev {
		if h.act.close != nil {
			recOf[s.chunks[h.act.close[len(h.act.close)-1]].line] = h.act.close
		}
		if len(h.act.dropped) > 0 {
			at := s.chunks[h.act.dropped[0]].line
			l := lost[at]
			l.Records++
			for _, c := range h.act.dropped {
				l.Bytes += int64(s.chunks[c].end - s.chunks[c].start)
			}
			lost[at] = l
		}
	}
	var out []lineEdit
	for i := first; i <= last; i++ {
		l := ls[i]
		le := lineEdit{ln: l.ln, lost: lost[i]}
		rec, ok := recOf[i]
		if !ok {
			le.edit = &Edit{Start: l.start, End: l.withBreak()}
		} else {
			var b []byte
			for _, c := range rec {
				b = append(b, s.data[s.chunks[c].start:s.chunks[c].end]...)
			}
			if !bytes.Equal(b, l.bytes(s.data)) {
				le.edit = &Edit{Start: l.start, End: l.end, New: string(b)}
			}
		}
		out = append(out, le)
	}
	return out
}

// fixOfLines makes the fix of some lines' edits (those with one).
func fixOfLines(ls []lineEdit, lineStart func(ln int) int) Fix {
	var f Fix
	for _, le := range ls {
		if le.edit == nil {
			continue
		}
		if len(f.Edits) == 0 {
			f.Line, f.LineStart = le.ln, lineStart(le.ln)
		}
		f.EndLine = le.ln
		f.Edits = append(f.Edits, *le.edit)
		f.Lost = f.Lost.Add(le.lost)
	}
	f.Kinds = []Kind{Rejoin}
	if f.Lost.Bytes > 0 {
		f.Kinds = append(f.Kinds, DropFragment)
	}
	f.Safety = Safe
	for _, k := range f.Kinds {
		if k.Safety() == Unsafe {
			f.Safety = Unsafe
		}
	}
	f.Title = title(f.Kinds, 0, 0, 0)
	return f
}

// fixOf is the fix that rewrites the lines ls[first..last] as the way h
// pairs their pieces.
func (s *solver) fixOf(ls []fileLine, first, last int, h *hist) Fix {
	starts := map[int]int{}
	for _, l := range ls[first : last+1] {
		starts[l.ln] = l.start
	}
	return fixOfLines(s.lineEdits(ls, first, last, h), func(ln int) int { return starts[ln] })
}

package analysis

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// The causes of a refused line. The runtime refuses a line for what
// JSON.parse or the record rules say; a session file written by the
// runtime's own appendFile gets refused lines only from damage, and the
// damage leaves marks that name its cause (docs/semantics.md, "Damage").

// ChunkSize is node's kWriteFileMaxChunkSize: fs.promises.appendFile writes
// a string longer than this as successive write() calls of exactly this
// many bytes (the last one shorter), each landing whole under O_APPEND, so
// two writers' appends interleave only at these boundaries.
const ChunkSize = 524288

// MinZeroRun is the shortest run of NUL bytes taken for lost data when it
// neither ends its line nor is followed by '{': no writer of text emits
// eight NULs in a row, and a file system loses data in blocks. A run that
// ends the line (a crash tail), or after which a record begins (a crash
// tail the restarted writer appended after), counts whatever its length.
const MinZeroRun = 8

// ZeroRuns calls fn for each run of NUL bytes in l that marks lost data
// (see MinZeroRun), with its offsets l[start:end]; fn returns false to stop.
func ZeroRuns(l []byte, fn func(start, end int) bool) {
	for i := 0; i < len(l); {
		j := bytes.IndexByte(l[i:], 0)
		if j < 0 {
			return
		}
		s := i + j
		e := s
		for e < len(l) && l[e] == 0 {
			e++
		}
		if e-s >= MinZeroRun || e == len(l) || l[e] == '{' {
			if !fn(s, e) {
				return
			}
		}
		i = e
	}
}

// damage is what a refused line's bytes say about its cause, found once
// when the line is parsed (only refused lines pay for it). Offsets are
// clamped to 32 bits, like spans.
type damage struct {
	zeros, zeroAt int32 // NUL bytes of lost data, and the first run's offset
	// headAt is the first offset k·ChunkSize (k ≥ 1) where a record begins
	// ('{"') on a line that itself begins with a record: another append
	// landed there, between two writes of the one before it.
	headAt int32
	// nextAt is where the next append begins on a line whose record is cut
	// short before it (0: none found).
	nextAt int32
	starts bool // the line begins (after whitespace) with '{': a record's first byte
	long   bool // the line is longer than one write (ChunkSize bytes)
	blank  bool // the line holds only whitespace
	open   bool // JSON.parse fails only because the line ends: a record cut short
	inStr  bool // … inside a string
}

// damageFlags is what the causer reads of a line's damage (causer.next):
// a refused line that is only counted keeps these eight bits, and the
// offsets its message would name are found again for the lines reported.
type damageFlags uint8

const (
	dfZeros damageFlags = 1 << iota
	dfHead
	dfNext
	dfStarts
	dfLong
	dfBlank
	dfOpen
	dfInStr
)

func (d *damage) flags() damageFlags {
	var f damageFlags
	set := func(b bool, bit damageFlags) {
		if b {
			f |= bit
		}
	}
	set(d.zeros > 0, dfZeros)
	set(d.headAt > 0, dfHead)
	set(d.nextAt > 0, dfNext)
	set(d.starts, dfStarts)
	set(d.long, dfLong)
	set(d.blank, dfBlank)
	set(d.open, dfOpen)
	set(d.inStr, dfInStr)
	return f
}

// damage is a damage the causer decides alike: its offsets are stand-ins
// (1), to be found again if the line is reported.
func (f damageFlags) damage() damage {
	one := func(bit damageFlags) int32 {
		if f&bit != 0 {
			return 1
		}
		return 0
	}
	return damage{
		zeros: one(dfZeros), headAt: one(dfHead), nextAt: one(dfNext),
		starts: f&dfStarts != 0, long: f&dfLong != 0, blank: f&dfBlank != 0, open: f&dfOpen != 0, inStr: f&dfInStr != 0,
	}
}

// damageScan finds a line's damage from its bytes fed in order, so that a
// line the stream does not hold is classified as one it holds.
type damageScan struct {
	d        damage
	n        int  // bytes fed
	first    int  // offset of the first byte that is not whitespace; -1 before it
	run      int  // length of the run of NULs that ends at n
	wantQuot bool // the byte at n must be '"' for a head at n-1
}

func newDamageScan() damageScan { return damageScan{first: -1} }

func (s *damageScan) feed(p []byte) {
	if s.first < 0 {
		if i := skipSpace(p, 0); i < len(p) {
			s.first = s.n + i
			s.d.starts = p[i] == '{'
		}
	}
	for i := 0; i < len(p); {
		if p[i] != 0 {
			if s.run > 0 {
				s.endRun(s.n+i, p[i] == '{')
			}
			j := bytes.IndexByte(p[i:], 0)
			if j < 0 {
				break
			}
			i += j
			continue
		}
		e := i
		for e < len(p) && p[e] == 0 {
			e++
		}
		s.run += e - i
		i = e
	}
	if s.d.starts && s.d.headAt == 0 {
		if s.wantQuot && len(p) > 0 {
			s.wantQuot = false
			if p[0] == '"' {
				s.d.headAt = clamp32(s.n - 1)
			}
		}
		k := max(ChunkSize, (s.n+ChunkSize-1)/ChunkSize*ChunkSize)
		for ; s.d.headAt == 0 && k < s.n+len(p); k += ChunkSize {
			o := k - s.n
			if p[o] != '{' {
				continue
			}
			if o+1 < len(p) {
				if p[o+1] == '"' {
					s.d.headAt = clamp32(k)
				}
			} else {
				s.wantQuot = true
			}
		}
	}
	s.n += len(p)
}

// endRun ends the run of NULs before offset end: lost data when long
// enough (or, at the end of the line, whatever its length).
func (s *damageScan) endRun(end int, tail bool) {
	if s.run >= MinZeroRun || tail {
		if s.d.zeros == 0 {
			s.d.zeroAt = clamp32(end - s.run)
		}
		s.d.zeros = clamp32(int(s.d.zeros) + s.run)
	}
	s.run = 0
}

// finish returns the damage of the line fed, whose verdict is r; prefix
// holds the line's first bytes (all of them, or as many as the stream held:
// r's error lies within them).
func (s *damageScan) finish(r *line.Result, prefix []byte) damage {
	if r.Verdict != line.InvalidJSON {
		return damage{} // a text JSON.parse accepts is no damaged append
	}
	// A run that ends the line is a crash tail, whatever its length.
	if s.run > 0 {
		s.endRun(s.n, true)
	}
	d := s.d
	d.long = s.n > ChunkSize
	d.blank = s.first < 0
	if d.zeros > 0 {
		return damage{zeros: d.zeros, zeroAt: d.zeroAt, long: d.long}
	}
	if strings.HasPrefix(r.Reason, "unexpected end of line") {
		d.open = true
		d.inStr = strings.Contains(r.Reason, "unterminated string")
	}
	if !d.starts || d.headAt > 0 || d.open || r.Span.Start <= s.first || r.Span.Start > len(prefix) {
		return d
	}
	// A record cut short and the next append on the same line: the error
	// is at or just after the next record's '{"', and what precedes it is
	// a record cut short.
	end := min(r.Span.Start+2, len(prefix))
	q := bytes.LastIndex(prefix[s.first+1:end], []byte(`{"`))
	if q < 0 {
		return d
	}
	q += s.first + 1
	if r.Span.Start > q+2 {
		return d // the error is not where the next record begins
	}
	head := line.Parse(bytes.TrimRight(prefix[s.first:q], " \t\r"))
	if head.Verdict == line.InvalidJSON && strings.HasPrefix(head.Reason, "unexpected end of line") {
		d.nextAt = clamp32(q)
	}
	return d
}

// classify reads the cause of a refused line from its bytes and verdict.
func classify(l []byte, r *line.Result) damage {
	if r.Verdict != line.InvalidJSON {
		return damage{}
	}
	s := newDamageScan()
	s.feed(l)
	return s.finish(r, l)
}

func skipSpace(l []byte, i int) int {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r') {
		i++
	}
	return i
}

// Codes of the causes (besides invalid-json and invalid-record, the
// runtime's own words for a refused line whose cause is none of these).
const (
	CodeTruncatedRecord   = "truncated-record"   // an append cut short
	CodeInterleavedRecord = "interleaved-record" // pieces of concurrent appends on one line
	CodeZeroFilled        = "zero-filled"        // NUL bytes where the file system lost data
	CodeSplitRecord       = "split-record"       // a record split by raw line breaks in a string
)

// IsRefusal reports whether code is one the runtime refuses the file for:
// invalid-json, invalid-record, or one of the causes of damage that make a
// line invalid.
func IsRefusal(code string) bool {
	switch code {
	case CodeInvalidJSON, CodeInvalidRecord, CodeTruncatedRecord, CodeInterleavedRecord, CodeZeroFilled, CodeSplitRecord:
		return true
	}
	return false
}

// causer names the causes of refused lines taken in line order, each once
// the refused lines just before and after it are known.
type causer struct {
	lastHead  int // the latest refused line that begins a record cut short or interleaved
	splitFrom int // the line a record split by raw line breaks began on (while continuing)
}

// decide names v's cause (its code, and the line its message refers to);
// prev and next are the refused lines just before and after it, exactly
// empty lines between them aside (the runtime skips those; a raw "\n\n" in
// a string makes one), or nil. The message's clause is made only for the
// lines reported (invalidLine.why).
func (c *causer) decide(v, prev, next *invalidLine) {
	v.decided = true
	v.cause, v.ref, *c = c.next(v, prev, next)
}

// peek is the code decide would give v with no refused line after it, and
// whether a refused line after it could make it a split-record instead:
// decide depends on the next line for nothing else.
func (c *causer) peek(v, prev *invalidLine) (code string, maySplit bool) {
	cause, _, _ := c.next(v, prev, nil)
	d := &v.damage
	code = cause
	if code == "" {
		code = v.code()
	}
	return code, v.verdict == line.InvalidJSON && d.zeros == 0 && d.starts && d.inStr
}

// next is decide without side effects: v's cause, the line its message
// refers to (the split's or the interleaved record's first line), and the
// causer's state after v.
func (c causer) next(v, prev, next *invalidLine) (cause string, ref int, after causer) {
	if v.verdict != line.InvalidJSON {
		c.splitFrom = 0
		return "", 0, c
	}
	d := &v.damage
	switch {
	case d.zeros > 0:
		cause = CodeZeroFilled
		c.splitFrom = 0
	case d.starts && d.inStr && next != nil && !next.damage.starts && !next.damage.blank && next.damage.zeros == 0:
		cause = CodeSplitRecord
		c.splitFrom = v.line
	case !d.starts && !d.blank && c.splitFrom > 0 && prev != nil && (prev.cause == CodeSplitRecord):
		cause, ref = CodeSplitRecord, c.splitFrom
	case d.starts && d.headAt > 0:
		cause = CodeInterleavedRecord
		c.lastHead = v.line
		c.splitFrom = 0
	case !d.starts && !d.blank && c.lastHead > 0:
		// The rest of a record longer than one write whose first
		// piece is on a line before.
		cause, ref = CodeInterleavedRecord, c.lastHead
		c.splitFrom = 0
	case d.starts && (d.open || d.nextAt > 0):
		cause = CodeTruncatedRecord
		if d.long {
			c.lastHead = v.line
		}
		c.splitFrom = 0
	default:
		c.splitFrom = 0
	}
	return cause, ref, c
}

// why is the clause of v's message that says its cause (decide named
// it): made from its damage only for the lines reported.
func (v *invalidLine) why() string {
	d := &v.damage
	switch v.cause {
	case CodeZeroFilled:
		return fmt.Sprintf("%s NUL bytes from byte %s: the file system lost the data written here (a crash before it reached the disk, such as ext4's delayed allocation, or a zeroed block)",
			textfmt.Thousands(int64(d.zeros)), textfmt.Thousands(int64(d.zeroAt)))
	case CodeSplitRecord:
		if d.starts {
			return "a raw line break inside a string ends this line in the middle of its record (the writer did not escape it); the record continues on the next line"
		}
		return fmt.Sprintf("this line continues the record begun on line %d, split by a raw line break inside a string", v.ref)
	case CodeInterleavedRecord:
		if d.starts {
			return fmt.Sprintf("another append begins at byte %s, a %s-byte boundary inside the record before it: node writes an append of more than 512 KiB as %s-byte writes, and another writer's append landed between two of them",
				textfmt.Thousands(int64(d.headAt)), textfmt.Thousands(ChunkSize), textfmt.Thousands(ChunkSize))
		}
		return fmt.Sprintf("this line begins in the middle of a record, the rest of one begun on an earlier line (likely line %d): concurrent appends interleaved at %s-byte write boundaries", v.ref, textfmt.Thousands(ChunkSize))
	case CodeTruncatedRecord:
		if d.open {
			return "the record is cut short at the end of the line (an append interrupted: the writer was killed or the disk was full); nothing follows it"
		}
		return fmt.Sprintf("the record is cut short at byte %s, where the next append continues on the same line (an append interrupted before its line break: the writer was killed or the disk was full)", textfmt.Thousands(int64(d.nextAt)))
	}
	return ""
}

// causes names the cause of each refused line of inv (in line order) that
// has none decided yet.
func causes(inv []invalidLine) {
	var c causer
	for k := range inv {
		v := &inv[k]
		var prev, next *invalidLine
		if k > 0 && inv[k-1].runtimeLine == v.runtimeLine-1 {
			prev = &inv[k-1]
		}
		if k+1 < len(inv) && inv[k+1].runtimeLine == v.runtimeLine+1 {
			next = &inv[k+1]
		}
		if v.decided {
			continue
		}
		c.decide(v, prev, next)
	}
}

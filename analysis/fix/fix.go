// Package fix computes exact repairs for the findings of a session file:
// byte ranges to replace, confined to the line of their finding (or, for a
// record split over lines or interleaved appends, to the run of lines the
// repair owns, Fix.Line to Fix.EndLine), such that after the repair the
// runtime accepts what the lines became. docs/semantics.md ("Damage") says
// how each damage arises and what each fix keeps and loses.
//
// A session file is an append-only log, so its breakages are few and
// recognisable. This package repairs only those with one right repair:
//
// Safe (no message the runtime would load changes):
//   - a byte order mark before a line's value: removed;
//   - a blank line holding only spaces, tabs and CRs: deleted (an exactly
//     empty line is skipped by the runtime and needs nothing);
//   - joined records, two or more objects on one line (`{…}{…}`,
//     `{…} {…}`): each put on its own line, in order, byte-identical, the
//     whitespace between them replaced by the line break ("\r\n" when the
//     line ends with a CR, "\n" otherwise);
//   - a trailing comma before `}` or `]`: removed;
//   - a raw control character (below U+0020) inside a string, which
//     JSON.parse refuses, from a writer that did not escape it: written as
//     JSON.stringify escapes it (`\t`, `\u0001`), so the string holds what
//     was written. Recorded sessions show it (a raw tab in a tool output).
//     Never a run of NULs that marks lost data (see ZeroFilled below);
//   - a record split over lines by raw line breaks in a string: the lines
//     joined with the escape \n, when that is exactly one valid record;
//   - interleaved appends (node writes a long record as 524,288-byte
//     writes; another writer's can land between them): the pieces
//     rejoined byte for byte when exactly one pairing makes every record
//     valid JSON and valid UTF-8, each record on the line of its last
//     piece. Several valid pairings are an Ambiguity: no fix, candidates.
//
// Unsafe (data is lost or invented; the title says which):
//   - a truncated record (its value runs into the end of the line, the mark
//     of an interrupted append; a final CR is the line end of a CRLF file),
//     alone on its line, after complete records, or before them (the next
//     append continued on the same line, maybe after whitespace): the
//     truncated part is deleted, with the whitespace that separates it;
//   - a tool result without isError: `"isError":false` is added; an
//     assistant without toolCalls: `"toolCalls":[]` is added (after the
//     last member);
//   - an orphan tool result (no earlier assistant declares its id, and no
//     refused line before it holds the id as an "id" member): the line is
//     deleted;
//   - a zero-filled region (NULs where the file system lost data): the NULs
//     and the partial records they cut are deleted, every complete record
//     kept;
//   - interleaved pieces whose record cannot be completed: deleted.
//
// A record kept beside a deleted part is whole from its own first byte:
// one write of node's appendFile (under 524,288 bytes); a longer one could
// be a splice of two records, and only the pairing of pieces keeps it.
// Every fix says what it deletes (Loss).
//
// Several repairs of one line make one fix (a BOM and a trailing comma, or
// joined records of which one lacks isError), which is unsafe when any of
// its parts is. A fix is offered only when every line it leaves is accepted
// by the runtime (package line decides, exactly as node's JSON.parse and the
// record rules do) or is exactly empty; so a line with one repairable and
// one unrepairable fault, or joined records of which one is not a valid
// message (`{…}{}`), gets no fix. Where a line can be read two ways there is
// no single right repair and no fix: the truncated part could end before
// either of two complete records, or the whole line could be one truncated
// record holding a complete one as a value (`{"a":{…}`).
//
// Not repaired, for want of a single right repair: single quotes, NaN,
// leading zeros, bad escapes, comments, trailing text, unknown roles and
// members of the wrong type.
//
// The package is pure Go with no protocol imports: the command line and the
// language server turn its byte ranges into their own terms.
package fix

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// Safety says whether a fix may change what the runtime loads.
type Safety uint8

const (
	// Safe fixes change no message the runtime would load: they only make
	// a refused line acceptable, keeping every byte of its records.
	Safe Safety = iota + 1
	// Unsafe fixes drop or invent data.
	Unsafe
)

func (s Safety) String() string {
	switch s {
	case Safe:
		return "safe"
	case Unsafe:
		return "unsafe"
	}
	return "none"
}

// Kind is one kind of repair: an entry of analysis's fix table
// (analysis.FixKinds), which holds its name, safety, title and the rules
// it repairs. The constants follow the table's order.
type Kind uint8

const (
	BOM Kind = iota + 1
	BlankLine
	JoinedRecords
	TrailingComma
	ControlCharacter
	TruncatedRecord
	MissingIsError
	MissingToolCalls
	OrphanToolResult
	// SplitRecord joins the lines of a record split by raw line breaks in
	// a string, writing each break as the escape \n (safe).
	SplitRecord
	// Rejoin puts the pieces of interleaved appends back together, byte
	// for byte, each record on the line where its last piece was (safe).
	Rejoin
	// DropFragment deletes pieces of a record that cannot be completed: a
	// head whose rest is not in the file, or a tail without its head.
	DropFragment
	// ZeroFilled deletes a run of NULs where the file system lost data,
	// with the partial records it cut.
	ZeroFilled
	// SyntheticResult adds a result for a tool call that never got one
	// (a dialect's fix, issue 21): invented content, so unsafe.
	SyntheticResult
	// Relink makes a record whose parent is lost name the record written
	// before it (a dialect's fix: Claude Code's parentUuid).
	Relink
)

// table is analysis's fix table, where each kind's name, safety, title
// and rules are written: Kind k is table[k-1].
var table = analysis.FixKinds()

// info is the kind's entry in the fix table, and false for no kind.
func (k Kind) info() (analysis.FixKind, bool) {
	if k < 1 || int(k) > len(table) {
		return analysis.FixKind{}, false
	}
	return table[k-1], true
}

func (k Kind) String() string {
	if i, ok := k.info(); ok {
		return i.Name
	}
	return "unknown"
}

// Safety of one kind of repair.
func (k Kind) Safety() Safety {
	if i, ok := k.info(); ok && i.Safe {
		return Safe
	}
	return Unsafe
}

// Edit replaces the bytes [Start, End) with New. Offsets are into the
// file (Fix.Edits) or into one line (LineFix.Edits), as documented there.
type Edit struct {
	Start, End int
	New        string
}

// Loss is what an unsafe fix deletes from the file: bytes, and the records
// (whole or partial) those bytes held, as far as they can be counted (a run
// of NULs counts as one record, though it may have swallowed more).
type Loss struct {
	Bytes   int64
	Records int
}

// Add returns the sum of two losses.
func (l Loss) Add(o Loss) Loss { return Loss{l.Bytes + o.Bytes, l.Records + o.Records} }

// LineFix is the repair of one physical line, in that line's terms.
type LineFix struct {
	// Kinds of the repairs it makes, each once, in the order of Kind.
	Kinds  []Kind
	Safety Safety
	// Title says what the fix does and, for an unsafe fix, what is lost
	// or invented. It starts with a capital letter and has no final stop.
	Title string
	// DeleteLine: the fix deletes the whole line with its line break;
	// Edits is then empty.
	DeleteLine bool
	// Edits are offsets into the line's bytes (without its '\n'), sorted
	// and not touching one another.
	Edits []Edit
	// Lost is what the fix deletes (zero for a safe fix).
	Lost Loss
	// Counts of trailing commas removed, control characters escaped and
	// records the line becomes (for the title).
	commas, controls, records int
}

// Fix is the repair of one finding, in the file's terms.
type Fix struct {
	// Line is the finding's physical line (1-based) and Code its code
	// (a refusal, see analysis.IsRefusal, or orphan-tool-result):
	// together they name the finding, which is one per line and code.
	Line   int
	Code   string
	Kinds  []Kind
	Safety Safety
	Title  string
	// Edits are byte offsets into the file, sorted and not overlapping;
	// all of them lie within the lines Line to EndLine, their line breaks
	// included.
	Edits []Edit
	// LineStart is the offset in the file of the line's first byte.
	LineStart int
	// EndLine is the last line the fix owns: Line for the fix of one line;
	// later for a record split over lines or rejoined from interleaved
	// pieces, whose edits span every line from Line to EndLine.
	EndLine int
	// Lost is what the fix deletes (zero for a safe fix).
	Lost Loss
}

// Position says where file offset off, within the fix's line or just past
// its line break, is in editor terms: a 1-based line and a 0-based column
// in UTF-16 code units of the line as node decodes it (an invalid UTF-8
// sequence is one U+FFFD). l is the line's bytes without its '\n'; for a
// fix of several lines (EndLine > Line), the bytes of its lines, from
// LineStart to the end of EndLine without its '\n'.
func (f Fix) Position(l []byte, off int) (ln, col16 int) {
	o := off - f.LineStart
	switch {
	case o <= 0:
		return f.Line, 0
	case o > len(l):
		return f.Line + bytes.Count(l, []byte{'\n'}) + 1, 0 // past the last line break
	}
	ln, start := f.Line, 0
	if i := bytes.LastIndexByte(l[:o], '\n'); i >= 0 {
		ln += bytes.Count(l[:i+1], []byte{'\n'})
		start = i + 1
	}
	return ln, line.Parse(l[start:o]).Width16
}

// PositionIn is Position given the whole file data the fix was computed on.
func (f Fix) PositionIn(data []byte, off int) (ln, col16 int) {
	ln, start := f.Line, f.LineStart
	off = min(max(off, start), len(data))
	for {
		i := bytes.IndexByte(data[start:off], '\n')
		if i < 0 {
			break
		}
		ln++
		start += i + 1
	}
	return ln, line.Parse(data[start:off]).Width16
}

// titles are the titles of the fixes of one repair of one thing, ready
// (a file can have a fix on every line); "" where the kind always counts.
var titles = func() []string {
	out := make([]string, len(table))
	for i, k := range table {
		if k.Title != "" {
			out[i] = composeTitle([]Kind{Kind(i + 1)}, 1, 1, 1)
		}
	}
	return out
}()

// title words what a fix does.
func title(kinds []Kind, commas, controls, records int) string {
	// The common single repairs without an allocation.
	if len(kinds) == 1 && commas <= 1 && controls <= 1 && kinds[0] >= 1 && int(kinds[0]) <= len(titles) {
		if t := titles[kinds[0]-1]; t != "" {
			return t
		}
	}
	return composeTitle(kinds, commas, controls, records)
}

// composeTitle words any fix from the fix table; title has the common ones
// ready.
func composeTitle(kinds []Kind, commas, controls, records int) string {
	var parts []string
	var lost []string
	for _, k := range kinds {
		i, ok := k.info()
		if !ok {
			continue
		}
		n := 1
		switch k {
		case JoinedRecords:
			n = records
		case TrailingComma:
			n = commas
		case ControlCharacter:
			n = controls
		}
		if i.Counted != "" && (n != 1 || i.Title == "") {
			parts = append(parts, fmt.Sprintf(i.Counted, n))
		} else {
			parts = append(parts, i.Title)
		}
		if i.Lost != "" {
			lost = append(lost, i.Lost)
		}
	}
	s := joinAnd(parts)
	if len(lost) > 0 {
		s += " (" + strings.Join(lost, "; ") + ")"
	}
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

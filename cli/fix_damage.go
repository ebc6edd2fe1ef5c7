package cli

import (
	"bytes"
	"slices"
	"strings"

	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/line"
)

// damageFixes is what a streamed pass over a file (check's fix marks and
// counts) needs beyond each line's own repair to report the fixes --fix
// makes of damage, holding little:
//
//   - an orphan tool result is deleted only when no refused line of the
//     file may declare its id (fix.OrphanHeld): the orphans are decided at
//     the end of the pass, keeping only their toolCallId literals;
//   - a record split over lines by raw line breaks is joined (fix.SplitFix)
//     on its first line, its other lines getting no fix: the lines of a
//     run of refused lines (and the empty lines between) are kept until
//     the run ends, up to maxSplitRun lines and maxFixLine bytes, and the
//     fixes of those past the cap counted then. Which lines join is read
//     from their bytes, as --fix does, whatever code the cap counted them
//     under.
type damageFixes struct {
	m        fileFixes // the listed findings' fixes (nil: none listed)
	regions  bool
	counts   *fixCounts // the fixes of the findings past the cap
	declared map[string]bool
	orphans  []heldOrphan
	cutLits  map[string]int // toolCallId literal → orphans past the cap with a fix
	run      []splitLine
	runBytes int
}

type heldOrphan struct {
	j    int
	f    fix.Fix
	lit  []byte
	last []byte // the line, when no '\n' ends it (its fix's end is then in it)
}

type splitLine struct {
	ln, off int
	j       int        // its listed refusal finding; -1 for none
	cut     bool       // a refusal finding past the cap
	safety  fix.Safety // the cut finding's own repair (counted when no join takes the line)
	head    bool       // it begins a record and ends inside a string
	b       []byte
}

func newDamageFixes(m fileFixes, counts *fixCounts, regions bool) *damageFixes {
	return &damageFixes{m: m, counts: counts, regions: regions, declared: map[string]bool{}, cutLits: map[string]int{}}
}

// refused notes a line the runtime refuses (the call ids it may declare).
func (d *damageFixes) refused(l []byte) { fix.DeclaredIDs(l, d.declared) }

// orphan defers the fix f of the listed orphan finding j on line l.
func (d *damageFixes) orphan(j int, f fix.Fix, l []byte, span line.Span, nl bool) {
	if span.Start < 0 || span.End > len(l) || span.Start >= span.End {
		return
	}
	o := heldOrphan{j: j, f: f, lit: slices.Clone(l[span.Start:span.End])}
	if !nl {
		o.last = slices.Clone(l)
	}
	d.orphans = append(d.orphans, o)
}

// cutOrphan defers the count of an orphan past the cap on line l.
func (d *damageFixes) cutOrphan(l []byte) {
	if sp := line.Parse(l).ToolCallIDSpan; sp.Start >= 0 && sp.End <= len(l) && sp.Start < sp.End {
		d.cutLits[string(l[sp.Start:sp.End])]++
	}
}

// line takes the next line (number ln at offset off, its bytes l when it
// was read) for the split runs: j is its listed refusal finding (-1:
// none), cut whether it has one past the cap, safety the cut one's own
// repair. A run begins only at a line that begins a record and ends inside
// a string, so that refused lines of other kinds cost nothing here.
func (d *damageFixes) line(ln, off int, l []byte, nl bool, j int, cut bool, safety fix.Safety) {
	switch {
	case l != nil && (j >= 0 || cut):
		head := splitHead(l)
		if len(d.run) == 0 && !head {
			if cut {
				d.counts.add(safety)
			}
			return
		}
		d.run = append(d.run, splitLine{ln: ln, off: off, j: j, cut: cut, safety: safety, head: head, b: slices.Clone(l)})
		d.runBytes += len(l)
		if len(d.run) > maxSplitRun || d.runBytes > maxFixLine {
			d.flush()
		}
	case l != nil && len(l) == 0 && nl && len(d.run) > 0:
		d.run = append(d.run, splitLine{ln: ln, off: off, j: -1}) // a raw "\n\n" in the string
	default:
		d.flush()
	}
}

// splitHead reports whether l may be the first line of a record split
// over lines: it begins a record and JSON.parse runs out inside a string.
func splitHead(l []byte) bool {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r') {
		i++
	}
	if i == len(l) || l[i] != '{' {
		return false
	}
	r := line.Parse(l)
	return r.Verdict == line.InvalidJSON && strings.Contains(r.Reason, "unterminated string")
}

// flush joins the split run's records, and counts the fixes past the cap
// of its lines no join takes.
func (d *damageFixes) flush() {
	lines := make([][]byte, len(d.run))
	for i, sl := range d.run {
		lines[i] = sl.b
	}
	for i := 0; i < len(d.run); {
		sl := d.run[i]
		take := 1
		if sl.head && (sl.j >= 0 || sl.cut) {
			if f, ok := fix.SplitFix(lines[i:], sl.ln, sl.off); ok {
				take = f.EndLine - f.Line + 1
				for _, o := range d.run[i+1 : i+take] {
					if o.j >= 0 {
						d.m[o.j] = fixInfo{} // repaired with the first line
					}
				}
				if sl.j >= 0 {
					d.m.set(sl.j, f, bytes.Join(lines[i:i+take], []byte{'\n'}), d.regions)
				} else {
					d.counts.safe++
				}
				i += take
				continue
			}
		}
		if sl.cut {
			d.counts.add(sl.safety) // no join: the line's own repair
		}
		i++
	}
	d.run, d.runBytes = nil, 0
}

// finish ends the pass: the last split run, and the orphans no refused
// line may declare.
func (d *damageFixes) finish() {
	d.flush()
	for _, o := range d.orphans {
		if !fix.OrphanHeld(o.lit, line.Span{Start: 0, End: len(o.lit)}, d.declared) {
			// The fix deletes the line with its '\n': its region needs the
			// line's bytes only when no '\n' ends it.
			d.m.set(o.j, o.f, o.last, d.regions)
		}
	}
	for lit, n := range d.cutLits {
		if !fix.OrphanHeld([]byte(lit), line.Span{Start: 0, End: len(lit)}, d.declared) {
			d.counts.unsafe += n
		}
	}
}

// add counts a fix of the given safety.
func (c *fixCounts) add(s fix.Safety) {
	switch s {
	case fix.Safe:
		c.safe++
	case fix.Unsafe:
		c.unsafe++
	}
}

// maxSplitRun bounds the lines of a record split over lines that check
// holds to find its fix (fix joins at most 64 after the first).
const maxSplitRun = 130

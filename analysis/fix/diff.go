package fix

import (
	"bytes"
	"fmt"
)

// diffContext is the number of unchanged lines shown around a change, as
// diff -u and git show them.
const diffContext = 3

// Change is one run of lines FixAll changed: the input's lines
// [OldStart, OldEnd) (0-based) became New, the text of zero or more lines.
type Change struct {
	OldStart, OldEnd int
	New              []byte
	// newStart, newEnd: the lines of the output New is, 0-based.
	newStart, newEnd int
}

// Changes lists what FixAll changed from old to new, as runs of lines in
// order; origin is Result.Origin (which old line each new line is,
// unchanged; 0 for a line a fix wrote). Fixes never move a line, so this is
// the exact edit, found in one pass instead of by searching for a shortest
// one. Without origin (nil, or not for new), everything is one change.
func Changes(old, new []byte, origin []int) []Change {
	if bytes.Equal(old, new) {
		return nil
	}
	a, b := CountLines(old), splitLines(new)
	if len(origin) != len(b) {
		origin = make([]int, len(b))
	}
	// Anchors: kept lines as (old line, new line), 0-based, in order, with
	// a sentinel past both ends.
	type pair struct{ i, j int }
	var anchors []pair
	for j, o := range origin {
		if o > 0 && o <= a && (len(anchors) == 0 || o-1 > anchors[len(anchors)-1].i) {
			anchors = append(anchors, pair{o - 1, j})
		}
	}
	anchors = append(anchors, pair{a, len(b)})
	var out []Change
	pi, pj := 0, 0
	for _, p := range anchors {
		if p.i > pi || p.j > pj {
			out = append(out, Change{OldStart: pi, OldEnd: p.i, New: bytes.Join(b[pj:p.j], nil), newStart: pj, newEnd: p.j})
		}
		pi, pj = p.i+1, p.j+1
	}
	return out
}

// UnifiedDiff writes the unified diff from old to new (what FixAll made of
// old; origin is Result.Origin, see Changes), with the file names of its
// header. It returns nil when old and new are the same.
func UnifiedDiff(oldName, newName string, old, new []byte, origin []int) []byte {
	changes := Changes(old, new, origin)
	if changes == nil {
		return nil
	}
	a, b := splitLines(old), splitLines(new)
	var out bytes.Buffer
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for k := 0; k < len(changes); {
		// A hunk: changes closer than twice the context share one.
		first := k
		for k+1 < len(changes) && changes[k+1].OldStart-changes[k].OldEnd <= 2*diffContext {
			k++
		}
		last := changes[k]
		k++
		c0 := changes[first]
		i0 := max(0, c0.OldStart-diffContext)
		j0 := c0.newStart - (c0.OldStart - i0)
		i1 := min(len(a), last.OldEnd+diffContext)
		j1 := last.newEnd + (i1 - last.OldEnd)
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(i0, i1-i0), hunkRange(j0, j1-j0))
		i := i0
		for _, c := range changes[first:k] {
			for ; i < c.OldStart; i++ {
				writeLine(&out, ' ', a[i])
			}
			for ; i < c.OldEnd; i++ {
				writeLine(&out, '-', a[i])
			}
			for j := c.newStart; j < c.newEnd; j++ {
				writeLine(&out, '+', b[j])
			}
		}
		for ; i < i1; i++ {
			writeLine(&out, ' ', a[i])
		}
	}
	return out.Bytes()
}

// hunkRange writes a hunk header's range: the first line (1-based) and the
// count, the count left out when it is 1; an empty range names the line
// before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// writeLine writes one diff line; a line without its '\n' (the file's last)
// is followed by diff's marker for it.
func writeLine(out *bytes.Buffer, mark byte, l []byte) {
	out.WriteByte(mark)
	out.Write(l)
	if len(l) == 0 || l[len(l)-1] != '\n' {
		out.WriteString("\n\\ No newline at end of file\n")
	}
}

// splitLines returns the physical lines of data, each with its '\n'.
func splitLines(data []byte) [][]byte {
	out := make([][]byte, 0, CountLines(data))
	ForEachLine(data, func(_, start, end int, nl bool) bool {
		if nl {
			end++
		}
		out = append(out, data[start:end])
		return true
	})
	return out
}

package transport

import (
	"runtime"
	"sync"
)

// A document's text is one JSON string of tens of megabytes, escaped every
// few bytes (each quote of its lines is \"), and checking it and then
// unescaping it were most of a large didOpen's time (issue 19): two passes
// of about 1 ns a byte each, on one core, while analysing the text that
// follows uses every core. Both passes split a long literal into as many
// runs as there are cores and do the runs at once.
//
// A run may begin only where a reading from the literal's start is sure to
// arrive: at an ASCII byte (never inside a character, even an invalid one,
// which the decoder reads a byte at a time), that is no backslash, not
// preceded by one (so not an escaped character) and not within five bytes
// after a \u (so not in its four hex digits, nor between the halves of a
// surrogate pair). Where a boundary cannot be placed (a long run of
// backslashes or of \u escapes) two runs become one.

// longString is the literal length from which the work is split: below it,
// starting goroutines costs more than it saves.
const longString = 1 << 20

// maxBoundarySearch bounds how far a run's start moves to reach a byte
// where it may begin.
const maxBoundarySearch = 4 << 10

// runBounds splits b[lo:hi] into at most n runs, each beginning at a byte
// where a run may begin (see above); it returns their starts and hi.
func runBounds(b []byte, lo, hi, n int) []int {
	bounds := make([]int, 1, n+1)
	bounds[0] = lo
	for k := 1; k < n; k++ {
		p := max(lo+(hi-lo)/n*k, bounds[len(bounds)-1]+1)
		for limit := min(hi, p+maxBoundarySearch); p < limit && !runMayBegin(b, lo, p); p++ {
		}
		if p < hi && runMayBegin(b, lo, p) {
			bounds = append(bounds, p)
		}
	}
	return append(bounds, hi)
}

// runMayBegin reports whether a run of the literal whose contents start at
// lo may begin at p (see above).
func runMayBegin(b []byte, lo, p int) bool {
	if p-5 < lo {
		return false
	}
	if c := b[p]; c >= 0x80 || c == '\\' || b[p-1] == '\\' {
		return false
	}
	for q := p - 5; q <= p-2; q++ {
		if b[q] == '\\' && b[q+1] == 'u' {
			return false
		}
	}
	return true
}

// runs is how many runs size bytes of a literal are split into: one per
// core, and none shorter than longString.
func runs(size int) int {
	return min(runtime.GOMAXPROCS(0), size/longString)
}

// scanSplit is scanStr from i to the end of b, split into n runs checked
// at once. Runs past the closing quote check bytes that are not the
// literal's: their results are not read.
func scanSplit(b []byte, i, n int) strRun {
	if n < 2 {
		return scanStr(b, i, len(b))
	}
	bounds := runBounds(b, i, len(b), n)
	found := make([]strRun, len(bounds)-1)
	var wg sync.WaitGroup
	for k := 1; k < len(found); k++ {
		wg.Go(func() { found[k] = scanStr(b, bounds[k], bounds[k+1]) })
	}
	found[0] = scanStr(b, bounds[0], bounds[1])
	wg.Wait()
	total := strRun{quote: -1}
	for _, r := range found {
		total = total.then(r)
		if r.bad || r.quote >= 0 {
			break
		}
	}
	return total
}

// unquoteSplit is unquoteOver for a checked literal split into n runs:
// they are unescaped at once, each over itself, then moved together.
func unquoteSplit(lit []byte, n int) int {
	if n < 2 {
		return unquoteOver(lit)
	}
	bounds := runBounds(lit, 0, len(lit), n)
	lens := make([]int, len(bounds)-1)
	var wg sync.WaitGroup
	for k := 1; k < len(lens); k++ {
		wg.Go(func() { lens[k] = unquoteOver(lit[bounds[k]:bounds[k+1]]) })
	}
	lens[0] = unquoteOver(lit[bounds[0]:bounds[1]])
	wg.Wait()
	w := lens[0]
	for k := 1; k < len(lens); k++ {
		w += copy(lit[w:], lit[bounds[k]:bounds[k]+lens[k]])
	}
	return w
}

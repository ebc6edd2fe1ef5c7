package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLineList: a list yields what was added, in order, and holds runs of
// equal steps in a few bytes.
func TestLineList(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	run := func(from, n, step int) []int {
		var s []int
		for i := range n {
			s = append(s, from+i*step)
		}
		return s
	}
	random := func(n, span int) []int {
		var s []int
		for range n {
			s = append(s, 1+r.IntN(span))
		}
		return s
	}
	tests := []struct {
		name    string
		lines   []int
		sorted  bool
		maxSize int
	}{
		{"empty", nil, true, 0},
		{"one", []int{7}, true, 8},
		{"a run of a million", run(1, 1_000_000, 1), true, 16},
		{"every other line", run(3, 100_000, 2), true, 16},
		{"two runs", append(run(1, 1000, 1), run(5000, 1000, 3)...), true, 32},
		{"ascending, scattered", slices.Sorted(slices.Values(random(10_000, 1_000_000))), true, 4 * 10_000},
		{"unordered", random(10_000, 1<<30), false, 8 * 10_000},
		{"repeats", []int{4, 4, 4, 9, 9}, true, 16},
		{"huge lines", []int{1<<31 - 1, 1 << 40, 1}, false, 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l LineList
			for _, ln := range tt.lines {
				l.Add(ln)
			}
			if got := slices.Collect(l.All()); !slices.Equal(got, tt.lines) {
				t.Fatalf("All: got %d lines (%v...), want %d", len(got), got[:min(len(got), 5)], len(tt.lines))
			}
			if l.Len() != len(tt.lines) || l.Sorted() != tt.sorted {
				t.Errorf("Len %d Sorted %v, want %d %v", l.Len(), l.Sorted(), len(tt.lines), tt.sorted)
			}
			if l.Size() > tt.maxSize {
				t.Errorf("holds %d bytes for %d lines, want at most %d", l.Size(), len(tt.lines), tt.maxSize)
			}
			// Reading stops where asked.
			n := 0
			for range l.All() {
				if n++; n == 3 {
					break
				}
			}
			if n != min(3, len(tt.lines)) {
				t.Errorf("stopped after %d", n)
			}
		})
	}
}

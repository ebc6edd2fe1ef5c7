package analysis

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/randjsonl"
)

// TestMaxFindingsPerCode: the limit keeps the first findings of each code
// and counts the rest; the verdicts, totals and cutoff do not change.
func TestMaxFindingsPerCode(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	var files [][]byte
	for range 150 {
		files = append(files, randjsonl.File(r, 5+r.IntN(60)))
	}
	files = append(files, []byte(strings.Repeat(" \n", 500)+"{\"role\":\"user\",\"content\":\"x\",}\n"+strings.Repeat("{\n", 300)))
	for i, data := range files {
		for _, max := range []int{1, 3, 120} {
			opts := Options{Budget: 500}
			all := Analyze(data, opts)
			opts.MaxFindingsPerCode = max
			opts.OmittedLines = map[string]bool{CodeInvalidJSON: true, CodeOrphanToolResult: true}
			capped := Analyze(data, opts)

			if got, want := capped.InvalidLines, all.InvalidLines; got != want {
				t.Errorf("file %d: capped.InvalidLines = %v, want %v", i, got, want)
			}
			if got, want := capped.FirstInvalidLine, all.FirstInvalidLine; got != want {
				t.Errorf("capped.FirstInvalidLine = %v, want %v", got, want)
			}
			if got, want := capped.LoadFailure(), all.LoadFailure(); !reflect.DeepEqual(got, want) {
				t.Errorf("capped.LoadFailure() = %v, want %v", got, want)
			}
			if got, want := capped.Cutoff, all.Cutoff; !reflect.DeepEqual(got, want) {
				t.Errorf("capped.Cutoff = %v, want %v", got, want)
			}
			if got, want := capped.TotalChars, all.TotalChars; got != want {
				t.Errorf("capped.TotalChars = %v, want %v", got, want)
			}

			byCode := map[string][]Finding{}
			for _, f := range all.Findings {
				byCode[f.Code] = append(byCode[f.Code], f)
			}
			kept := map[string]int{}
			for _, f := range capped.Findings {
				kept[f.Code]++
			}
			omitted := map[string]Omitted{}
			for _, o := range capped.Omitted {
				omitted[o.Code] = o
			}
			for code, fs := range byCode {
				if got := kept[code]; got > max {
					t.Fatalf("file %d %s: kept[code] = %v, want <= %v", i, code, got, max)
				}
				if got, want := kept[code]+omitted[code].N, len(fs); got != want {
					t.Errorf("file %d %s: kept + omitted: kept[code]+omitted[code].N = %v, want %v", i, code, got, want)
				}
				if code == CodeInvalidJSON || code == CodeInvalidRecord {
					// Line verdicts are found in line order: the first ones are kept.
					n := min(len(fs), max)
					var got []Finding
					for _, f := range capped.Findings {
						if f.Code == code {
							got = append(got, f)
						}
					}
					if want := fs[:n]; !reflect.DeepEqual(got, want) {
						t.Errorf("file %d %s: got %v, want %v", i, code, got, want)
					}
				}
				if opts.OmittedLines[code] {
					var want []int
					keptLines := map[int]int{}
					for _, f := range capped.Findings {
						if f.Code == code {
							keptLines[f.Line]++
						}
					}
					for _, f := range fs {
						if keptLines[f.Line] > 0 {
							keptLines[f.Line]--
							continue
						}
						want = append(want, f.Line)
					}
					o := omitted[code]
					got := slices.Sorted(o.Lines.All())
					if !reflect.DeepEqual(got, want) {
						t.Errorf("file %d %s: omitted lines: got %v, want %v", i, code, got, want)
					}
				} else {
					if o := omitted[code]; o.Lines.Len() != 0 {
						t.Errorf("omitted[code].Lines has %d lines, want none", o.Lines.Len())
					}
				}
			}
		}
	}
}

// TestMaxFindingsPerCodeMemory: a stream of blank lines keeps ~300 bytes
// per finding; with the limit, the 4 bytes of an omitted line. Measured as
// the heap in use with the report alive, between n and 3n lines (the
// parsing workers' buffers, bounded by the block size, cancel out).
func TestMaxFindingsPerCodeMemory(t *testing.T) {
	const n = 200000
	heap := func(lines int, opts Options) int64 {
		data := []byte(strings.Repeat(" \n", lines))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rep, err := AnalyzeReader(context.Background(), bytes.NewReader(data), opts)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.GC() // and the pools' victim caches
		runtime.ReadMemStats(&after)
		if got, want := rep.InvalidLines, lines; got != want {
			t.Fatalf("rep.InvalidLines = %v, want %v", got, want)
		}
		runtime.KeepAlive(rep)
		return int64(after.HeapAlloc) - int64(before.HeapAlloc)
	}
	perFinding := func(opts Options) float64 {
		return float64(heap(3*n, opts)-heap(n, opts)) / (2 * n)
	}
	all := perFinding(Options{SkipMessages: true})
	capped := perFinding(Options{SkipMessages: true, MaxFindingsPerCode: 100, OmittedLines: map[string]bool{CodeInvalidJSON: true}})
	t.Logf("bytes held per finding: %.0f without the limit, %.1f with it", all, capped)
	if got := all; got <= 100.0 {
		t.Errorf("all = %v, want > %v", got, 100.0)
	}
	if got := capped; got >= 8.0 {
		t.Errorf("capped = %v, want < %v", got, 8.0)
	}
}

package analysis

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

			assert.Equal(t, all.InvalidLines, capped.InvalidLines, "file %d", i)
			assert.Equal(t, all.FirstInvalidLine, capped.FirstInvalidLine)
			assert.Equal(t, all.LoadFailure(), capped.LoadFailure())
			assert.Equal(t, all.Cutoff, capped.Cutoff)
			assert.Equal(t, all.TotalChars, capped.TotalChars)

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
				require.LessOrEqual(t, kept[code], max, "file %d %s", i, code)
				assert.Equal(t, len(fs), kept[code]+omitted[code].N, "file %d %s: kept + omitted", i, code)
				if code == CodeInvalidJSON || code == CodeInvalidRecord {
					// Line verdicts are found in line order: the first ones are kept.
					n := min(len(fs), max)
					var got []Finding
					for _, f := range capped.Findings {
						if f.Code == code {
							got = append(got, f)
						}
					}
					assert.Equal(t, fs[:n], got, "file %d %s", i, code)
				}
				if opts.OmittedLines[code] {
					var want []int32
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
						want = append(want, int32(f.Line))
					}
					got := slices.Clone(omitted[code].Lines)
					slices.Sort(got)
					assert.Equal(t, want, got, "file %d %s: omitted lines", i, code)
				} else {
					assert.Empty(t, omitted[code].Lines)
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
		require.NoError(t, err)
		runtime.GC()
		runtime.GC() // and the pools' victim caches
		runtime.ReadMemStats(&after)
		require.Equal(t, lines, rep.InvalidLines)
		runtime.KeepAlive(rep)
		return int64(after.HeapAlloc) - int64(before.HeapAlloc)
	}
	perFinding := func(opts Options) float64 {
		return float64(heap(3*n, opts)-heap(n, opts)) / (2 * n)
	}
	all := perFinding(Options{SkipMessages: true})
	capped := perFinding(Options{SkipMessages: true, MaxFindingsPerCode: 100, OmittedLines: map[string]bool{CodeInvalidJSON: true}})
	t.Logf("bytes held per finding: %.0f without the limit, %.1f with it", all, capped)
	assert.Greater(t, all, 100.0)
	assert.Less(t, capped, 8.0)
}

package analysis

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/randjsonl"
)

// Tests of the findings limit (Options.MaxFindingsPerCode): what it keeps
// and counts, and what the refused lines past it cost in a check and in an
// open document.

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

// damagedPieces are lines (with their '\n') whose causes depend on their
// neighbours: records split over lines, cuts, NULs, blank lines, junk.
var damagedPieces = []string{
	`{"role":"user","content":"hi"}` + "\n",
	"  \n",
	"\n",
	"x\n",
	`{"role":"user","content":"a` + "\n" + `b"}` + "\n",
	`{"role":"user","content":"a` + "\n\n" + `b` + "\n" + `c"}` + "\n",
	`{"role":"user","content":"par` + "\n",
	`{"role":"user","content":"par{"role":"user","content":"hi"}` + "\n",
	`{"role":"user","content":"lo` + "\x00\x00\x00\n",
	`{"role":"user","content":"lo` + strings.Repeat("\x00", 9) + `x"}` + "\n",
	`{"role":"system","content":""}` + "\n",
	`{"role":"user","content":"a"},` + "\n",
	"{\n",
}

// damagedText joins n random pieces, and now and then a record longer
// than one write with another append in it (interleaved).
func damagedText(r *rand.Rand, n int, interleave bool) string {
	var b strings.Builder
	for range n {
		if interleave && r.IntN(40) == 0 {
			b.WriteString(`{"role":"tool","content":"` + strings.Repeat("a", ChunkSize-26) + jU() + "\n" + `aa","toolCallId":"a","isError":false}` + "\n")
			continue
		}
		b.WriteString(damagedPieces[r.IntN(len(damagedPieces))])
	}
	return b.String()
}

// TestRefusedRunsExact: the refused lines a tally keeps in runs, parsed
// again only when reported, give the report the full list gives: a
// Document's (which lists every refused line), Analyze's on one piece or
// many, AnalyzeReader's over chunks of any size, under any limit.
func TestRefusedRunsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	cut := `{"role":"user","content":"par` + "\n"
	texts := []string{
		// Past the first lines and the truncated-record limit, a cut
		// record whose next line continues it is a split-record, which
		// is under the limit.
		strings.Repeat("  \n", maxRelated+1) + strings.Repeat(cut+jU()+"\n", 6) + cut + "x\n",
		strings.Repeat("  \n", maxRelated+1) + strings.Repeat(cut+"x\n", 6) + cut + jU() + "\n",
	}
	for i := range 60 {
		// Past the first maxRelated+1 refused lines, the limit decides
		// which are parsed again.
		text := damagedText(r, 5+r.IntN(120)+i%2*(maxRelated+r.IntN(400)), i%15 == 0)
		if i%7 == 0 {
			text = strings.TrimSuffix(text, "\n") // no '\n' at the end
		}
		texts = append(texts, text)
	}
	for i, text := range texts {
		data := []byte(text)
		for _, disabled := range []map[string]bool{nil, {CodeInvalidJSON: true}, {CodeSplitRecord: true, CodeTruncatedRecord: true}} {
			base := Options{Budget: 300, Disabled: disabled}
			one := newEngine()
			one.parallelMin = 1 << 40
			want := one.analyze(data, base)
			if doc := NewDocument(text, base).Report(); !reflect.DeepEqual(doc.Findings, want.Findings) || doc.InvalidLines != want.InvalidLines {
				t.Fatalf("text %d: Analyze and Document differ\n%v\n%v", i, codes(want), codes(doc))
			}
			for _, limit := range []int{0, 1, 2, 5} {
				opts := base
				opts.MaxFindingsPerCode = limit
				opts.OmittedLines = map[string]bool{}
				for _, c := range Codes() {
					opts.OmittedLines[c] = true
				}
				ref := one.analyze(data, opts)
				checkCapped(t, fmt.Sprintf("text %d, limit %d, disabled %v", i, limit, disabled), want, ref, limit)
				many := streamEngine(line.Parse, 7, 3)
				many.parallelMin = 1
				if got := many.analyze(data, opts); !sameReport(got, ref) {
					t.Fatalf("text %d limit %d: Analyze in pieces differs\ngot  %v %+v\nwant %v %+v", i, limit, codes(got), got.Omitted, codes(ref), ref.Omitted)
				}
				for _, chunk := range []int{7, 100, 4096} {
					e := streamEngine(line.Parse, chunk, 3)
					got, err := e.analyzeReader(context.Background(), bytes.NewReader(data), opts)
					if err != nil {
						t.Fatal(err)
					}
					if !sameReport(got, ref) {
						t.Fatalf("text %d limit %d chunk %d: AnalyzeReader differs\ngot  %v %+v\nwant %v %+v", i, limit, chunk, codes(got), got.Omitted, codes(ref), ref.Omitted)
					}
				}
			}
		}
	}
}

// sameReport compares two reports, their omitted lines by value.
func sameReport(a, b *Report) bool {
	if !reflect.DeepEqual(a.Findings, b.Findings) || a.InvalidLines != b.InvalidLines || a.FirstInvalidLine != b.FirstInvalidLine ||
		!reflect.DeepEqual(a.LoadFailure(), b.LoadFailure()) || len(a.Omitted) != len(b.Omitted) {
		return false
	}
	for k := range a.Omitted {
		x, y := a.Omitted[k], b.Omitted[k]
		if x.Code != y.Code || x.N != y.N || !slices.Equal(slices.Collect(x.Lines.All()), slices.Collect(y.Lines.All())) {
			return false
		}
	}
	return true
}

// checkCapped: capped keeps, of each refusal code, the first limit
// findings all has, and counts the rest with their lines.
func checkCapped(t *testing.T, name string, all, capped *Report, limit int) {
	t.Helper()
	if capped.InvalidLines != all.InvalidLines || capped.FirstInvalidLine != all.FirstInvalidLine || !reflect.DeepEqual(capped.LoadFailure(), all.LoadFailure()) {
		t.Fatalf("%s: verdicts differ: %d %d %q / %d %d %q", name, capped.InvalidLines, capped.FirstInvalidLine, capped.LoadFailure(), all.InvalidLines, all.FirstInvalidLine, all.LoadFailure())
	}
	byCode := func(fs []Finding) map[string][]Finding {
		m := map[string][]Finding{}
		for _, f := range fs {
			if IsRefusal(f.Code) {
				m[f.Code] = append(m[f.Code], f)
			}
		}
		return m
	}
	want, got := byCode(all.Findings), byCode(capped.Findings)
	for code, fs := range want {
		n := len(fs)
		if limit > 0 {
			n = min(n, limit)
		}
		if !reflect.DeepEqual(got[code], fs[:n]) {
			t.Fatalf("%s: %s findings\ngot  %v\nwant %v", name, code, got[code], fs[:n])
		}
		var o Omitted
		for _, x := range capped.Omitted {
			if x.Code == code {
				o = x
			}
		}
		var lines []int
		for _, f := range fs[n:] {
			lines = append(lines, f.Line)
		}
		if o.N != len(fs)-n || !slices.Equal(slices.Collect(o.Lines.All()), lines) {
			t.Fatalf("%s: %s omitted %d %v, want %d %v", name, code, o.N, slices.Collect(o.Lines.All()), len(fs)-n, lines)
		}
	}
}

// refusedPatterns are files of refused lines only, by the line (or pair
// of lines) repeated.
var refusedPatterns = []struct {
	name, unit string
	lines      int // refused lines per unit
	maxAlloc   int // bytes allocated per refused line (TestRefusedLineBytes)
}{
	{"blank", "  \n", 1, 4},
	{"junk", "x\n", 1, 4},
	{"cut, then blank", "{\n  \n", 2, 8},
	{"split record", `{"role":"user","content":"a` + "\n" + `b"}` + "\n", 2, 8},
	{"invalid record", `{"role":"system","content":""}` + "\n", 1, 64},
}

// refusedBytes streams n units of unit through AnalyzeReader as check
// does (the first 100 findings of each code, the omitted lines of every
// code), and returns the bytes it allocated and those the report holds.
func refusedBytes(t testing.TB, unit string, n int) (alloc, held int64) {
	data := []byte(strings.Repeat(unit, n))
	opts := Options{SkipMessages: true, MaxFindingsPerCode: 100, OmittedLines: map[string]bool{}}
	for _, c := range Codes() {
		opts.OmittedLines[c] = true
	}
	alloc, held = heapCost(func() any {
		rep, err := AnalyzeReader(context.Background(), bytes.NewReader(data), opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	})
	runtime.KeepAlive(data)
	return alloc, held
}

// heapCost runs f between full collections and returns the bytes the
// process allocated while f ran and how much the heap in use grew, with
// what f returns still alive. Two collections each time, so that the
// pools' victim caches are emptied too.
func heapCost(f func() any) (alloc, held int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := f()
	runtime.ReadMemStats(&after)
	alloc = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return alloc, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestRefusedLineBytes: a refused line past the findings limit costs a
// few bytes of allocation and a fraction of a byte of report, whatever
// its neighbours (it was ~750 bytes allocated and 4 held). Measured
// between files of 8 and 24 MiB, so that the fixed costs (the chunks and
// tallies in flight, the findings kept) cancel out. An invalid record
// allocates its reason (it quotes the record's role) and drops it. An
// open document keeps 40 bytes per refused line past the limit (its
// line's string header and a lineRes), not a line.Result and a finding
// (~515 bytes before).
func TestRefusedLineBytes(t *testing.T) {
	if raceEnabled {
		// Instrumented, it streams 160 MiB in minutes, and the detector
		// allocates on its own.
		t.Skip("bytes per line are measured without the race detector")
	}
	for _, p := range refusedPatterns {
		t.Run(p.name, func(t *testing.T) {
			n := 8 << 20 / len(p.unit)
			a1, h1 := refusedBytes(t, p.unit, n)
			a3, h3 := refusedBytes(t, p.unit, 3*n)
			lines := float64(2 * n * p.lines)
			alloc, held := float64(a3-a1)/lines, float64(h3-h1)/lines
			t.Logf("%s: %.1f bytes allocated, %.2f held per refused line", p.name, alloc, held)
			if alloc > float64(p.maxAlloc) || held > 1 {
				t.Errorf("%s: %.1f bytes allocated and %.2f held per refused line, want at most %d and 1", p.name, alloc, held, p.maxAlloc)
			}
			// The document, between files of 1 and 3 MiB. Every line of
			// these files is refused (an empty line inside a split record
			// aside, 16 bytes).
			n = 1 << 20 / len(p.unit)
			d1, d3 := documentBytes(t, p.unit, n), documentBytes(t, p.unit, 3*n)
			held = float64(d3-d1) / float64(2*n*p.lines)
			t.Logf("%s: %.1f bytes held per refused line in a document", p.name, held)
			if held > 48 {
				t.Errorf("%s: %.1f bytes held per refused line in a document, want at most 48", p.name, held)
			}
		})
	}
}

// BenchmarkRefusedLines prints the bytes a refused line costs a check,
// allocated while streaming and held by the report (from 24 MiB files,
// the fixed costs included), and its time.
func BenchmarkRefusedLines(b *testing.B) {
	for _, p := range refusedPatterns {
		b.Run(p.name, func(b *testing.B) {
			n := 24 << 20 / len(p.unit)
			var alloc, held int64
			for b.Loop() {
				alloc, held = refusedBytes(b, p.unit, n)
			}
			lines := float64(n * p.lines)
			b.ReportMetric(float64(alloc)/lines, "alloc-B/refused-line")
			b.ReportMetric(float64(held)/lines, "held-B/refused-line")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/lines, "ns/refused-line")
		})
	}
}

// documentBytes opens a Document on n units of unit, with the language
// server's limit, and returns the heap it and its report hold beyond the
// text.
func documentBytes(t testing.TB, unit string, n int) int64 {
	text := strings.Repeat(unit, n)
	_, held := heapCost(func() any {
		d := NewDocument(text, Options{MaxFindingsPerCode: 1000})
		return [2]any{d, d.Report()}
	})
	runtime.KeepAlive(text)
	return held
}

// BenchmarkDocumentRefusedLines prints the bytes an open document (with
// its report) holds per refused line, and the time to open and analyse.
func BenchmarkDocumentRefusedLines(b *testing.B) {
	for _, p := range refusedPatterns {
		b.Run(p.name, func(b *testing.B) {
			n := 4 << 20 / len(p.unit)
			var held int64
			for b.Loop() {
				held = documentBytes(b, p.unit, n)
			}
			lines := float64(n * p.lines)
			b.ReportMetric(float64(held)/lines, "held-B/refused-line")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/lines, "ns/refused-line")
		})
	}
}

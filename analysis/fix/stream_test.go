package fix

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
)

// oldRound is a round of FixAll as Plan, Select, origins and Apply make it,
// holding its fixes: what streamRound must equal.
func oldRound(data []byte, prev []int, findings []analysis.Finding, jsonOnly, unsafe bool) roundResult {
	all, _ := plan(data, findings, map[string]bool{}, jsonOnly)
	fixes := Select(all, unsafe)
	if len(fixes) == 0 {
		return roundResult{}
	}
	r := roundResult{data: Apply(data, fixes), origin: origins(data, fixes, prev), fixed: len(fixes)}
	for _, f := range fixes {
		r.lost = r.lost.Add(f.Lost)
	}
	return r
}

// roundInputs are the session files of testdata (the damage corpora, the
// dialects' samples) and generated files of many refused lines.
func roundInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{
		"blank":    bytes.Repeat([]byte("  \n"), 1000),
		"blank-cr": bytes.Repeat([]byte(" \t\r\n\n"), 500),
		"invalid":  bytes.Repeat([]byte("nope\n"), 1000),
		"comma":    bytes.Repeat([]byte(`{"role":"user","content":"hi",}`+"\n"), 1000),
		"joined":   bytes.Repeat([]byte(`{"role":"user","content":"a"}{"role":"user","content":"b"}`+"\n  \n"), 300),
		"split":    []byte("{\"role\":\"user\",\"content\":\"a\nb\"}\n  \n{\"role\":\"user\",\"content\":\"c\"\n"),
		"orphans":  []byte(`{"role":"toolResult","toolCallId":"x","toolName":"t","content":[],"isError":false}` + "\n  \n" + `{"role":"user","content":"hi",}` + "\n" + `{"role":"toolResult","toolCallId":"y","toolName":"t","content":[]}` + "\n"),
	}
	err := filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		in[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestStreamRoundIsTheRound: streamRound makes every round of FixAll what
// Plan, Select, origins and Apply make of it, byte for byte, with its
// origins, count and loss, safe and unsafe, at both levels.
func TestStreamRoundIsTheRound(t *testing.T) {
	for name, data := range roundInputs(t) {
		for _, jsonOnly := range []bool{false, true} {
			for _, unsafe := range []bool{false, true} {
				cur, prev := data, []int(nil)
				for round := range maxRounds {
					rep, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(cur), analysis.Options{JSONOnly: jsonOnly})
					if err != nil {
						t.Fatal(err)
					}
					want := oldRound(cur, prev, rep.Findings, jsonOnly, unsafe)
					got, _, ok := streamRound(cur, prev, indexFindings(rep.Findings, jsonOnly), map[string]bool{}, jsonOnly, unsafe)
					if !ok {
						t.Logf("%s (json only %v, unsafe %v) round %d: streamRound declines, FixAll plans it the old way", name, jsonOnly, unsafe, round+1)
						break
					}
					if !bytes.Equal(got.data, want.data) || !slices.Equal(got.origin, want.origin) || got.fixed != want.fixed || got.lost != want.lost {
						t.Fatalf("%s (json only %v, unsafe %v) round %d: streamRound made %d fixes, lost %v, %q, origins %v; the old round %d, %v, %q, %v",
							name, jsonOnly, unsafe, round+1, got.fixed, got.lost, clip(got.data), clip(got.origin), want.fixed, want.lost, clip(want.data), clip(want.origin))
					}
					if got.fixed == 0 {
						break
					}
					cur, prev = got.data, got.origin
				}
			}
		}
	}
}

func clip[S ~[]E, E any](s S) S { return s[:min(len(s), 40)] }

// roundBytesPerLine is what a round of FixAll allocates, per refused line,
// planning and applying the fixes of n lines of data (the analysis aside).
func roundBytesPerLine(t testing.TB, data []byte, n int, round func([]byte, []analysis.Finding)) float64 {
	t.Helper()
	rep, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	round(data, rep.Findings)
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestStreamRoundBytesPerLine: a round of FixAll no longer holds a Fix per
// fixed line, three times over (the plan, Select's copy, Apply's sorted
// copy), nor a map entry per refused line: 100k blank lines allocate under
// 250 bytes each to plan and apply (the planner's index: a want, a refusal
// and the line's offsets; each fix's edit, dropped once applied), where the
// old round allocated about 1,800.
func TestStreamRoundBytesPerLine(t *testing.T) {
	const n = 100_000
	data := bytes.Repeat([]byte("  \n"), n)
	stream := roundBytesPerLine(t, data, n, func(d []byte, fs []analysis.Finding) {
		if r, _, ok := streamRound(d, nil, indexFindings(fs, false), map[string]bool{}, false, false); !ok || r.fixed != n || len(r.data) != 0 {
			t.Fatalf("streamRound fixed %d of %d lines (ok %v), left %d bytes", r.fixed, n, ok, len(r.data))
		}
	})
	old := roundBytesPerLine(t, data, n, func(d []byte, fs []analysis.Finding) { oldRound(d, nil, fs, false, false) })
	t.Logf("bytes allocated per blank line by a round: streamed %.0f, held %.0f", stream, old)
	if stream > 250 || old < 4*stream {
		t.Errorf("a round allocates %.0f bytes per blank line (the old round %.0f): want under 250, and under a quarter of the old round's", stream, old)
	}
}

// BenchmarkFixAllBlankLines reports the bytes FixAll allocates per blank
// line it deletes, analysis included (was about 3,960 with the fixes held).
func BenchmarkFixAllBlankLines(b *testing.B) {
	const n = 100_000
	data := bytes.Repeat([]byte("  \n"), n)
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		if res := FixAll(data, analysis.Options{}, false); res.Fixed != n {
			b.Fatalf("fixed %d of %d", res.Fixed, n)
		}
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/n, "B/line")
}

// oldFixAll is FixAllContext as it was before its rounds streamed: every
// round analysed whole and its fixes held.
func oldFixAll(data []byte, opts analysis.Options, unsafe bool) Result {
	res := Result{Data: data}
	analyze := func() { res.Report, _ = analysis.AnalyzeReader(context.Background(), bytes.NewReader(res.Data), opts) }
	declared := map[string]bool{}
	for range maxRounds {
		analyze()
		all, ambs := plan(res.Data, res.Report.Findings, declared, opts.JSONOnly)
		fixes := Select(all, unsafe)
		if len(fixes) == 0 {
			res.Ambiguities = ambs
			if unsafe {
				res.HeldOrphans = heldOrphans(res.Data, res.Report.Findings, declared)
			}
			return res
		}
		res.Origin = origins(res.Data, fixes, res.Origin)
		res.Data = Apply(res.Data, fixes)
		res.Fixed += len(fixes)
		for _, f := range fixes {
			res.Lost = res.Lost.Add(f.Lost)
		}
	}
	analyze()
	_, res.Ambiguities = plan(res.Data, res.Report.Findings, declared, opts.JSONOnly)
	if unsafe {
		res.HeldOrphans = heldOrphans(res.Data, res.Report.Findings, declared)
	}
	return res
}

// TestFixAllIsTheOldFixAll: FixAll, its rounds streamed and planned from
// the engine's capped findings, makes what it made with every round held
// whole: the data, origins, counts, losses, held orphans, ambiguities and
// the report, on testdata's sessions and generated damage.
func TestFixAllIsTheOldFixAll(t *testing.T) {
	for name, data := range roundInputs(t) {
		for _, jsonOnly := range []bool{false, true} {
			for _, unsafe := range []bool{false, true} {
				opts := analysis.Options{JSONOnly: jsonOnly}
				got, err := FixAllContext(context.Background(), data, opts, unsafe)
				if err != nil {
					t.Fatal(err)
				}
				want := oldFixAll(data, opts, unsafe)
				what := fmt.Sprintf("%s (json only %v, unsafe %v)", name, jsonOnly, unsafe)
				if !bytes.Equal(got.Data, want.Data) || !slices.Equal(got.Origin, want.Origin) || got.Fixed != want.Fixed || got.Lost != want.Lost || got.HeldOrphans != want.HeldOrphans {
					t.Errorf("%s: FixAll fixed %d, lost %v, held %d, made %q; the old one %d, %v, %d, %q",
						what, got.Fixed, got.Lost, got.HeldOrphans, clip(got.Data), want.Fixed, want.Lost, want.HeldOrphans, clip(want.Data))
				}
				if !reflect.DeepEqual(got.Ambiguities, want.Ambiguities) {
					t.Errorf("%s: ambiguities %+v, the old FixAll's %+v", what, got.Ambiguities, want.Ambiguities)
				}
				if !reflect.DeepEqual(got.Report, want.Report) {
					t.Errorf("%s: the report differs from the old FixAll's", what)
				}
			}
		}
	}
}

// TestRoundIndexIsTheReports: what a round plans from the engine's capped
// findings is what it read from the whole report: the line, code and (an
// orphan's) span of each fixable finding, and each refused line's code.
func TestRoundIndexIsTheReports(t *testing.T) {
	planned := 0
	for name, data := range roundInputs(t) {
		for _, jsonOnly := range []bool{false, true} {
			opts := analysis.Options{JSONOnly: jsonOnly}
			got, ok, err := roundIndex(context.Background(), data, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Logf("%s: two findings share a line, the round analyses whole", name)
				continue
			}
			rep, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), opts)
			if err != nil {
				t.Fatal(err)
			}
			want := indexFindings(rep.Findings, jsonOnly)
			planned++
			if !slices.Equal(got.refused, want.refused) {
				t.Fatalf("%s (json only %v): refused lines %v, the report's %v", name, jsonOnly, clip(got.refused), clip(want.refused))
			}
			if len(got.wants) != len(want.wants) {
				t.Fatalf("%s (json only %v): %d findings planned, the report has %d", name, jsonOnly, len(got.wants), len(want.wants))
			}
			for i := range got.wants {
				g, w := got.wants[i], want.wants[i]
				if g.code != analysis.CodeOrphanToolResult {
					g.span = w.span // a refusal's span is not planned
				}
				if g != w {
					t.Fatalf("%s (json only %v): finding %d planned as %+v, the report's %+v", name, jsonOnly, i, got.wants[i], w)
				}
			}
		}
	}
	if planned == 0 {
		t.Fatal("no input was planned from capped findings")
	}
}

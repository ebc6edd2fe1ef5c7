package fix

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
					got, _, ok := streamRound(cur, prev, rep.Findings, map[string]bool{}, jsonOnly, unsafe)
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
// copy): 100k blank lines allocate under 700 bytes each to plan and apply
// (the planner's own index of the findings: the wanted lines, the refused
// lines and their codes), where the old round allocated over 1,500.
func TestStreamRoundBytesPerLine(t *testing.T) {
	const n = 100_000
	data := bytes.Repeat([]byte("  \n"), n)
	stream := roundBytesPerLine(t, data, n, func(d []byte, fs []analysis.Finding) {
		if r, _, ok := streamRound(d, nil, fs, map[string]bool{}, false, false); !ok || r.fixed != n || len(r.data) != 0 {
			t.Fatalf("streamRound fixed %d of %d lines (ok %v), left %d bytes", r.fixed, n, ok, len(r.data))
		}
	})
	old := roundBytesPerLine(t, data, n, func(d []byte, fs []analysis.Finding) { oldRound(d, nil, fs, false, false) })
	t.Logf("bytes allocated per blank line by a round: streamed %.0f, held %.0f", stream, old)
	if stream > 700 || old < 2*stream {
		t.Errorf("a round allocates %.0f bytes per blank line (the old round %.0f): want under 700, and under half the old round's", stream, old)
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

package analysis_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/transcript"
)

// benchSize is the size of the benchmark transcript: large enough that
// per-call overheads vanish and the stream reader splits it across cores.
const benchSize = 64 << 20

// benchData generates the transcript once per test process.
var benchData = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	b.Grow(benchSize + 1<<20)
	if _, err := transcript.Write(&b, benchSize, 1); err != nil {
		panic(err) // writing to a bytes.Buffer does not fail
	}
	return b.Bytes()
})

// benchAnalysis measures analyze on the benchmark transcript, which
// check judges after each run.
func benchAnalysis(b *testing.B, analyze func(data []byte) (*analysis.Report, error), check func(*analysis.Report) error) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := analyze(data)
		if err != nil {
			b.Fatal(err)
		}
		if err := check(rep); err != nil {
			b.Fatal(err)
		}
	}
}

// loads is the check of a benchmark without a budget.
func loads(rep *analysis.Report) error {
	if !rep.Loads() {
		return fmt.Errorf("the benchmark transcript does not load: line %d", rep.FirstInvalidLine)
	}
	return nil
}

func BenchmarkAnalyze(b *testing.B) {
	benchAnalysis(b, func(data []byte) (*analysis.Report, error) {
		return analysis.Analyze(data, analysis.Options{}), nil
	}, loads)
}

func BenchmarkAnalyzeReader(b *testing.B) {
	benchAnalysis(b, func(data []byte) (*analysis.Report, error) {
		return analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{})
	}, loads)
}

func BenchmarkBudget(b *testing.B) {
	benchAnalysis(b, func(data []byte) (*analysis.Report, error) {
		return analysis.Analyze(data, analysis.Options{Budget: 100_000}), nil
	}, func(rep *analysis.Report) error {
		if rep.Cutoff == nil {
			return fmt.Errorf("no cutoff for budget 100000: %v", rep.CutoffErr)
		}
		return nil
	})
}

// TestBenchTranscriptAgrees checks that the in-memory and the streaming
// analyses of the (smaller) benchmark-style transcript agree and that it
// loads, so the benchmarks measure the path real files take.
func TestBenchTranscriptAgrees(t *testing.T) {
	var b bytes.Buffer
	if _, err := transcript.Write(&b, 4<<20, 2); err != nil {
		t.Fatal(err)
	}
	mem := analysis.Analyze(b.Bytes(), analysis.Options{Budget: 100_000})
	str, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(b.Bytes()), analysis.Options{Budget: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	if !mem.Loads() || mem.InvalidLines != 0 {
		t.Fatalf("transcript does not load: first invalid line %d", mem.FirstInvalidLine)
	}
	if summary(mem) != summary(str) {
		t.Fatalf("Analyze and AnalyzeReader differ:\n%s\n%s", summary(mem), summary(str))
	}
	if mem.Cutoff == nil || mem.Cutoff.KeptChars > 100_000 {
		t.Fatalf("cutoff %+v, error %v", mem.Cutoff, mem.CutoffErr)
	}
}

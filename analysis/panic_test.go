package analysis

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
)

// A parser bug must not kill the process from a worker goroutine: Analyze
// re-panics in its caller (where the CLI and the server recover), and
// AnalyzeReader returns an error.
func TestWorkerPanicReachesCaller(t *testing.T) {
	e := fakeEngine()
	e.workers, e.parallelMin, e.chunk = 2, 1, 64
	e.parse = func(b []byte) line.Result {
		if bytes.Contains(b, []byte("boom")) {
			panic("parser bug")
		}
		return fakeParse(b)
	}
	var sb strings.Builder
	for i := range 200 {
		if i == 150 {
			sb.WriteString(`{"role":"user","content":"boom"}` + "\n")
			continue
		}
		sb.WriteString(jU() + "\n")
	}
	data := []byte(sb.String())

	func() {
		defer func() {
			v := recover()
			if v == nil || !strings.Contains(strings.TrimSpace(toString(v)), "parser bug") {
				t.Errorf("Analyze: recovered %v, want the worker's panic", v)
			}
		}()
		e.analyze(data, Options{})
		t.Error("Analyze returned normally despite a panicking parser")
	}()

	_, err := e.analyzeReader(context.Background(), bytes.NewReader(data), Options{})
	if err == nil || !strings.Contains(err.Error(), "parser bug") {
		t.Errorf("AnalyzeReader error = %v, want one naming the worker's panic", err)
	}
}

func toString(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

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

// A parser bug while a Document parses a large text across cores must not
// kill the language server from a worker goroutine: NewDocument re-panics in
// its caller (the server's handler recovers), and Apply returns an error and
// keeps the document as it was.
func TestDocumentWorkerPanicReachesCaller(t *testing.T) {
	e := fakeEngine()
	e.workers, e.parallelMin = 2, 1
	e.parse = func(b []byte) line.Result {
		if bytes.Contains(b, []byte("boom")) {
			panic("parser bug")
		}
		return fakeParse(b)
	}
	var sb strings.Builder
	for range 200 {
		sb.WriteString(jU() + "\n")
	}
	good := sb.String()
	bad := strings.Replace(good, `"content":"`, `"content":"boom`, 1)

	func() {
		defer func() {
			v := recover()
			if v == nil || !strings.Contains(toString(v), "parser bug") {
				t.Errorf("NewDocument: recovered %v, want the worker's panic", v)
			}
		}()
		newDocument(e, bad, Options{})
		t.Error("NewDocument returned normally despite a panicking parser")
	}()

	d := newDocument(e, good, Options{})
	before := d.Report()
	err := d.Apply([]Change{{Text: bad}})
	if err == nil || !strings.Contains(err.Error(), "parser bug") {
		t.Errorf("Apply error = %v, want one naming the worker's panic", err)
	}
	if d.Text() != good || d.Report() != before {
		t.Errorf("after a failed Apply the document changed")
	}
}

package analysis

import (
	"bytes"
	"context"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"
)

// recorder keeps what an observer is shown.
type recorder struct {
	msgs   []Message
	owners []int
}

func (r *recorder) Observe(m *Message, owner int) {
	r.msgs = append(r.msgs, *m)
	r.owners = append(r.owners, owner)
}

// TestObserver: the observer sees every valid message once, in line
// order, as the report holds it (line, role, cost, calls), from Analyze
// (in parallel pieces past parallelMin) and AnalyzeReader (in chunks)
// alike, with SkipMessages too; a Document shows it nothing.
func TestObserver(t *testing.T) {
	// A transcript, an invalid line, an orphan result and a repeated id.
	data := append(transcript.Session(200, 4), []byte(`{"role":"user"
{"role":"tool","toolCallId":"nope","isError":false,"content":"x"}
{"role":"assistant","content":"","toolCalls":[{"id":"call_1","name":"a","input":1},{"id":"call_1","name":"b","input":2}]}
{"role":"tool","toolCallId":"call_1","isError":false,"content":"x"}
`)...)
	full := Analyze(data, Options{})
	want := full.Messages
	small := engine{parse: newEngine().parse, workers: 3, chunk: 4096, parallelMin: 1 << 10, maxLine: MaxStringLength, settleFrom: 8 << 20}
	runs := map[string]func(Options) *Report{
		"Analyze":           func(o Options) *Report { return Analyze(data, o) },
		"Analyze in pieces": func(o Options) *Report { return small.analyze(data, o) },
		"AnalyzeReader": func(o Options) *Report {
			r, err := AnalyzeReader(context.Background(), bytes.NewReader(data), o)
			if err != nil {
				t.Fatal(err)
			}
			return r
		},
		"AnalyzeReader in chunks": func(o Options) *Report {
			r, err := small.analyzeReader(context.Background(), bytes.NewReader(data), o)
			if err != nil {
				t.Fatal(err)
			}
			return r
		},
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			var rec recorder
			rep := run(Options{Observer: &rec, SkipMessages: true})
			if len(rep.Messages) != 0 || len(rec.msgs) != len(want) {
				t.Fatalf("observed %d messages (report holds %d); want %d", len(rec.msgs), len(rep.Messages), len(want))
			}
			for i, m := range rec.msgs {
				w := want[i]
				if m.Line != w.Line || m.Role != w.Role || m.Cost != w.Cost || m.ToolCallID != w.ToolCallID || len(m.Calls) != len(w.Calls) {
					t.Fatalf("message %d: observed line %d role %v cost %d; want line %d role %v cost %d", i, m.Line, m.Role, m.Cost, w.Line, w.Role, w.Cost)
				}
				owner, _, ok := full.AnsweredCall(i)
				if !ok {
					owner = -1
				}
				if rec.owners[i] != owner {
					t.Fatalf("message %d (line %d): observed owner %d; AnsweredCall says %d", i, m.Line, rec.owners[i], owner)
				}
			}
		})
	}
	var rec recorder
	d := NewDocument(string(data), Options{Observer: &rec})
	d.Report()
	if len(rec.msgs) != 0 {
		t.Errorf("a document showed the observer %d messages", len(rec.msgs))
	}
}

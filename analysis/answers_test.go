package analysis

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/sessionls/sessionls/analysis/line"
)

// reportOf runs msgs through the collector, as Analyze does with parsed lines.
func reportOf(msgs []Message, opts Options) *Report {
	c := newCollector(opts, line.Parse)
	for i := range msgs {
		m := msgs[i]
		c.addMessage(&m)
	}
	c.rep.Lines = len(msgs)
	return c.finish()
}

// refAnsweredCall is the definition AnsweredCall must meet, by scanning:
// the nearest earlier assistant declaring the result's id, and the last
// call with that id in it.
func refAnsweredCall(msgs []Message, m int) (int, int, bool) {
	if msgs[m].Role != line.RoleTool {
		return -1, -1, false
	}
	for i := m - 1; i >= 0; i-- {
		if msgs[i].Role != line.RoleAssistant {
			continue
		}
		for k := len(msgs[i].Calls) - 1; k >= 0; k-- {
			if msgs[i].Calls[k].ID == msgs[m].ToolCallID {
				return i, k, true
			}
		}
	}
	return -1, -1, false
}

// refResults scans for the results of call c of assistant a: later tool
// results with its id, up to the next assistant declaring the id again.
func refResults(msgs []Message, a, c int) []int {
	id := msgs[a].Calls[c].ID
	var out []int
	for i := a + 1; i < len(msgs); i++ {
		switch msgs[i].Role {
		case line.RoleTool:
			if msgs[i].ToolCallID == id {
				out = append(out, i)
			}
		case line.RoleAssistant:
			for _, k := range msgs[i].Calls {
				if k.ID == id {
					return out
				}
			}
		}
	}
	return out
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name    string
		msgs    []Message
		answers map[int][2]int // tool result → (assistant, call)
		results map[[2]int][]int
	}{
		{"one call, two results", seq(asst("a"), tool("a"), tool("a")),
			map[int][2]int{1: {0, 0}, 2: {0, 0}}, map[[2]int][]int{{0, 0}: {1, 2}}},
		{"two calls answered out of order", seq(asst("a", "b"), tool("b"), user(), tool("a")),
			map[int][2]int{1: {0, 1}, 3: {0, 0}}, map[[2]int][]int{{0, 0}: {3}, {0, 1}: {1}}},
		{"a redeclared id: later results answer the later call", seq(asst("a"), tool("a"), asst("a"), tool("a"), tool("a")),
			map[int][2]int{1: {0, 0}, 3: {2, 0}, 4: {2, 0}}, map[[2]int][]int{{0, 0}: {1}, {2, 0}: {3, 4}}},
		{"an id twice in one message: the last call, results shared", seq(asst("a", "a"), tool("a")),
			map[int][2]int{1: {0, 1}}, map[[2]int][]int{{0, 0}: {1}, {0, 1}: {1}}},
		{"an orphan and a result before its call", seq(tool("a"), asst("a"), tool("x")),
			map[int][2]int{}, map[[2]int][]int{{1, 0}: nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reportOf(tt.msgs, Options{})
			for m := range tt.msgs {
				a, c, ok := r.AnsweredCall(m)
				want, wantOK := tt.answers[m]
				if ok != wantOK || (ok && [2]int{a, c} != want) {
					t.Errorf("AnsweredCall(%d) = %d, %d, %v; want %v, %v", m, a, c, ok, want, wantOK)
				}
			}
			for ac, want := range tt.results {
				if got := r.Results(ac[0], ac[1]); !slices.Equal(got, want) {
					t.Errorf("Results(%d, %d) = %v; want %v", ac[0], ac[1], got, want)
				}
			}
		})
	}
}

// TestAnswersMatchScans compares the index with the scans it replaced, on
// random sessions with few ids (so that ids repeat, across and within
// messages).
func TestAnswersMatchScans(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ids := []string{"a", "b", "c"}
	for round := range 500 {
		var msgs []Message
		for range rng.IntN(30) {
			switch rng.IntN(4) {
			case 0:
				msgs = append(msgs, user())
			case 1:
				calls := make([]string, rng.IntN(4))
				for k := range calls {
					calls[k] = ids[rng.IntN(len(ids))]
				}
				msgs = append(msgs, asst(calls...))
			default:
				msgs = append(msgs, tool(ids[rng.IntN(len(ids))]))
			}
		}
		msgs = seq(msgs...)
		r := reportOf(msgs, Options{})
		for m := range msgs {
			a, c, ok := r.AnsweredCall(m)
			ra, rc, rok := refAnsweredCall(msgs, m)
			if a != ra || c != rc || ok != rok {
				t.Fatalf("round %d: AnsweredCall(%d) = %d, %d, %v; the scan finds %d, %d, %v", round, m, a, c, ok, ra, rc, rok)
			}
			for k := range msgs[m].Calls {
				if got, want := r.Results(m, k), refResults(msgs, m, k); !slices.Equal(got, want) {
					t.Fatalf("round %d: Results(%d, %d) = %v; the scan finds %v", round, m, k, got, want)
				}
			}
		}
	}
}

func TestAnswersOutOfRange(t *testing.T) {
	msgs := seq(asst("a"), tool("a"))
	r := reportOf(msgs, Options{})
	for _, m := range []int{-1, 2, 100} {
		if _, _, ok := r.AnsweredCall(m); ok {
			t.Errorf("AnsweredCall(%d) found a call", m)
		}
	}
	for _, ac := range [][2]int{{-1, 0}, {0, -1}, {0, 1}, {1, 0}, {2, 0}} {
		if got := r.Results(ac[0], ac[1]); got != nil {
			t.Errorf("Results(%d, %d) = %v; want nil", ac[0], ac[1], got)
		}
	}
	// Without messages there is nothing to answer from.
	skip := reportOf(msgs, Options{SkipMessages: true})
	if _, _, ok := skip.AnsweredCall(1); ok {
		t.Error("AnsweredCall found a call in a report without messages")
	}
	if got := skip.Results(0, 0); got != nil {
		t.Errorf("Results = %v in a report without messages", got)
	}
}

// TestAnswersCostNoMemory: the links sit in Message's padding, so a
// Message is as large as it would be without them.
func TestAnswersCostNoMemory(t *testing.T) {
	type unlinked struct { // Message without answer and nextResult
		Line           int
		Role           line.Role
		Cost           int64
		ToolCallID     string
		ToolCallIDSpan line.Span
		IsError        bool
		Calls          []line.Call
		Depth          int
		Tokens         int64
	}
	if got, want := unsafe.Sizeof(Message{}), unsafe.Sizeof(unlinked{}); got != want {
		t.Errorf("Message is %d bytes; %d without the answer links", got, want)
	}
}

// TestAnswersSurvivePatch: typing inside a linked message's content
// patches the report (document.go), which must keep the message's links.
func TestAnswersSurvivePatch(t *testing.T) {
	e := fakeEngine()
	// The content comes last, so that typing in it moves no id.
	call := `{"role":"assistant","toolCalls":[{"id":"a","name":"run","input":{}}],"content":""}`
	result := `{"role":"tool","toolCallId":"a","isError":false,"content":"out"}`
	text := strings.Join([]string{call, result, jU(), result}, "\n")
	d := newDocument(e, text, Options{})
	d.Report()
	for _, ln := range []int{0, 1, 3} { // the assistant, then both results
		col := strings.Index(d.Line(ln), `"content":"`) + len(`"content":"`)
		p := Position{Line: ln, Character: col}
		if err := d.Apply([]Change{{Range: &Range{p, p}, Text: "typed"}}); err != nil {
			t.Fatal(err)
		}
		before := d.patched
		got := d.Report()
		if d.patched != before+1 {
			t.Fatalf("line %d: the edit was not patched", ln)
		}
		if want := e.analyze([]byte(d.Text()), Options{}); !reflect.DeepEqual(got, want) {
			t.Fatalf("line %d: the patched report differs from Analyze's", ln)
		}
		if a, c, ok := got.AnsweredCall(3); !ok || a != 0 || c != 0 {
			t.Fatalf("line %d: AnsweredCall(3) = %d, %d, %v", ln, a, c, ok)
		}
		if rs := got.Results(0, 0); !slices.Equal(rs, []int{1, 3}) {
			t.Fatalf("line %d: Results(0, 0) = %v", ln, rs)
		}
	}
}

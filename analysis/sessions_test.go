package analysis

import (
	"os"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
)

// Tests with the real parser on the demo sessions.

func readSession(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/sessions/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sessionSummary is what TestSessions checks of a report; comparable, so
// that a cutoff error compares by identity.
type sessionSummary struct {
	Lines, Messages, FirstInvalidLine int
	Findings                          string // codes(r), space-separated
	CutoffErr                         error
}

func TestSessions(t *testing.T) {
	tests := []struct {
		file   string
		budget int64
		want   sessionSummary
	}{
		{"crlf.jsonl", 0, sessionSummary{6, 3, 1, "1:invalid-json 3:invalid-json 5:invalid-json", nil}},
		{"crlf_ok.jsonl", 0, sessionSummary{10, 6, 0, "", nil}},
		{"units.jsonl", 600, sessionSummary{16, 16, 0, "3:swept-message 5:swept-message 8:swept-message 10:budget-cutoff " +
			"10:orphan-tool-result 13:duplicate-call-id 15:missing-tool-result", nil}},
		{"empty.jsonl", 600, sessionSummary{3, 0, 0, "1:budget-exceeded", ErrEmptyContext}},
		{"clean.jsonl", 600, sessionSummary{7, 7, 0, "4:budget-cutoff", nil}},
		{"clean.jsonl", 10, sessionSummary{7, 7, 0, "7:budget-exceeded", ErrBudgetTooSmall}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := Analyze(readSession(t, tt.file), Options{Budget: tt.budget})
			got := sessionSummary{r.Lines, len(r.Messages), r.FirstInvalidLine, strings.Join(codes(r), " "), r.CutoffErr}
			if got != tt.want {
				t.Fatalf("got %+v\nwant %+v\n%s", got, tt.want, dump(r))
			}
		})
	}
}

func TestRealParserLines(t *testing.T) {
	u := `{"role":"user","content":"hi"}`
	t.Run("BOM belongs to line 1", func(t *testing.T) {
		r := Analyze([]byte("\uFEFF"+u+"\n"+u), Options{})
		if r.FirstInvalidLine != 1 || r.Findings[0].Code != CodeInvalidJSON || len(r.Messages) != 1 {
			t.Fatalf("FirstInvalidLine=%d %s", r.FirstInvalidLine, dump(r))
		}
		if r.Width16 != int64(1+len(u)+1+len(u)) {
			t.Fatalf("Width16 = %d", r.Width16)
		}
	})
	t.Run("the runtime's line number", func(t *testing.T) {
		r := Analyze([]byte("\n\n"+u+"\n\n[\n"), Options{})
		want := "invalid session JSON at line 5 (the runtime's line 2): "
		if !strings.HasPrefix(r.Findings[0].Message, want) || !strings.HasSuffix(r.Findings[0].Message, "; the runtime refuses to load the file here") {
			t.Fatalf("got %q, want it to start with %q", r.Findings[0].Message, want)
		}
	})
	t.Run("a CRLF blank line is invalid, an empty one is skipped", func(t *testing.T) {
		r := Analyze([]byte(u+"\r\n\r\n"+u+"\r\n\n"), Options{})
		if r.FirstInvalidLine != 2 || r.InvalidLines != 1 || len(r.Messages) != 2 || r.Lines != 4 {
			t.Fatalf("FirstInvalidLine=%d InvalidLines=%d messages=%d Lines=%d", r.FirstInvalidLine, r.InvalidLines, len(r.Messages), r.Lines)
		}
	})
	t.Run("Width16 counts UTF-16 units as readFile decodes", func(t *testing.T) {
		text := `{"role":"user","content":"😀 é ` + "\xff" + `"}` + "\n"
		r := Analyze([]byte(text), Options{})
		if want := int64(len(`{"role":"user","content":"`) + 2 + 1 + 1 + 1 + 1 + 2 + 1); r.Width16 != want {
			t.Fatalf("Width16 = %d, want %d", r.Width16, want)
		}
	})
}

func TestParseLinesAllocations(t *testing.T) {
	// The engine's own per-line work allocates nothing for user and tool
	// lines once the tally has room (the parser's allocations are its own).
	text := []byte(strings.Repeat(`{"role":"user","content":"x"}`+"\n"+`{"role":"tool","content":"y","toolCallId":"a","isError":false}`+"\n", 100))
	res := map[byte]line.Result{
		'u': {Role: line.RoleUser, Cost: 10, Width16: 29},
		't': {Role: line.RoleTool, Cost: 10, ToolCallID: "a", Width16: 60},
	}
	parse := func(b []byte) line.Result { return res[b[10]] }
	var tl tally
	parseLines(parse, Options{}, text, &tl)
	allocs := testing.AllocsPerRun(20, func() {
		tl.reset()
		parseLines(parse, Options{}, text, &tl)
	})
	if allocs != 0 || len(tl.msgs) != 200 {
		t.Fatalf("%v allocations per run, %d messages", allocs, len(tl.msgs))
	}
}

package analysis

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/textfmt"
)

// Test lines for the fake parser.
func jU() string { return `{"role":"user","content":"hi"}` }
func jA(ids ...string) string {
	var cs []string
	for _, id := range ids {
		cs = append(cs, fmt.Sprintf(`{"id":"%s","name":"run","input":{}}`, id))
	}
	return `{"role":"assistant","content":"","toolCalls":[` + strings.Join(cs, ",") + `]}`
}
func jT(id string) string {
	return fmt.Sprintf(`{"role":"tool","content":"out","toolCallId":"%s","isError":false}`, id)
}

func fakeAnalyze(text string, opts Options) *Report {
	e := fakeEngine()
	return e.analyze([]byte(text), opts)
}

// codes renders findings as "line:code".
func codes(r *Report) []string {
	return render(r.Findings, func(f Finding) string { return fmt.Sprintf("%d:%s", f.Line, f.Code) })
}

// render is what f makes of each of xs, nil for none (so that a test
// table's nil want matches).
func render[T any](xs []T, f func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"clean", []string{jU(), jA("a", "b"), jT("a"), jT("b"), jA()}, nil},
		{"orphan", []string{jU(), jT("zz")}, []string{"2:orphan-tool-result"}},
		{"tool before its declaration is an orphan and the call misses its result",
			[]string{jT("a"), jA("a")}, []string{"1:orphan-tool-result", "2:missing-tool-result"}},
		{"missing result", []string{jA("a", "b"), jT("a")}, []string{"1:missing-tool-result"}},
		{"duplicate in one message", []string{jA("a", "a"), jT("a")}, []string{"1:duplicate-call-id"}},
		{"duplicate across rounds, both answered", []string{jA("a"), jT("a"), jA("a"), jT("a")}, []string{"3:duplicate-call-id"}},
		{"shadowed declaration never answered",
			[]string{jA("a"), jA("a"), jT("a")}, []string{"1:missing-tool-result", "2:duplicate-call-id"}},
		{"shadowed declaration, the shadowing one swept",
			[]string{jA("a", "b"), jA("a"), jT("b")}, []string{"1:missing-tool-result", "2:swept-message", "2:duplicate-call-id", "2:missing-tool-result"}},
		{"swept user", []string{jA("a"), jU(), jT("a")}, []string{"2:swept-message"}},
		{"swept tool of another assistant",
			[]string{jA("a"), jA("b"), jT("b"), jT("a")}, []string{"2:swept-message", "3:swept-message"}},
		{"invalid lines with checks on the valid ones",
			[]string{jU(), "{", jT("q"), `{"role":"system","content":""}`},
			[]string{"2:invalid-json", "3:orphan-tool-result", "4:invalid-record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fakeAnalyze(strings.Join(tt.lines, "\n")+"\n", Options{})
			if got := codes(r); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("findings = %v, want %v\n%s", got, tt.want, dump(r))
			}
		})
	}
}

func dump(r *Report) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %d:%d %s %s: %s %v\n", f.Line, f.Span.StartCol, f.Severity, f.Code, f.Message, f.Related)
	}
	return b.String()
}

func TestCheckMessages(t *testing.T) {
	lines := []string{jA("a"), jU(), jT("a"), jT("zz"), jA("a"), jA("k", "k")}
	r := fakeAnalyze(strings.Join(lines, "\n"), Options{})
	want := []string{
		`2 info swept-message: this user message is swept into the unit of the assistant at line 1 and is kept or dropped with it`,
		`4 warning orphan-tool-result: no earlier assistant declares toolCallId "zz": the runtime keeps this tool result as a unit of its own`,
		`5 warning duplicate-call-id: call id "a" is already declared at line 1; a tool result with this id belongs to the nearest declaration before it`,
		`5 warning missing-tool-result: no tool result answers call "a"`,
		`6 warning missing-tool-result: no tool result answers call "k"`,
		`6 warning duplicate-call-id: call id "k" is already declared earlier in this message; a tool result with this id belongs to the nearest declaration before it`,
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%d %s %s: %s", f.Line, f.Severity, f.Code, f.Message))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	dup := r.Findings[2]
	if len(dup.Related) != 1 || dup.Related[0].Line != 1 || dup.Related[0].Span.StartCol != strings.Index(lines[0], `"a"`) {
		t.Errorf("duplicate's Related = %+v, want line 1 at the first \"a\"", dup.Related)
	}
	if dup.Span.StartCol != strings.Index(lines[4], `"a"`) {
		t.Errorf("duplicate's span starts at %d", dup.Span.StartCol)
	}
}

func TestInvalidLineFindings(t *testing.T) {
	text := jU() + "\n\n" + "{\n" + "\n" + `{"role":"nope","content":""}` + "\n" + "[\n"
	r := fakeAnalyze(text, Options{})
	if r.FirstInvalidLine != 3 || r.InvalidLines != 3 || r.Loads() {
		t.Fatalf("FirstInvalidLine=%d InvalidLines=%d Loads=%v", r.FirstInvalidLine, r.InvalidLines, r.Loads())
	}
	want := []string{
		"invalid session JSON at line 3 (the runtime's line 2): not JSON; the runtime refuses to load the file here",
		"invalid session record at line 5 (the runtime's line 3): unknown role nope",
		"invalid session JSON at line 6 (the runtime's line 4): not JSON",
	}
	for i, f := range r.Findings {
		if f.Message != want[i] {
			t.Errorf("finding %d = %q, want %q", i, f.Message, want[i])
		}
	}
	if rel := r.Findings[0].Related; len(rel) != 2 || rel[0].Line != 5 || rel[1].Line != 6 {
		t.Errorf("first invalid line's Related = %+v, want lines 5 and 6", rel)
	}
	if rel := r.Findings[2].Related; len(rel) != 1 || rel[0].Line != 3 {
		t.Errorf("later invalid line's Related = %+v, want line 3", rel)
	}
	// Without blank lines the runtime's number is not repeated.
	r = fakeAnalyze("{\n", Options{})
	if got := r.Findings[0].Message; got != "invalid session JSON at line 1: not JSON; the runtime refuses to load the file here" {
		t.Errorf("got %q", got)
	}
}

func TestRelatedCap(t *testing.T) {
	r := fakeAnalyze(strings.Repeat("{\n", 150), Options{})
	if len(r.Findings) != 150 || len(r.Findings[0].Related) != maxRelated {
		t.Fatalf("%d findings, first with %d related; want 150 and %d", len(r.Findings), len(r.Findings[0].Related), maxRelated)
	}
}

func TestDisabled(t *testing.T) {
	text := strings.Join([]string{"{", jA("a"), jU(), jT("a"), jT("zz"), jA("b")}, "\n")
	all := codes(fakeAnalyze(text, Options{}))
	wantAll := []string{"1:invalid-json", "2:missing-tool-result"[:0] + "3:swept-message", "5:orphan-tool-result", "6:missing-tool-result"}
	if !reflect.DeepEqual(all, wantAll) {
		t.Fatalf("all findings = %v, want %v", all, wantAll)
	}
	for _, code := range []string{CodeInvalidJSON, CodeSweptMessage, CodeOrphanToolResult, CodeMissingToolResult} {
		r := fakeAnalyze(text, Options{Disabled: map[string]bool{code: true}})
		for _, f := range r.Findings {
			if f.Code == code {
				t.Errorf("disabled %s still reported: %s", code, f.Message)
			}
		}
		if len(r.Findings) != len(all)-1 {
			t.Errorf("disabling %s left %v", code, codes(r))
		}
		if r.FirstInvalidLine != 1 || r.Loads() {
			t.Errorf("disabling %s changed the verdict: FirstInvalidLine=%d", code, r.FirstInvalidLine)
		}
	}
}

func TestBudgetFindings(t *testing.T) {
	u, a, ta := jU(), jA("a"), jT("a")
	c := func(s string) int64 { return int64(len(s) + 1) } // fakeParse's cost
	text := strings.Join([]string{u, u, a, ta, u}, "\n") + "\n"
	newest := c(u)                 // line 5
	above := c(a) + c(ta) + newest // lines 3-5
	tests := []struct {
		name    string
		text    string
		budget  int64
		want    string
		line    int
		wantErr error
	}{
		{"cut", text, above + c(u), fmt.Sprintf("budget %s keeps lines 2–5: 3 units, %s chars; 1 message above is trimmed", textfmt.Thousands(above+c(u)), textfmt.Thousands(above+c(u))), 2, nil},
		{"cut before a unit that does not fit", text, above + c(u) - 1, fmt.Sprintf("budget %s keeps lines 3–5: 2 units, %s chars; 2 messages above are trimmed", textfmt.Thousands(above+c(u)-1), textfmt.Thousands(above)), 3, nil},
		{"all", text, 10_000, fmt.Sprintf("budget 10,000 keeps every message (lines 1–5): 4 units, %d chars", above+2*c(u)), 1, nil},
		{"too small", text, newest - 1, fmt.Sprintf("context budget cannot contain the smallest consistent message unit (budget %d; the newest unit, line 5, needs %d chars)", newest-1, newest), 5, ErrBudgetTooSmall},
		{"too small for a round", strings.Join([]string{u, a, ta}, "\n"), 100, fmt.Sprintf("context budget cannot contain the smallest consistent message unit (budget 100; the newest unit, lines 2–3, needs %d chars)", c(a)+c(ta)), 2, ErrBudgetTooSmall},
		{"empty", "\n\n", 100, "context budget cannot be empty (budget 100; the session has no messages)", 1, ErrEmptyContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fakeAnalyze(tt.text, Options{Budget: tt.budget})
			var f *Finding
			for i := range r.Findings {
				if strings.HasPrefix(r.Findings[i].Code, "budget-") {
					f = &r.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no budget finding:\n%s", dump(r))
			}
			if f.Message != tt.want || f.Line != tt.line {
				t.Fatalf("budget finding at %d: %q\nwant at %d: %q", f.Line, f.Message, tt.line, tt.want)
			}
			if !errors.Is(r.CutoffErr, tt.wantErr) || (tt.wantErr == nil) != (r.Cutoff != nil) {
				t.Fatalf("Cutoff=%+v CutoffErr=%v, want err %v", r.Cutoff, r.CutoffErr, tt.wantErr)
			}
		})
	}
	// No budget finding when the file does not load.
	r := fakeAnalyze("{\n"+text, Options{Budget: 100})
	if r.Cutoff != nil || r.CutoffErr != nil {
		t.Errorf("a file that does not load got a cutoff: %+v %v", r.Cutoff, r.CutoffErr)
	}
}

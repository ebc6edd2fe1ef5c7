package analysis

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/sessionls/sessionls/analysis/line"
)

func TestAnalyzeLines(t *testing.T) {
	u := jU()
	w := int64(len(u))
	tests := []struct {
		name      string
		text      string
		lines     int
		width16   int64
		msgLines  []int
		firstBad  int
		invalid   int
		badAtLine []int
	}{
		{"empty file", "", 0, 0, nil, 0, 0, nil},
		{"one newline", "\n", 1, 1, nil, 0, 0, nil},
		{"last line without newline counts", u, 1, w, []int{1}, 0, 0, nil},
		{"trailing newline adds no line", u + "\n", 1, w + 1, []int{1}, 0, 0, nil},
		{"empty lines are skipped but numbered", "\n\n" + u + "\n\n" + u + "\n", 5, 2*w + 5, []int{3, 5}, 0, 0, nil},
		{"CRLF lines keep their \\r", u + "\r\n" + u + "\r\n", 2, 2*w + 4, []int{1, 2}, 0, 0, nil},
		{"a blank CRLF line is not empty", u + "\r\n\r\n" + u + "\r\n", 3, 2*w + 5 + 1, []int{1, 3}, 2, 1, []int{2}},
		{"spaces only is not empty", u + "\n  \n", 2, w + 4, []int{1}, 2, 1, []int{2}},
		{"many trailing newlines", u + "\n\n\n", 3, w + 3, []int{1}, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fakeAnalyze(tt.text, Options{})
			var ml []int
			for _, m := range r.Messages {
				ml = append(ml, m.Line)
			}
			var bad []int
			for _, f := range r.Findings {
				bad = append(bad, f.Line)
			}
			if r.Lines != tt.lines || r.Width16 != tt.width16 || !reflect.DeepEqual(ml, tt.msgLines) ||
				r.FirstInvalidLine != tt.firstBad || r.InvalidLines != tt.invalid || !reflect.DeepEqual(bad, tt.badAtLine) {
				t.Fatalf("Lines=%d Width16=%d messages at %v FirstInvalidLine=%d InvalidLines=%d findings at %v\nwant %d %d %v %d %d %v",
					r.Lines, r.Width16, ml, r.FirstInvalidLine, r.InvalidLines, bad,
					tt.lines, tt.width16, tt.msgLines, tt.firstBad, tt.invalid, tt.badAtLine)
			}
		})
	}
}

func TestAnalyzeWidth16(t *testing.T) {
	// Width16 is what readFile's string length would be.
	text := `{"role":"user","content":"héllo 😀 世界"}` + "\n\n" + `{"role":"user","content":"x"}`
	r := fakeAnalyze(text, Options{})
	if want := int64(len(utf16.Encode([]rune(text)))); r.Width16 != want {
		t.Fatalf("Width16 = %d, want %d", r.Width16, want)
	}
	if !r.Loads() {
		t.Fatal("a small valid file does not load")
	}
	var total int64
	for _, m := range r.Messages {
		total += m.Cost
	}
	if r.TotalChars != total {
		t.Fatalf("TotalChars = %d, want %d", r.TotalChars, total)
	}
}

func TestTooLarge(t *testing.T) {
	// Build the report's size check without a 512 MiB file: feed the
	// collector a tally that claims the size.
	c := newCollector(Options{Budget: 100}, line.Parse)
	c.add(&tally{lines: 1, width16: MaxStringLength + 1})
	r := c.finish()
	if r.Loads() || len(r.Findings) != 1 || r.Findings[0].Code != CodeFileTooLarge || r.Cutoff != nil || r.CutoffErr != nil {
		t.Fatalf("Loads=%v findings=%v", r.Loads(), codes(r))
	}
	want := "the file is 536,870,889 UTF-16 code units long, more than node's maximum string length of 536,870,888: the runtime's readFile(path, \"utf8\") would throw RangeError: Invalid string length and the session would not load"
	if got := r.Findings[0].Message; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	c = newCollector(Options{}, line.Parse)
	c.add(&tally{lines: 1, width16: MaxStringLength})
	if r := c.finish(); !r.Loads() || len(r.Findings) != 0 {
		t.Fatalf("exactly MaxStringLength: Loads=%v findings=%v", r.Loads(), codes(r))
	}
}

// genText makes a random session text for the fake parser: valid messages of
// every role, broken lines, blank lines, CRLF, and long lines.
func genText(seed uint64, n int) string {
	state := seed
	rnd := func(k int) int {
		state = state*6364136223846793005 + 1442695040888963407
		return int(state>>33) % k
	}
	var b strings.Builder
	ids := []string{"a", "b", "c", "d"}
	for i := 0; i < n; i++ {
		switch rnd(10) {
		case 0:
			b.WriteString(jU())
		case 1, 2:
			var cs []string
			for range rnd(4) {
				cs = append(cs, ids[rnd(4)])
			}
			b.WriteString(jA(cs...))
		case 3, 4:
			b.WriteString(jT(ids[rnd(4)]))
		case 5:
			// empty line
		case 6:
			b.WriteString("{not json")
		case 7:
			b.WriteString(jU() + "\r")
		case 8:
			fmt.Fprintf(&b, `{"role":"user","content":"%s"}`, strings.Repeat("long ", rnd(40)))
		case 9:
			b.WriteString(`{"role":"system","content":""}`)
		}
		if i < n-1 || rnd(2) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestAnalyzeParallelSameAsSequential(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		text := []byte(genText(seed, 300))
		seqE := fakeEngine()
		seqE.parallelMin = 1 << 40
		parE := fakeEngine()
		parE.parallelMin = 0
		parE.workers = 3
		opts := Options{Budget: 2000}
		want, got := seqE.analyze(text, opts), parE.analyze(text, opts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: parallel report differs from sequential", seed)
		}
	}
}

func TestSplitLines(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "a\nbb\nccc\n", "abc\ndef", strings.Repeat("x\n", 100), "\n\n\n"} {
		for n := 1; n < 8; n++ {
			pieces := splitLines([]byte(text), n)
			joined := bytes.Join(pieces, nil)
			if string(joined) != text {
				t.Fatalf("%q in %d: pieces %q", text, n, pieces)
			}
			for k, p := range pieces {
				if len(p) == 0 || (k < len(pieces)-1 && p[len(p)-1] != '\n') {
					t.Fatalf("%q in %d: piece %d = %q does not end a line", text, n, k, p)
				}
			}
		}
	}
}

func TestDeepNesting(t *testing.T) {
	nest := func(n int) string {
		return `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
			strings.Repeat("[", n) + strings.Repeat("]", n) + `}]}` + "\n" +
			`{"role":"tool","content":"","toolCallId":"a","isError":false}` + "\n"
	}
	tests := []struct {
		name string
		text string
		opts Options
		want int // deep-nesting findings
	}{
		{"shallow", nest(10), Options{}, 0},
		{"at the limit", nest(DeepNestingLimit - 3), Options{}, 0},
		{"past the limit", nest(5000), Options{}, 1},
		{"disabled", nest(5000), Options{Disabled: map[string]bool{CodeDeepNesting: true}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Analyze([]byte(tt.text), tt.opts)
			got := 0
			for _, f := range r.Findings {
				if f.Code == CodeDeepNesting {
					got++
					if f.Line != 1 || f.Severity != SeverityWarning {
						t.Errorf("finding at line %d severity %v, want line 1 warning", f.Line, f.Severity)
					}
				}
			}
			if got != tt.want {
				t.Errorf("%d deep-nesting findings, want %d (findings %+v)", got, tt.want, r.Findings)
			}
			if !r.Loads() {
				t.Errorf("a deeply nested message still loads")
			}
		})
	}
	// The document's patch path must notice a line crossing the limit.
	d := NewDocument(nest(10), Options{})
	_ = d.Report()
	deep := strings.SplitN(nest(5000), "\n", 2)[0]
	if err := d.Apply([]Change{{Range: &Range{Start: Position{0, 0}, End: Position{0, len(d.Line(0))}}, Text: deep}}); err != nil {
		t.Fatal(err)
	}
	want := Analyze([]byte(d.Text()), Options{})
	if !reflect.DeepEqual(d.Report().Findings, want.Findings) {
		t.Errorf("document findings %+v, want %+v", d.Report().Findings, want.Findings)
	}
}

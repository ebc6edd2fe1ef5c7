package analysis

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/sessionls/sessionls/analysis/line"
)

// refusals lists a report's refusal findings as "line:code:start-end".
func refusals(rep *Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if IsRefusal(f.Code) {
			out = append(out, strings.Join([]string{itoa(f.Line), f.Code, itoa(f.Span.Start), itoa(f.Span.End)}, ":"))
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestJSONOnlyDamageMatchesSeed: on files whose lines are all seed
// messages or damaged ones (the damage corpus, written by node's own
// appendFile, and the damage cases), a JSON-only analysis names the same
// refused lines, at the same spans, with the same causes; its valid lines
// are exactly the seed's messages.
func TestJSONOnlyDamageMatchesSeed(t *testing.T) {
	u := `{"role":"user","content":"x"}`
	head := `{"role":"tool","content":"` + strings.Repeat("a", ChunkSize-26)
	texts := map[string]string{
		"cut at the end":     u + "\n" + `{"role":"user","content":"par` + "\n",
		"cut, next append":   `{"role":"user","content":"par` + u + "\n",
		"junk after":         u + " junk\n",
		"NUL tail":           u + "\n" + `{"role":"user","content":"lo` + "\x00\x00\x00",
		"split":              `{"role":"user","content":"a` + "\n\n" + `b"}` + "\n",
		"interleaved":        head + u + "\n" + `aa","toolCallId":"a","isError":false}` + "\n",
		"blank after a cut":  `{"role":"user","content":"a` + "\n \n",
		"stray piece":        "abc\n",
		"bom":                "\xef\xbb\xbf" + u + "\n",
		"trailing comma":     `{"role":"user","content":"x",}` + "\n" + u,
		"control character":  `{"role":"user","content":"a` + "\t" + `b"}`,
		"several cuts":       u + "\n" + `{"role":"us` + "\n" + `{"role":"user","content":"par` + "\n" + u + "\n",
		"lone surrogate ok":  `{"role":"user","content":"\ud800"}` + "\n",
		"deep but valid":     strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n",
		"invalid UTF-8 text": "{\"role\":\"user\",\"content\":\"\xff\"}\n",
	}
	files, err := filepath.Glob("../testdata/damage/samples/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("the damage corpus: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(f)] = string(b)
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			seed := Analyze([]byte(text), Options{})
			for _, js := range []*Report{Analyze([]byte(text), Options{JSONOnly: true}), jsonStream(t, text, 7)} {
				if got, want := refusals(js), jsonRefusals(seed); !reflect.DeepEqual(got, want) {
					t.Errorf("JSON-only refusals %v, seed %v", got, want)
				}
				if js.Lines != seed.Lines || js.Width16 != seed.Width16 {
					t.Errorf("lines %d width %d, seed %d %d", js.Lines, js.Width16, seed.Lines, seed.Width16)
				}
				var recLines, msgLines []int
				for _, r := range js.Records {
					recLines = append(recLines, r.Line)
				}
				for _, m := range seed.Messages {
					msgLines = append(msgLines, m.Line)
				}
				for _, f := range seed.Findings {
					if f.Code == CodeInvalidRecord {
						msgLines = append(msgLines, f.Line) // valid JSON
					}
				}
				slices.Sort(msgLines)
				if !reflect.DeepEqual(recLines, msgLines) {
					t.Errorf("records at %v, seed's JSON-valid lines %v", recLines, msgLines)
				}
				if len(js.Messages) != 0 || len(js.Units) != 0 {
					t.Errorf("a JSON-only report has %d messages, %d units", len(js.Messages), len(js.Units))
				}
				for _, f := range js.Findings {
					if f.Code == CodeInvalidRecord || strings.Contains(f.Message, "runtime") {
						t.Errorf("JSON-only finding speaks of the runtime's records: %+v", f)
					}
				}
			}
		})
	}
}

// jsonRefusals are the seed refusals but invalid-record (valid JSON).
func jsonRefusals(rep *Report) []string {
	var out []string
	for _, r := range refusals(rep) {
		if !strings.Contains(r, ":"+CodeInvalidRecord+":") {
			out = append(out, r)
		}
	}
	return out
}

// jsonStream is the JSON-only analysis of text by the stream reader, with
// tiny chunks and one byte per read.
func jsonStream(t *testing.T, text string, chunk int) *Report {
	t.Helper()
	e := streamEngine(line.ParseJSON, chunk, 3)
	rep, err := e.analyzeReader(context.Background(), iotest.OneByteReader(strings.NewReader(text)), Options{JSONOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// decoder keeps the lines it is shown: Decode copies (it may run on any
// worker), Record checks the order.
type decoder struct {
	mu      sync.Mutex
	decoded int
	recs    []Record
}

func (d *decoder) Decode(l []byte) any {
	d.mu.Lock()
	d.decoded++
	d.mu.Unlock()
	return string(l)
}

func (d *decoder) Record(r *Record) { d.recs = append(d.recs, *r) }

// TestJSONOnlyRecords: any value JSON.parse accepts is a record, with its
// line, its bytes' range in the input, its value's span and what the
// RecordReader decoded, shown in line order, the same from Analyze and
// from the stream reader whatever the chunks; a refused line is none.
func TestJSONOnlyRecords(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}`,
		``,
		`  {"type":"summary","summary":"x","leafUuid":"a"} `,
		`{"type":"assistant","message":{"content":[{"type":"tool_use"`,
		`[1,2,3]`,
		`"just a string"`,
		`{"role":"user","content":"a seed message is JSON too"}`,
		`{"a":"é😀"}`,
	}
	text := strings.Join(lines, "\n") // no final '\n'
	want := map[int]string{1: lines[0], 3: lines[2], 5: lines[4], 6: lines[5], 7: lines[6], 8: lines[7]}
	check := func(t *testing.T, rep *Report, d *decoder) {
		t.Helper()
		if len(rep.Records) != len(want) || len(d.recs) != len(want) || d.decoded != len(want) {
			t.Fatalf("%d records, %d shown, %d decoded; want %d", len(rep.Records), len(d.recs), d.decoded, len(want))
		}
		for i, r := range rep.Records {
			if !reflect.DeepEqual(r, d.recs[i]) {
				t.Errorf("record %d shown as %+v, reported as %+v", i, d.recs[i], r)
			}
			l, ok := want[r.Line]
			if !ok {
				t.Errorf("line %d is a record", r.Line)
				continue
			}
			if got := text[r.Offset : r.Offset+int64(r.Len)]; got != l || r.Value != l {
				t.Errorf("line %d: bytes %q, value %v, want %q", r.Line, got, r.Value, l)
			}
			if v := strings.TrimSpace(l); l[r.Span.Start:r.Span.End] != v {
				t.Errorf("line %d: span %+v covers %q", r.Line, r.Span, l[r.Span.Start:r.Span.End])
			}
			if r.Width16 != line.Width16([]byte(l)) {
				t.Errorf("line %d: width %d", r.Line, r.Width16)
			}
			if i > 0 && rep.Records[i-1].Line >= r.Line {
				t.Errorf("records out of order at %d", i)
			}
		}
		if got := refusals(rep); len(got) != 1 || !strings.HasPrefix(got[0], "4:truncated-record:") {
			t.Errorf("refusals %v, want the cut line 4", got)
		}
		if rep.FirstInvalidLine != 4 || rep.InvalidLines != 1 || rep.Lines != 8 {
			t.Errorf("first invalid %d, invalid %d, lines %d", rep.FirstInvalidLine, rep.InvalidLines, rep.Lines)
		}
	}
	d := &decoder{}
	check(t, Analyze([]byte(text), Options{JSONOnly: true, Records: d, Budget: 10, Tokens: panicCounter{}}), d)
	for _, chunk := range []int{5, 16, 1 << 20} {
		d := &decoder{}
		e := streamEngine(line.ParseJSON, chunk, 3)
		rep, err := e.analyzeReader(context.Background(), iotest.HalfReader(strings.NewReader(text)), Options{JSONOnly: true, Records: d})
		if err != nil {
			t.Fatal(err)
		}
		check(t, rep, d)
	}
	// In parallel pieces (Analyze's path for large inputs).
	e := newEngine()
	e.parse, e.parallelMin, e.workers = line.ParseJSON, 1, 3
	d = &decoder{}
	check(t, e.analyze([]byte(text), Options{JSONOnly: true, Records: d}), d)
	// SkipMessages: shown, not kept.
	d = &decoder{}
	rep := Analyze([]byte(text), Options{JSONOnly: true, Records: d, SkipMessages: true})
	if rep.Records != nil || len(d.recs) != len(want) {
		t.Errorf("SkipMessages: %d records kept, %d shown", len(rep.Records), len(d.recs))
	}
}

// panicCounter must not be called on a JSON-only analysis: it counts
// the runtime's messages.
type panicCounter struct{}

func (panicCounter) Message([]byte) (int, error) { panic("a JSON-only analysis counted tokens") }

// TestJSONOnlyStreamFile: from a file (which the stream reads again for a
// long line) the records' offsets are the file's.
func TestJSONOnlyStreamFile(t *testing.T) {
	long := `{"k":"` + strings.Repeat("x", 3000) + `"}`
	text := `{"a":1}` + "\n" + long + "\n" + `{"b":2}` + "\n"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := streamEngine(line.ParseJSON, 64, 2)
	e.settleFrom = 128
	rep, err := e.analyzeReader(context.Background(), f, Options{JSONOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Records) != 3 {
		t.Fatalf("%d records", len(rep.Records))
	}
	for _, r := range rep.Records {
		b := []byte(text)[r.Offset : r.Offset+int64(r.Len)]
		if !bytes.HasPrefix(b, []byte("{")) || !bytes.HasSuffix(b, []byte("}")) {
			t.Errorf("line %d: bytes %.20q", r.Line, b)
		}
	}
}

// TestCompleteGroupsUnits: a dialect's messages, handed to Complete, get
// the engine's units, links, totals, cutoff and sorted findings.
func TestCompleteGroupsUnits(t *testing.T) {
	rep := Analyze([]byte("{\"a\":1}\n{\n{\"b\":2}\n{\"c\":3}\n"), Options{JSONOnly: true})
	msgs := []Message{
		{Line: 1, Role: line.RoleUser, Cost: 10},
		{Line: 3, Role: line.RoleAssistant, Cost: 20, Calls: []line.Call{{ID: "t1", Name: "Bash"}}},
		{Line: 4, Role: line.RoleTool, Cost: 30, ToolCallID: "t1"},
	}
	checks := []Finding{
		{Line: 4, Severity: SeverityError, Code: CodeOrphanToolResult, Message: "x"},
		{Line: 1, Severity: SeverityError, Code: CodeMissingToolResult, Message: "y"},
	}
	rep.FirstInvalidLine = 0 // this dialect's loader skips the line JSON.parse refuses
	rep.Complete(msgs, checks, Options{Budget: 55, Disabled: map[string]bool{CodeMissingToolResult: true}})
	if len(rep.Units) != 2 || rep.Units[1].First != 1 || rep.Units[1].Chars != 50 || rep.TotalChars != 60 {
		t.Fatalf("units %+v, total %d", rep.Units, rep.TotalChars)
	}
	if m, c, ok := rep.AnsweredCall(2); !ok || m != 1 || c != 0 {
		t.Errorf("AnsweredCall(2) = %d, %d, %v", m, c, ok)
	}
	if rep.Cutoff == nil || rep.Cutoff.FirstUnit != 1 {
		t.Errorf("cutoff %+v (%v)", rep.Cutoff, rep.CutoffErr)
	}
	var codes []string
	for _, f := range rep.Findings {
		codes = append(codes, itoa(f.Line)+":"+f.Code)
	}
	if want := []string{"2:truncated-record", "3:budget-cutoff", "4:orphan-tool-result"}; !reflect.DeepEqual(codes, want) {
		t.Errorf("findings %v, want %v", codes, want)
	}
}

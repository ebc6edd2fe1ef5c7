package analysis

import (
	"strconv"
	"strings"
	"testing"
)

// TestDamageCauses: a refused line is reported under the cause its bytes
// and its neighbours show, with a message that names it; a line whose
// cause is none of them keeps the runtime's code.
func TestDamageCauses(t *testing.T) {
	u := `{"role":"user","content":"x"}`
	head := `{"role":"tool","content":"` + strings.Repeat("a", ChunkSize-26)
	tests := []struct {
		name string
		text string
		want []string // "line:code:a word of the message"
	}{
		{"cut at the end", u + "\n" + `{"role":"user","content":"par` + "\n", []string{"2:truncated-record:nothing follows"}},
		{"cut, next append on the line", `{"role":"user","content":"par` + u + "\n", []string{"1:truncated-record:byte 29"}},
		{"not a cut: junk after a record", u + " junk\n", []string{"1:invalid-json:invalid session JSON"}},
		{"NUL tail", u + "\n" + `{"role":"user","content":"lo` + "\x00\x00\x00", []string{"2:zero-filled:3 NUL bytes"}},
		{"short NUL run then a record", `{"role":"user","content":"lo` + "\x00\x00" + u + "\n", []string{"1:zero-filled:2 NUL bytes"}},
		{"a lone NUL in a string is a control character", `{"role":"user","content":"a` + "\x00" + `b"}` + "\n", []string{"1:invalid-json:U+0000"}},
		{"split, an empty line inside", `{"role":"user","content":"a` + "\n\n" + `b"}` + "\n", []string{"1:split-record:raw line break", "3:split-record:begun on line 1"}},
		{"a blank line after a cut is no piece", `{"role":"user","content":"a` + "\n \n", []string{"1:truncated-record:nothing follows", "2:invalid-json:blank line"}},
		{"interleaved", head + u + "\n" + `aa","toolCallId":"a","isError":false}` + "\n", []string{"1:interleaved-record:byte 524,288", "2:interleaved-record:likely line 1"}},
		{"a stray piece without a long head", "abc\n", []string{"1:invalid-json:invalid session JSON"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rep := range []*Report{Analyze([]byte(tc.text), Options{}), documentReport(t, tc.text)} {
				var got []string
				for _, f := range rep.Findings {
					if IsRefusal(f.Code) {
						got = append(got, f.Code)
					}
				}
				if len(got) != len(tc.want) {
					t.Fatalf("refusals %v, want %v", got, tc.want)
				}
				k := 0
				for _, f := range rep.Findings {
					if !IsRefusal(f.Code) {
						continue
					}
					parts := strings.SplitN(tc.want[k], ":", 3)
					if want := parts[0] + ":" + parts[1]; strconv.Itoa(f.Line)+":"+f.Code != want || !strings.Contains(f.Message, parts[2]) {
						t.Errorf("finding %d:%s %q, want %s with %q", f.Line, f.Code, f.Message, want, parts[2])
					}
					k++
				}
			}
		})
	}
}

// TestDamageCausesUnderTheCap: past Options.MaxFindingsPerCode the lines
// are counted under their cause's code, as the listed ones are reported.
func TestDamageCausesUnderTheCap(t *testing.T) {
	var b strings.Builder
	for range 5 {
		b.WriteString(`{"role":"user","content":"a` + "\n" + `b"}` + "\n")
	}
	rep := Analyze([]byte(b.String()), Options{MaxFindingsPerCode: 3})
	if len(rep.Omitted) != 1 || rep.Omitted[0].Code != CodeSplitRecord || rep.Omitted[0].N != 7 {
		t.Fatalf("omitted %+v, want 7 split-record", rep.Omitted)
	}
}

// documentReport is the report of a Document opened on text (the
// language server's path, which classifies its refused lines itself).
func documentReport(t *testing.T, text string) *Report {
	t.Helper()
	return NewDocument(text, Options{}).Report()
}

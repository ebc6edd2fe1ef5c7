package line

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"
)

// jsonString writes s as a JSON string the way a runtime would (no HTML
// escaping), for building realistic lines.
func jsonString(tb testing.TB, s string) string {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		tb.Fatalf("encoding a benchmark string: %v", err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// benchLines are realistic coding-agent transcript lines.
func benchLines(tb testing.TB) []struct{ name, line string } {
	tb.Helper()
	// A frozen copy of 8 KB of this package's source, so the line stays
	// the same while the parser changes and figures stay comparable.
	src, err := os.ReadFile("testdata/code8k.go.txt")
	if err != nil {
		tb.Fatalf("reading Go source for a benchmark line: %v", err)
	}
	code := string(src)
	markdown := strings.Repeat("## Plan\nThe parser validates each line in one pass and measures the \"normalized\" message without building it.\n- First, decode strings only where needed.\n- Then check the record rules in order.\n\n", 40)
	prose := strings.Repeat("Der Parser prüft jede Zeile — 日本語のテキストと絵文字 😀🚀 — «ça marche», naïve café. ", 60)
	input := `{"path":"analysis/line/parse.go","edits":[{"old":` + jsonString(tb, code[:1500]) + `,"new":` + jsonString(tb, code[1500:3000]) + `}],"dryRun":false,"limits":{"lines":2000,"timeout":30.5}}`
	return []struct{ name, line string }{
		{"tool-result-go-8KB", `{"role":"tool","content":` + jsonString(tb, code) + `,"toolCallId":"call_01HZY3K4","isError":false}`},
		{"user-non-ASCII", `{"role":"user","content":` + jsonString(tb, prose) + `}`},
		{"assistant-markdown", `{"role":"assistant","content":` + jsonString(tb, markdown) + `,"toolCalls":[]}`},
		{"assistant-toolCalls", `{"role":"assistant","content":` + jsonString(tb, "I'll edit the parser now.\n") + `,"toolCalls":[{"id":"call_01","name":"edit_file","input":` + input + `},{"id":"call_02","name":"run","input":{"cmd":"go test ./...","env":{"CI":"1"}}}]}`},
	}
}

func BenchmarkParse(b *testing.B) {
	for _, c := range benchLines(b) {
		line := []byte(c.line)
		if r := Parse(line); r.Verdict != Valid {
			b.Fatalf("%s: benchmark line is %v: %s", c.name, r.Verdict, r.Reason)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				Parse(line)
			}
		})
	}
}

// TestBenchLinesAgree keeps the benchmark lines honest.
func TestBenchLinesAgree(t *testing.T) {
	for _, c := range benchLines(t) {
		checkAgainstRef(t, []byte(c.line))
	}
}

// transcriptLines is a realistic coding-agent transcript of about size
// bytes, split into lines.
func transcriptLines(tb testing.TB, size int64) (lines [][]byte, total int64) {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := transcript.Write(&buf, size, 1); err != nil {
		tb.Fatalf("writing a transcript: %v", err)
	}
	for _, l := range bytes.Split(buf.Bytes(), []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, l)
			total += int64(len(l)) + 1
		}
	}
	return lines, total
}

// BenchmarkParseTranscript parses every line of a realistic 8 MB transcript.
func BenchmarkParseTranscript(b *testing.B) {
	lines, total := transcriptLines(b, 8<<20)
	for _, l := range lines {
		if r := Parse(l); r.Verdict != Valid {
			b.Fatalf("transcript line is %v: %s", r.Verdict, r.Reason)
		}
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			Parse(l)
		}
	}
}

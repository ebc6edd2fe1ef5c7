package mappage

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/ctxmap"
	"github.com/sessionls/sessionls/analysis/dialect/claude"
	"github.com/sessionls/sessionls/analysis/dialect/codex"
	"github.com/sessionls/sessionls/analysis/tokens"
)

// TestCompactionMarks: a Claude Code or Codex CLI transcript's compaction
// points are in the map (line, what they replaced, where they fall) and
// drawn on the strip, each linking to its line, with a legend entry, the
// last one saying what a resume sends (Report.Resume, in budget's words);
// a file without any has neither.
func TestCompactionMarks(t *testing.T) {
	tests := []struct {
		file    string
		analyze func([]byte, analysis.Options) *analysis.Report
		want    []ctxmap.Compaction // At is checked apart
	}{
		{"claude-code/clean.jsonl", claude.Dialect{}.Analyze, []ctxmap.Compaction{{Line: 21, Summary: "the history before it replaced by a 225-char summary",
			Resume: "a resume sends lines 22–29: 7 messages, 1,177 chars"}}},
		{"codex/clean.jsonl", codex.Dialect{}.Analyze, []ctxmap.Compaction{{Line: 23, Summary: "13 messages replaced by a 340-char summary",
			Resume: "a resume sends lines 23–40: 11 messages, 2,118 chars"}}},
		{"codex/clean.jsonl", func(data []byte, o analysis.Options) *analysis.Report {
			rep := codex.Dialect{}.Analyze(data, o)
			rep.Compactions = nil
			return rep
		}, nil},
	}
	for _, tc := range tests {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "dialects", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		rep := tc.analyze(data, analysis.Options{})
		m, err := ctxmap.FromReport(rep, ctxmap.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Compactions) != len(tc.want) {
			t.Fatalf("%s: compactions %+v, want %+v", tc.file, m.Compactions, tc.want)
		}
		for i, c := range m.Compactions {
			if c.Line != tc.want[i].Line || c.Summary != tc.want[i].Summary || c.Resume != tc.want[i].Resume {
				t.Errorf("%s: compaction %+v, want %+v", tc.file, c, tc.want[i])
			}
			// Where it falls: the size of the units ending before its line.
			var at int64
			for _, u := range rep.Units {
				if u.EndLine < c.Line {
					at += u.Chars
				}
			}
			if c.At != at {
				t.Errorf("%s: compaction at line %d falls at %d, want %d", tc.file, c.Line, c.At, at)
			}
		}
		var b bytes.Buffer
		if err := Write(&b, m, Options{Name: tc.file, FileURL: "file:///x.jsonl"}); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if got := strings.Count(page, `<a class="cmp"`); got != len(tc.want) {
			t.Errorf("%s: %d compaction marks drawn, want %d", tc.file, got, len(tc.want))
		}
		for _, c := range tc.want {
			if mark := `href="file:///x.jsonl#L` + strconv.Itoa(c.Line) + `" data-line="` + strconv.Itoa(c.Line) + `"`; !strings.Contains(page, `<a class="cmp" `+mark) {
				t.Errorf("%s: no compaction mark %s", tc.file, mark)
			}
			if say := "compaction: " + c.Summary + " · " + c.Resume; !strings.Contains(page, say) {
				t.Errorf("%s: the page does not say %q", tc.file, say)
			}
		}
		if legend := strings.Contains(page, "compaction</span>"); legend != (len(tc.want) > 0) {
			t.Errorf("%s: compaction in the legend: %v", tc.file, legend)
		}
	}
}

// TestCompactionResumeTokens: with tokens counted, the last compaction's
// resume adds its tokens, as `budget --tokens` does.
func TestCompactionResumeTokens(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "dialects", "codex", "clean.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ctxmap.FromReport(codex.Dialect{}.Analyze(data, analysis.Options{Tokens: counter}), ctxmap.Config{ByTokens: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a resume sends lines 23–40: 11 messages, 2,118 chars, 626 tokens"; len(m.Compactions) != 1 || m.Compactions[0].Resume != want {
		t.Errorf("compactions %+v, want one whose resume is %q", m.Compactions, want)
	}
}

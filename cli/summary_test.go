package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/textfmt"
	"github.com/sessionls/sessionls/internal/transcript"
)

// TestStepSummary: check --step-summary appends the breakdown to
// $GITHUB_STEP_SUMMARY, in the same run, without changing what check
// prints or how it exits; its totals and cutoff are budget's.
func TestStepSummary(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	sess := filepath.Join(dir, "session.jsonl")
	writeFile(t, sess, transcript.Session(300, 9), 0o644)
	summary := filepath.Join(dir, "summary.md")
	writeFile(t, summary, []byte("# earlier step\n"), 0o644)
	vars := map[string]string{"GITHUB_STEP_SUMMARY": summary}

	files := []string{sess, sessionPath("clean"), sessionPath("demo")}
	args := append([]string{"check", "--format", "github", "--budget", "50000"}, files...)
	plain := sessionls(t, args...)
	e, out, errb := testEnv("", vars)
	r := runWith(t, e, out, errb, append([]string{"check", "--step-summary"}, args[1:]...)...)
	if r.code != plain.code || r.stdout != plain.stdout {
		t.Errorf("--step-summary changed check: code %d (was %d), stdout equal %v", r.code, plain.code, r.stdout == plain.stdout)
	}
	b := readFile(t, summary)
	md := string(b)
	if !strings.HasPrefix(md, "# earlier step\n## sessionls: where the context goes\n") {
		t.Errorf("the summary was not appended:\n%s", md)
	}

	// Totals: the files that load, and demo's valid lines, as budget counts them.
	var total int64
	for _, f := range files {
		bj := sessionls(t, "budget", "--format", "json", "--max-chars", "50000", f)
		var j budgetJSON
		if err := json.Unmarshal([]byte(bj.stdout), &j); err != nil {
			t.Fatal(err)
		}
		if f == sessionPath("demo") {
			total += 1351 // its valid lines (budget's text output; the page test checks it)
			if !strings.Contains(md, "| testdata/sessions/demo.jsonl | **no**: (line 7 is invalid) |") {
				t.Errorf("demo's row does not say it does not load:\n%s", md)
			}
			continue
		}
		total += j.TotalChars
		if j.Cutoff != nil {
			want := fmt.Sprintf("50,000 keeps from line %d (%s of %s units", j.Cutoff.FirstKeptLine, textfmt.Thousands(j.Cutoff.KeptUnits), textfmt.Thousands(len(j.Units)))
			if !strings.Contains(md, want) {
				t.Errorf("%s: the summary lacks %q:\n%s", f, want, md)
			}
		}
	}
	m := regexp.MustCompile(`\| \*\*total\*\* \| \*\*[\d,]+\*\* \| \*\*([\d,]+)\*\* \|`).FindStringSubmatch(md)
	if m == nil || m[1] != textfmt.Thousands(total) {
		t.Errorf("role total %v; want %s:\n%s", m, textfmt.Thousands(total), md)
	}
	if !strings.Contains(md, "### Tool results by tool name (all 3 files)") || !strings.Contains(md, "### Largest units") {
		t.Errorf("tables missing:\n%s", md)
	}
}

func TestStepSummaryRefused(t *testing.T) {
	atRepoRoot(t)
	r := sessionls(t, "check", "--step-summary", sessionPath("clean"))
	if r.code != ExitError || !strings.Contains(r.stderr, "GITHUB_STEP_SUMMARY") {
		t.Errorf("without $GITHUB_STEP_SUMMARY: code %d stderr %q", r.code, r.stderr)
	}
	e, out, errb := testEnv("", map[string]string{"GITHUB_STEP_SUMMARY": filepath.Join(t.TempDir(), "s.md")})
	r = runWith(t, e, out, errb, "check", "--step-summary", "--diff", sessionPath("clean"))
	if r.code != ExitError || !strings.Contains(r.stderr, "--fix or --diff") {
		t.Errorf("with --diff: code %d stderr %q", r.code, r.stderr)
	}
	// An unwritable summary is an I/O error, after the findings.
	e, out, errb = testEnv("", map[string]string{"GITHUB_STEP_SUMMARY": t.TempDir()})
	r = runWith(t, e, out, errb, "check", "--step-summary", sessionPath("clean"))
	if r.code != ExitError || !strings.Contains(r.stderr, "cannot write the step summary") {
		t.Errorf("unwritable: code %d stderr %q", r.code, r.stderr)
	}
}

// TestStepSummaryEscapes: a tool name cannot break the table or add markup.
func TestStepSummaryEscapes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.jsonl")
	data := `{"role":"assistant","content":"","toolCalls":[{"id":"1","name":"a|b<img src=x>\n| c","input":null}]}` + "\n" +
		`{"role":"tool","toolCallId":"1","isError":false,"content":"x"}` + "\n"
	writeFile(t, p, []byte(data), 0o644)
	summary := filepath.Join(dir, "s.md")
	e, out, errb := testEnv("", map[string]string{"GITHUB_STEP_SUMMARY": summary})
	if r := runWith(t, e, out, errb, "check", "--step-summary", p); r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	b, _ := os.ReadFile(summary)
	if strings.Contains(string(b), "<img") || !strings.Contains(string(b), `| a\|b&lt;img src=x&gt;\x0a\| c |`) {
		t.Errorf("tool name not escaped:\n%s", b)
	}
}

package cli

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/randjsonl"
)

// blankLines writes a file of n lines of one space: n invalid-json
// findings, each with a safe fix (a crash's blank tail).
func blankLines(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "blank.jsonl")
	writeFile(t, path, []byte(strings.Repeat(" \n", n)), 0o644)
	return path
}

// TestFindingsCap: past maxListedPerCode findings of a code in a file,
// every format lists the first ones and says how many more there are,
// while the totals, the fixable counts and the exit code count them all.
func TestFindingsCap(t *testing.T) {
	const n = 5000
	more := n - maxListedPerCode
	path := blankLines(t, n)
	run := func(args ...string) result {
		e, out, errb := testEnv("", nil)
		return runWith(t, e, out, errb, append([]string{"check"}, args...)...)
	}

	r := run(path)
	r.wantCode(t, ExitFindings)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if want := maxListedPerCode + 3; len(lines) != want {
		t.Fatalf("the findings listed, the line about the rest, the summary, the fixes: len(lines) = %d, want %d: %+v", len(lines), want, lines)
	}
	if !strings.Contains(lines[maxListedPerCode], "… and 4,900 more invalid-json findings (only the first 100 of each code are listed per file)") {
		t.Errorf("lines[maxListedPerCode] = %q, want it to contain %q", lines[maxListedPerCode], "… and 4,900 more invalid-json findings (only the first 100 of each code are listed per file)")
	}
	r.wantStdout(t, "Found 5,000 errors, 0 warnings in 1 of 1 file.", "5000 fixable with --fix.")

	r = run("--format", "json", path)
	r.wantCode(t, ExitFindings)
	var got []map[string]any
	r.decodeJSON(t, &got)
	if len(got) != maxListedPerCode {
		t.Fatalf("len(got) = %d, want %d: %+v", len(got), maxListedPerCode, got)
	}
	wantEqual(t, `got[len(got)-1]["omitted"]`, got[len(got)-1]["omitted"], float64(more))
	if _, ok := got[0]["omitted"]; ok {
		t.Errorf("got[0] = %+v, want it without the key %q", got[0], "omitted")
	}

	r = run("--format", "github", path)
	r.wantCode(t, ExitFindings)
	if got := strings.Count(r.stdout, "::error "); got != maxListedPerCode {
		t.Errorf(`strings.Count(r.stdout, "::error ") = %v, want %v`, got, maxListedPerCode)
	}
	if want := "::notice file=" + filepath.ToSlash(path) + ",title=sessionls(invalid-json)::… and 4,900 more invalid-json findings"; !strings.Contains(r.stdout, want) {
		t.Errorf("r.stdout = %q, want it to contain %q", r.stdout, want)
	}

	r = run("--format", "sarif", path)
	r.wantCode(t, ExitFindings)
	var log sarifLog
	r.decodeJSON(t, &log)
	if len(log.Runs[0].Results) != maxListedPerCode {
		t.Fatalf("len(log.Runs[0].Results) = %d, want %d: %+v", len(log.Runs[0].Results), maxListedPerCode, log.Runs[0].Results)
	}
	notes := log.Runs[0].Invocations[0].ToolExecutionNotifications
	if len(notes) != 1 {
		t.Fatalf("len(notes) = %d, want %d: %+v", len(notes), 1, notes)
	}
	if notes[0].Level != "note" {
		t.Errorf("notes[0].Level = %q, want %q", notes[0].Level, "note")
	}
	if !strings.Contains(notes[0].Message.Text, "4,900 more invalid-json findings") {
		t.Errorf("notes[0].Message.Text = %q, want it to contain %q", notes[0].Message.Text, "4,900 more invalid-json findings")
	}
	if notes[0].Descriptor.ID != "invalid-json" {
		t.Errorf("notes[0].Descriptor.ID = %q, want %q", notes[0].Descriptor.ID, "invalid-json")
	}
	if !log.Runs[0].Invocations[0].ExecutionSuccessful {
		t.Error("log.Runs[0].Invocations[0].ExecutionSuccessful is false, want true")
	}

	// --strict on warnings past the cap, and --fix, count them all too.
	r = run("--diff", path)
	r.wantCode(t, ExitFindings)
	r.wantStderr(t, "Would fix 5,000 findings in 1 file.")
}

// cliBytesPerFinding is what `check --format format` allocates per
// finding of a file of n blank lines, the engine's report aside (it is
// made beforehand and handed over).
func cliBytesPerFinding(t testing.TB, format string, n int) float64 {
	path := blankLines(t, n)
	data := readFile(t, path)
	rep := analysis.Analyze(data, analysis.Options{SkipMessages: true})
	if len(rep.Findings) != n {
		t.Fatalf("len(rep.Findings) = %d, want %d: %+v", len(rep.Findings), n, rep.Findings)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e, out, errb := testEnv("", nil)
	e.analyze = func(ctx context.Context, _ dialect.Dialect, r io.Reader, _ analysis.Options) (*analysis.Report, error) {
		_, err := io.Copy(io.Discard, r)
		return rep, err
	}
	code := run(context.Background(), e, []string{"check", "--format", format, path})
	runtime.ReadMemStats(&after)
	if code != ExitFindings {
		t.Fatalf("%v: code = %v, want %v", errb.String(), code, ExitFindings)
	}
	_ = out
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestCheckBytesPerFinding: what the CLI allocates for a finding past the
// cap is a few bytes (its line, for the fixable count), whatever the
// format. Before the cap it held every finding: a copy, its fix, and in
// SARIF its result (~6 KB).
func TestCheckBytesPerFinding(t *testing.T) {
	for _, format := range []string{"text", "json", "github", "sarif"} {
		b := cliBytesPerFinding(t, format, 100000)
		t.Logf("%s: %.1f bytes allocated per finding by the CLI", format, b)
		if b >= 128.0 {
			t.Errorf("%v: b = %v, want < %v", format, b, 128.0)
		}
	}
}

// BenchmarkCheckBytesPerFinding prints the bytes the CLI allocates per
// finding of a check of 200,000 blank lines, by format (the engine's
// report aside: ~300 bytes a finding).
func BenchmarkCheckBytesPerFinding(b *testing.B) {
	for _, format := range []string{"text", "json", "github", "sarif"} {
		b.Run(format, func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = cliBytesPerFinding(b, format, 200000)
			}
			b.ReportMetric(per, "B/finding")
		})
	}
}

// TestStreamFixesCappedAgrees: the capped pass finds the fixes
// streamFixes finds for the listed findings, and counts by safety those of
// the findings past the cap, on the shipped sessions and random files.
func TestStreamFixesCappedAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	var files [][]byte
	for range 80 {
		files = append(files, randjsonl.File(r, 3+r.IntN(30)))
	}
	files = append(files, []byte(strings.Repeat(" \n", 300)+"{\"role\":\"user\",\"content\":\"x\",}\n"))
	for i, data := range files {
		rep := analysis.Analyze(data, analysis.Options{})
		const limit = 3
		var cut []cutLines
		var cutFindings []analysis.Finding
		listed, _ := capFindings(rep.Findings, limit, nil, func(f *analysis.Finding) {
			if !fix.Fixable(f.Code) {
				return
			}
			cut = addCut(cut, f.Code, f.Line)
			cutFindings = append(cutFindings, *f)
		})
		got, counts, err := streamFixesCapped(context.Background(), bytes.NewReader(data), listed, cut, true)
		if err != nil {
			t.Fatal(err)
		}
		want, err := streamFixes(context.Background(), bytes.NewReader(data), listed, true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("file %d: got %+v, want %+v", i, got, want)
		}
		// The cut findings' fixes, as streamFixes finds them in a pass over
		// every finding (whether an orphan result is deleted depends on
		// the file's refused lines, listed or not).
		all := slices.Clone(rep.Findings)
		sortFindings(all)
		wantAll, err := streamFixes(context.Background(), bytes.NewReader(data), all, false)
		if err != nil {
			t.Fatal(err)
		}
		isCut := map[fixKey]bool{}
		for _, f := range cutFindings {
			isCut[fixKey{f.Line, f.Code}] = true
		}
		var wantCounts fixCounts
		for k, f := range all {
			if fi := wantAll.at(k); fi != nil && isCut[fixKey{f.Line, f.Code}] {
				wantCounts.add(fi.safety)
			}
		}
		if !reflect.DeepEqual(counts, wantCounts) {
			t.Fatalf("file %d: counts = %+v, want %+v", i, counts, wantCounts)
		}
	}
}

// TestStreamFixesCappedHoldsNoHugeLine: as streamFixes, the capped pass
// holds no line longer than maxFixLine, listed or past the cap.
func TestStreamFixesCappedHoldsNoHugeLine(t *testing.T) {
	const size = 2 * maxFixLine
	listed := []analysis.Finding{{Line: 1, Code: analysis.CodeInvalidJSON}}
	cut := addCut(addCut(nil, analysis.CodeInvalidJSON, 2), analysis.CodeInvalidJSON, 3)
	src := io.MultiReader(&repeatReader{b: 0, left: size}, &repeatReader{b: ' ', left: size}, strings.NewReader(" \n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fixes, counts, err := streamFixesCapped(context.Background(), src, listed, cut, false)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := fixes.at(0); got != nil {
		t.Errorf("a line past maxFixLine gets no fix mark: fixes.at(0) = %+v, want nil", got)
	}
	wantEqual(t, "the short blank line past the cap is counted, the long one is not held: counts", counts, fixCounts{safe: 1})
	// Each long line allocates at most twice maxFixLine on the way.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(2*2*maxFixLine+8<<20); got > limit {
		t.Errorf("after.TotalAlloc-before.TotalAlloc = %v, want <= %v", got, limit)
	}
}

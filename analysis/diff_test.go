package analysis_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
	"github.com/sessionls/sessionls/internal/transcript"
)

var diffSeed, diffFiles = oracle.DiffFlags("TestDiffNodeFiles", "files", 300)

// TestDiffNodeFiles compares Analyze (and AnalyzeReader) with the oracle's
// loadSession / trimContext on random files: which lines are invalid and
// how, where loading stops, the units, and the cutoff or error for budgets
// chosen around the unit boundaries.
func TestDiffNodeFiles(t *testing.T) {
	node := oracle.Node(t)
	seeds := oracle.Seeds(*diffSeed, 11)
	dir := t.TempDir()
	var files [][]byte
	var jobs []oracle.Job
	for _, s := range seeds {
		r := rand.New(rand.NewPCG(s, 0xf11e))
		for i := 0; i < *diffFiles; i++ {
			data := randjsonl.File(r, 5+r.IntN(56))
			files = append(files, data)
			jobs = append(jobs, oracle.FileJob(t, dir, fmt.Sprintf("f%d-%d.jsonl", s, i), data))
		}
	}
	// Fixed files: the edge cases of loading and of trimContext's errors.
	fixed := [][]byte{nil, []byte("\n"), []byte("\n\n\n"), []byte("\ufeff"), []byte("\r\n"),
		[]byte(`{"role":"user","content":"x"}`), []byte("\n" + `{"role":"user","content":"x"}` + "\n\n")}
	for _, name := range []string{"clean.jsonl", "demo.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", name))
		if err != nil {
			t.Fatalf("reading demo session: %v", err)
		}
		fixed = append(fixed, b)
	}
	fixed = append(fixed, transcript.Session(200, 9))
	for i, data := range fixed {
		files = append(files, data)
		jobs = append(jobs, oracle.FileJob(t, dir, fmt.Sprintf("fixed-%d.jsonl", i), data))
	}

	// Two passes: the first gives the units, from which the budgets of the
	// second are chosen (exactly at, just under and just over the sums
	// where packing stops, plus the extremes).
	first := oracle.AskBatch(t, node, jobs, 3*time.Minute)
	r := rand.New(rand.NewPCG(7, 7))
	loading := 0
	for i, f := range first {
		if f.Budget.Loads {
			loading++
			jobs[i].Budgets = budgets(r, f.Budget.Units)
		}
	}
	if loading < len(files)/4 {
		t.Fatalf("only %d of %d random files load: the generator lost its mix", loading, len(files))
	}
	answers := oracle.AskBatch(t, node, jobs, 3*time.Minute)
	// What the comparison covered: a generator that stops reaching these
	// would make the test pass vacuously.
	var cuts, tooSmall, empty, multi int
	for _, a := range answers {
		for _, c := range a.Budget.Cuts {
			switch c.Error {
			case "":
				cuts++
			case "context budget cannot be empty":
				empty++
			default:
				tooSmall++
			}
		}
		for _, u := range a.Budget.Units {
			if u.Messages > 1 {
				multi++
			}
		}
	}
	if cuts < 300 || tooSmall < 100 || empty == 0 || multi < 100 {
		t.Errorf("poor coverage: %d cutoffs, %d too-small errors, %d empty errors, %d multi-message units", cuts, tooSmall, empty, multi)
	}
	failures := 0
	for i, want := range answers {
		diffs := compareFile(files[i], want, jobs[i].Budgets)
		if len(diffs) == 0 {
			continue
		}
		failures++
		if failures <= 10 {
			t.Errorf("file %s (%q):\n  %s", jobs[i].Path, clip(files[i]), strings.Join(diffs, "\n  "))
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d files disagree with node", failures, len(files))
	}
	t.Logf("%d files compared, %d load; %d cutoffs, %d too-small errors, %d empty errors, %d multi-message units",
		len(files), loading, cuts, tooSmall, empty, multi)
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// budgets picks budgets around the packing boundaries of units.
func budgets(r *rand.Rand, units []oracle.Unit) []int64 {
	var sums []int64
	var s int64
	for i := len(units) - 1; i >= 0; i-- {
		s += units[i].Chars
		sums = append(sums, s)
	}
	out := []int64{1}
	if len(sums) == 0 {
		return append(out, 100)
	}
	total := sums[len(sums)-1]
	for k := 0; k < 4; k++ {
		b := sums[r.IntN(len(sums))] + int64(r.IntN(3)) - 1
		if b < 1 {
			b = 1
		}
		out = append(out, b)
	}
	return append(out, sums[0]-1, total, total+1+r.Int64N(1000), 1+r.Int64N(total+1))
}

// compareFile returns the disagreements between our analysis of data and
// the oracle's answer.
// invalidLines lists the invalid lines as "line:kind", ours (from the
// report's refusals, a named cause counting as invalid-json) and node's.
func invalidLines(rep *analysis.Report, want oracle.File) (got, node []string) {
	for _, l := range want.Lines {
		if l.Verdict != "valid" {
			node = append(node, fmt.Sprintf("%d:%s", l.Line, l.Verdict))
		}
	}
	for _, f := range rep.Findings {
		if analysis.IsRefusal(f.Code) {
			// A cause of damage is only named for a line JSON.parse refuses.
			code := f.Code
			if code != analysis.CodeInvalidRecord {
				code = analysis.CodeInvalidJSON
			}
			got = append(got, fmt.Sprintf("%d:%s", f.Line, code))
		}
	}
	return got, node
}

func compareFile(data []byte, want oracle.File, budgets []int64) []string {
	var d []string
	rep, err := analyzeSafely(func() (*analysis.Report, error) { return analysis.Analyze(data, analysis.Options{}), nil })
	if err != nil {
		return []string{err.Error()}
	}

	// Invalid lines and their kinds.
	gotBad, wantBad := invalidLines(rep, want)
	if !slices.Equal(gotBad, wantBad) {
		d = append(d, fmt.Sprintf("invalid lines: ours %v, node %v", gotBad, wantBad))
	}
	if rep.InvalidLines != len(wantBad) {
		d = append(d, fmt.Sprintf("InvalidLines: ours %d, node %d", rep.InvalidLines, len(wantBad)))
	}
	wantFirst := 0
	if !want.Budget.Loads {
		wantFirst = want.Budget.Line
	}
	if rep.FirstInvalidLine != wantFirst {
		d = append(d, fmt.Sprintf("FirstInvalidLine: ours %d, node %d (%s)", rep.FirstInvalidLine, wantFirst, want.Budget.Error))
	}
	if rep.Width16 != want.Budget.Width || rep.Lines != want.Budget.Physical {
		d = append(d, fmt.Sprintf("shape: ours %d lines, %d UTF-16 units; node %d lines, %d units",
			rep.Lines, rep.Width16, want.Budget.Physical, want.Budget.Width))
	}
	if rep.Loads() != want.Budget.Loads {
		d = append(d, fmt.Sprintf("Loads: ours %v, node %v", rep.Loads(), want.Budget.Loads))
	}

	if want.Budget.Loads {
		d = append(d, compareLoaded(rep, want)...)
	}

	// Budgets: Analyze with the budget, and the stream reader must agree.
	for bi, b := range slices.Concat(budgets, []int64{50}) {
		rep, err := analyzeSafely(func() (*analysis.Report, error) {
			return analysis.Analyze(data, analysis.Options{Budget: b}), nil
		})
		if err != nil {
			return append(d, err.Error())
		}
		if !want.Budget.Loads {
			if rep.Cutoff != nil || rep.CutoffErr != nil {
				d = append(d, fmt.Sprintf("budget %d on a file that does not load: ours cutoff %+v, error %v", b, rep.Cutoff, rep.CutoffErr))
			}
			continue
		}
		if bi >= len(want.Budget.Cuts) {
			continue // the extra budget 50 is only for the reader check below
		}
		d = append(d, compareCut(rep, want.Budget.Cuts[bi])...)
	}
	streamed, err := analyzeSafely(func() (*analysis.Report, error) {
		return analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{Budget: 50})
	})
	if err != nil {
		return append(d, err.Error())
	}
	inMemory, _ := analyzeSafely(func() (*analysis.Report, error) {
		return analysis.Analyze(data, analysis.Options{Budget: 50}), nil
	})
	if s := summary(streamed); s != summary(inMemory) {
		d = append(d, fmt.Sprintf("AnalyzeReader differs from Analyze:\n    reader:  %s\n    analyze: %s", s, summary(inMemory)))
	}
	return d
}

func compareLoaded(rep *analysis.Report, want oracle.File) []string {
	var d []string
	if len(rep.Messages) != want.Budget.Messages {
		d = append(d, fmt.Sprintf("messages: ours %d, node %d", len(rep.Messages), want.Budget.Messages))
	}
	if rep.TotalChars != want.Budget.TotalChars {
		d = append(d, fmt.Sprintf("TotalChars: ours %d, node %d", rep.TotalChars, want.Budget.TotalChars))
	}
	var valid []oracle.Line
	for _, l := range want.Lines {
		if l.Verdict == "valid" {
			valid = append(valid, l)
		}
	}
	for i, m := range rep.Messages {
		if i >= len(valid) {
			break
		}
		if m.Line != valid[i].Line || valid[i].Cost == nil || m.Cost != *valid[i].Cost {
			d = append(d, fmt.Sprintf("message %d: ours line %d cost %d, node line %d cost %v", i, m.Line, m.Cost, valid[i].Line, deref(valid[i].Cost)))
			break
		}
	}
	var got, exp []string
	for _, u := range rep.Units {
		got = append(got, fmt.Sprintf("%d-%d/%d/%d", u.StartLine, u.EndLine, u.Len(), u.Chars))
	}
	for _, u := range want.Budget.Units {
		exp = append(exp, fmt.Sprintf("%d-%d/%d/%d", u.StartLine, u.EndLine, u.Messages, u.Chars))
	}
	if !slices.Equal(got, exp) {
		d = append(d, fmt.Sprintf("units (start-end/messages/chars):\n    ours %v\n    node %v", got, exp))
	}
	var from int64
	for i := len(rep.Units) - 1; i >= 0; i-- {
		from += rep.Units[i].Chars
		if rep.Units[i].FromNewest != from {
			d = append(d, fmt.Sprintf("unit %d FromNewest %d, want %d", i, rep.Units[i].FromNewest, from))
			break
		}
	}
	return d
}

func compareCut(rep *analysis.Report, c oracle.Cut) []string {
	if c.Error != "" {
		if rep.CutoffErr == nil || rep.CutoffErr.Error() != c.Error {
			return []string{fmt.Sprintf("budget %d: ours cutoff %+v error %v, node error %q", c.Budget, rep.Cutoff, rep.CutoffErr, c.Error)}
		}
		return nil
	}
	if rep.CutoffErr != nil || rep.Cutoff == nil {
		return []string{fmt.Sprintf("budget %d: ours error %v, node keeps from line %d", c.Budget, rep.CutoffErr, c.FirstKeptLine)}
	}
	got := *rep.Cutoff
	if got.Budget != c.Budget || got.FirstKeptLine != c.FirstKeptLine || got.KeptUnits != c.KeptUnits ||
		got.KeptMessages != c.KeptMessages || got.KeptChars != c.KeptChars ||
		got.FirstUnit != len(rep.Units)-c.KeptUnits {
		return []string{fmt.Sprintf("budget %d: ours %+v, node %+v", c.Budget, got, c)}
	}
	return nil
}

// summary is what must be identical between the in-memory and the
// streaming analysis of one file.
func summary(r *analysis.Report) string {
	if r == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lines %d width %d first %d invalid %d total %d msgs %d units %v findings %d",
		r.Lines, r.Width16, r.FirstInvalidLine, r.InvalidLines, r.TotalChars, len(r.Messages), r.Units, len(r.Findings))
	if r.Cutoff != nil {
		fmt.Fprintf(&b, " cutoff %+v", *r.Cutoff)
	}
	if r.CutoffErr != nil {
		fmt.Fprintf(&b, " err %v", r.CutoffErr)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n      %d %s %s", f.Line, f.Code, f.Message)
	}
	return b.String()
}

// analyzeSafely turns a panic into an error, so one bad file reports its
// bytes instead of killing the whole differential run.
func analyzeSafely(f func() (*analysis.Report, error)) (rep *analysis.Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f()
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestDiffNodeStream compares AnalyzeReader on multi-megabyte files, where
// lines straddle the reader's ~1 MB chunks, with the oracle: a transcript
// with a 2.5 MB line and a unit that spans most of the file, and a file of
// random hostile lines.
func TestDiffNodeStream(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-megabyte differential test")
	}
	node := oracle.Node(t)
	dir := t.TempDir()

	// The transcript: an early call answered in the middle makes one unit
	// that spans many chunks; a 2.5 MB user line is longer than a chunk.
	lines := bytes.SplitAfter(transcript.Session(1500, 4), []byte("\n"))
	far := []byte(`{"role":"assistant","content":"","toolCalls":[{"id":"far","name":"x","input":{"a":[1,2,3]}}]}` + "\n")
	answer := []byte(`{"role":"tool","content":"done «far»","toolCallId":"far","isError":false}` + "\n")
	huge := []byte(`{"role":"user","content":"` + strings.Repeat(`a line with «é» and 😀 and \"quotes\"\n`, 70000) + `"}` + "\n")
	// The answer goes just before a user message, so that no later result
	// sweeps it into its own unit.
	mid := len(lines) / 2
	for !bytes.HasPrefix(lines[mid], []byte(`{"role":"user"`)) {
		mid++
	}
	var tr []byte
	for i, l := range lines {
		switch i {
		case 10:
			tr = append(tr, far...)
		case mid:
			tr = append(tr, answer...)
		case mid + 100:
			tr = append(tr, huge...)
		}
		tr = append(tr, l...)
	}

	// Random hostile lines, some of them long.
	r := rand.New(rand.NewPCG(99, 1))
	var hostile []byte
	for len(hostile) < 3<<20 {
		hostile = append(hostile, randjsonl.Line(r)...)
		hostile = append(hostile, '\n')
	}

	files := [][]byte{tr, hostile}
	var jobs []oracle.Job
	for i, data := range files {
		job := oracle.FileJob(t, dir, fmt.Sprintf("big-%d.jsonl", i), data)
		// Small budgets only: the seed's packing re-measures everything
		// kept for every unit, quadratic in what is kept.
		job.Budgets = []int64{1, 100_000, 400_000}
		jobs = append(jobs, job)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	answers, err := oracle.Batch(ctx, node, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if !answers[0].Budget.Loads {
		t.Fatalf("the transcript does not load: %s", answers[0].Budget.Error)
	}
	spans := false
	for _, u := range answers[0].Budget.Units {
		spans = spans || u.EndLine-u.StartLine > 100
	}
	if !spans {
		t.Fatal("no unit spans the file: the test lost its point")
	}
	for i, want := range answers {
		for _, b := range jobs[i].Budgets {
			rep, err := analyzeSafely(func() (*analysis.Report, error) {
				return analysis.AnalyzeReader(ctx, bytes.NewReader(files[i]), analysis.Options{Budget: b})
			})
			if err != nil {
				t.Fatalf("file %d: %v", i, err)
			}
			var d []string
			gotBad, wantBad := invalidLines(rep, want)
			if !slices.Equal(gotBad, wantBad) {
				d = append(d, fmt.Sprintf("invalid lines differ: ours %d, node %d", len(gotBad), len(wantBad)))
			}
			if rep.Width16 != want.Budget.Width || rep.Lines != want.Budget.Physical {
				d = append(d, fmt.Sprintf("shape: ours %d lines, %d UTF-16 units; node %d lines, %d units",
					rep.Lines, rep.Width16, want.Budget.Physical, want.Budget.Width))
			}
			if want.Budget.Loads {
				d = append(d, compareLoaded(rep, want)...)
				for _, c := range want.Budget.Cuts {
					if c.Budget == b {
						d = append(d, compareCut(rep, c)...)
					}
				}
			} else if rep.FirstInvalidLine != want.Budget.Line {
				d = append(d, fmt.Sprintf("FirstInvalidLine: ours %d, node %d", rep.FirstInvalidLine, want.Budget.Line))
			}
			if len(d) > 0 {
				t.Errorf("file %d, budget %d:\n  %s", i, b, strings.Join(d, "\n  "))
			}
		}
	}
}

// TestDocumentMatchesAnalyze checks the language server's incremental
// Document against Analyze of the same text (which the tests above hold to
// node): on random files, and after each of a series of random line edits.
func TestDocumentMatchesAnalyze(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for f := 0; f < 150; f++ {
		text := string(randjsonl.File(r, 5+r.IntN(30)))
		opts := analysis.Options{Budget: int64(1 + r.IntN(3000))}
		doc := analysis.NewDocument(text, opts)
		lines := strings.Split(text, "\n")
		for step := 0; step <= 12; step++ {
			if step > 0 {
				var ch analysis.Change
				lines, ch = randomEdit(r, lines, doc)
				if err := doc.Apply([]analysis.Change{ch}); err != nil {
					t.Fatalf("file %d step %d: Apply(%+v): %v", f, step, ch, err)
				}
			}
			want := strings.Join(lines, "\n")
			if got := doc.Text(); got != want {
				t.Fatalf("file %d step %d: Text() = %q, want %q", f, step, got, want)
			}
			rep, err := analyzeSafely(func() (*analysis.Report, error) { return doc.Report(), nil })
			if err != nil {
				t.Fatalf("file %d step %d: %v\ntext %q", f, step, err, want)
			}
			exp := analysis.Analyze([]byte(want), opts)
			if s, e := summary(rep), summary(exp); s != e {
				t.Fatalf("file %d step %d: Document.Report differs from Analyze\ntext %q\n  document: %s\n  analyze:  %s", f, step, want, s, e)
			}
		}
	}
}

// randomEdit inserts, deletes or replaces a whole line (or joins two), as
// an LSP change, and applies it to lines. Positions are chosen on the
// runtime's lines and given in the client's numbering (doc.EditorPosition),
// which differs after a lone '\r'.
func randomEdit(r *rand.Rand, lines []string, doc *analysis.Document) ([]string, analysis.Change) {
	k := r.IntN(len(lines))
	pos := func(line, col int) analysis.Position { return doc.EditorPosition(line, col) }
	newLine := string(randjsonl.Line(r))
	switch op := r.IntN(6); {
	case op >= 4: // type or paste inside line k, within its ASCII prefix
		// (where a byte is a UTF-16 unit, so the column is known)
		ascii := 0
		for ascii < len(lines[k]) && lines[k][ascii] < 0x80 {
			ascii++
		}
		c := r.IntN(ascii + 1)
		if c > 0 && c == len(lines[k]) && lines[k][c-1] == '\r' {
			c-- // a client cannot point between a line's final '\r' and its '\n'
		}
		ins := []string{",", "}", `"`, `\`, "x", " ", "1", "\n", "é", "😀", "\n{}\n", `"role":"user",`, "\r"}[r.IntN(13)]
		at := pos(k, c)
		edited := lines[k][:c] + ins + lines[k][c:]
		out := slices.Concat(lines[:k], strings.Split(edited, "\n"), lines[k+1:])
		return out, analysis.Change{Range: &analysis.Range{Start: at, End: at}, Text: ins}
	case op == 0 || len(lines) == 1 || k == len(lines)-1: // insert before line k
		at := pos(k, 0)
		return slices.Insert(lines, k, newLine), analysis.Change{Range: &analysis.Range{Start: at, End: at}, Text: newLine + "\n"}
	case op == 1: // delete line k
		rg := analysis.Range{Start: pos(k, 0), End: pos(k+1, 0)}
		return slices.Delete(lines, k, k+1), analysis.Change{Range: &rg}
	case op == 2: // replace line k
		rg := analysis.Range{Start: pos(k, 0), End: pos(k+1, 0)}
		lines[k] = newLine
		return lines, analysis.Change{Range: &rg, Text: newLine + "\n"}
	default: // join line k and k+1 by deleting the newline between them
		// The end of line k in UTF-16 units is unknown for invalid UTF-8;
		// join from the start of k+1 instead: delete [k, 0)..[k+1, 0) and
		// write line k back without its newline.
		rg := analysis.Range{Start: pos(k, 0), End: pos(k+1, 0)}
		joined := lines[k]
		lines = slices.Delete(lines, k, k+1)
		lines[k] = joined + lines[k]
		return lines, analysis.Change{Range: &rg, Text: joined}
	}
}

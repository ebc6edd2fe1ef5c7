package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/dialect/dialectfake"
	"github.com/sessionls/sessionls/config"
	"github.com/sessionls/sessionls/internal/transcript"
)

// newFake stands for the dialects being written (claude-code, codex): it
// analyses as the engine does, claims every file, and counts what the CLI
// asked of it, so a test sees that a non-seed file goes through its
// Dialect and only it.
func newFake() dialectfake.Counting { return dialectfake.New(nil) }

// TestCheckFileThroughDialect: a file of another dialect is read by its
// AnalyzeReader and its fix marks planned by its Plan (on the whole text),
// with the same findings and marks as the seed path gives for the same
// engine; the seed path plans nothing through Plan (it streams).
func TestCheckFileThroughDialect(t *testing.T) {
	atRepoRoot(t)
	path := sessionPath("badrecords")
	e, _, _ := testEnv("", nil)
	var n atomic.Int64
	sarif, err := formatNamed(formatSARIF)
	if err != nil {
		t.Fatal(err)
	}
	opts := analysis.Options{SkipMessages: true}

	seedF, seedFixes, seedMore, seedCut, err := checkFile(context.Background(), e, target{path: path, dialect: dialect.Seed{}}, opts, sarif, &n)
	if err != nil {
		t.Fatal(err)
	}
	fk := newFake()
	fakeF, fakeFixes, fakeMore, fakeCut, err := checkFile(context.Background(), e, target{path: path, dialect: fk}, opts, sarif, &n)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := int64(1), fk.Reads.Load(); got != want {
		t.Errorf("read once through the dialect: fk.Reads.Load() = %v, want %v", got, want)
	}
	if want, got := int64(1), fk.Plans.Load(); got != want {
		t.Errorf("fix marks planned once by the dialect: fk.Plans.Load() = %v, want %v", got, want)
	}
	wantEqual(t, "fakeF", fakeF, seedF)
	wantEqual(t, "fakeFixes", fakeFixes, seedFixes)
	wantEqual(t, "fakeMore", fakeMore, seedMore)
	wantEqual(t, "fakeCut", fakeCut, seedCut)
	safe, unsafe := fakeFixes.count()
	if safe <= 0 {
		t.Errorf("safe = %v, want > 0", safe)
	}
	if unsafe <= 0 {
		t.Errorf("unsafe = %v, want > 0", unsafe)
	}

	// Auto on stdin: detected (seed here), replayed, the same findings.
	data := readFile(t, path)
	e, _, _ = testEnv(string(data), nil)
	stdinF, stdinFixes, _, _, err := checkFile(context.Background(), e, target{path: path, stdin: true}, opts, sarif, &n)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "stdinF", stdinF, seedF)
	wantEqual(t, "stdinFixes", stdinFixes, seedFixes)
}

// TestPlanFixesCappedCounts: the findings past the cap are planned by line
// and code and counted, as streamFixesCapped counts them.
func TestPlanFixesCappedCounts(t *testing.T) {
	var b strings.Builder
	for range 5 {
		b.WriteString(`{"role":"user","content":"x",}` + "\n") // trailing comma: a safe fix
	}
	data := []byte(b.String())
	rep := analysis.Analyze(data, analysis.Options{})
	if len(rep.Findings) != 5 {
		t.Fatalf("len(rep.Findings) = %d, want %d: %+v", len(rep.Findings), 5, rep.Findings)
	}
	listed := rep.Findings[:2]
	var cut []cutLines
	for _, ln := range []int{3, 4, 5} {
		cut = addCut(cut, rep.Findings[2].Code, ln)
	}
	want, wantCounts, err := streamFixesCapped(context.Background(), bytes.NewReader(data), listed, cut, true)
	if err != nil {
		t.Fatal(err)
	}
	got, gotCounts, err := planFixesCapped(context.Background(), newFake(), bytes.NewReader(data), listed, cut, true)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "got", got, want)
	wantEqual(t, "gotCounts", gotCounts, wantCounts)
	wantEqual(t, "gotCounts", gotCounts, fixCounts{safe: 3})
}

// TestFixDataThroughDialect: --fix and --diff repair through the file's
// dialect (FixAll, and once more for what --unsafe-fixes would add),
// with seed's result when the dialect repairs as seed does.
func TestFixDataThroughDialect(t *testing.T) {
	atRepoRoot(t)
	data := readFile(t, sessionPath("badrecords"))
	o := checkOptions{diff: true}
	var err error
	o.out, err = formatNamed(formatText)
	if err != nil {
		t.Fatal(err)
	}
	seedRun, _, err := fixData(context.Background(), target{path: "a.jsonl"}, data, analysis.Options{}, o)
	if err != nil {
		t.Fatal(err)
	}
	fk := newFake()
	fakeRun, _, err := fixData(context.Background(), target{path: "a.jsonl", dialect: fk}, data, analysis.Options{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := int64(2), fk.FixAlls.Load(); got != want {
		t.Errorf("the fixes, then what --unsafe-fixes would add: fk.FixAlls.Load() = %v, want %v", got, want)
	}
	wantEqual(t, "fakeRun", fakeRun, seedRun)
	if len(fakeRun.diff) == 0 {
		t.Error("fakeRun.diff is empty, want some")
	}
}

// TestDetectStream: a file is detected without moving its offset, and
// is analysed itself (the engine keeps ReadAt and Seek); a pipe is
// replayed from what detection read.
func TestDetectStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	text := `{"role":"user","content":"x"}` + "\n"
	writeFile(t, path, []byte(text), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, r, err := detectStream(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Name(); got != "seed" {
		t.Errorf("d.Name() = %q, want %q", got, "seed")
	}
	if got := r.(*os.File); got != f {
		t.Errorf("detectStream(nil, f) reads %p, want the file itself, %p", got, f)
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		t.Fatal(err)
	}
	if off != 0 {
		t.Errorf("the file's offset is where it was: off = %v, want 0", off)
	}

	pipe := io.MultiReader(strings.NewReader(text)) // no ReadAt, no Seek
	d, r, err = detectStream(nil, pipe)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Name(); got != "seed" {
		t.Errorf("d.Name() = %q, want %q", got, "seed")
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if actual := string(got); actual != text {
		t.Errorf("what detection read is replayed: string(got) = %q, want %q", actual, text)
	}

	fk := newFake()
	d, r, err = detectStream(fk, pipe)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Name(); got != "fake" {
		t.Errorf("a setting's dialect is not detected: d.Name() = %q, want %q", got, "fake")
	}
	if r != pipe {
		t.Errorf("detectStream(fk, pipe) reads %v, want the pipe itself, %v", r, pipe)
	}
}

// TestDialectFlag: every command that reads sessions takes --dialect; the
// value is checked; seed and auto read a seed file alike.
func TestDialectFlag(t *testing.T) {
	atRepoRoot(t)
	clean := sessionPath("demo")
	for _, args := range [][]string{
		{"check"}, {"budget"}, {"trim", "--budget", "100000"}, {"map", "-o", filepath.Join(t.TempDir(), "m.html")}, {"config"},
	} {
		auto := sessionls(t, append(slices.Clone(args), clean)...)
		seed := sessionls(t, append(slices.Clone(args), "--dialect", "seed", clean)...)
		if args[0] == "config" {
			if !strings.Contains(seed.stdout, `dialect = "seed"`) {
				t.Errorf("seed.stdout = %q, want it to contain %q", seed.stdout, `dialect = "seed"`)
			}
			if !strings.Contains(seed.stdout, "# flag --dialect") {
				t.Errorf("seed.stdout = %q, want it to contain %q", seed.stdout, "# flag --dialect")
			}
		} else {
			if !reflect.DeepEqual(seed, auto) {
				t.Errorf("%v: seed = %+v, want %+v", args, seed, auto)
			}
		}
		bad := sessionls(t, append(slices.Clone(args), "--dialect", "claude", clean)...)
		if bad.code != 2 {
			t.Errorf("%v: bad.code = %v, want %v", args, bad.code, 2)
		}
		if !strings.Contains(bad.stderr, `invalid argument "claude" for "--dialect" flag: unknown dialect "claude" (want auto, seed, claude-code or codex)`) {
			t.Errorf("%v: bad.stderr = %q, want it to contain %q", args, bad.stderr, `invalid argument "claude" for "--dialect" flag: unknown dialect "claude" (want auto, seed, claude-code or codex)`)
		}
	}
}

// TestDialectNotBuilt: a dialect the setting accepts but this build does
// not have yet is a configuration error naming where it was set (exit 2).
func TestDialectNotBuilt(t *testing.T) {
	atRepoRoot(t)
	d, _ := config.Lookup("dialect")
	missing := ""
	for _, v := range d.ValueNames() {
		if _, ok := dialect.ByName(v); !ok && v != dialect.Auto {
			missing = v
		}
	}
	if missing == "" {
		t.Skip("every dialect the setting names is built")
	}
	for _, args := range [][]string{{"check"}, {"budget"}, {"map", "-o", filepath.Join(t.TempDir(), "m.html")}} {
		r := sessionls(t, append(args, "--dialect", missing, sessionPath("demo"))...)
		r.wantCode(t, 2, args)
		if want := "flag --dialect: dialect \"" + missing + "\" is not available in this build"; !strings.Contains(r.stderr, want) {
			t.Errorf("%v: r.stderr = %q, want it to contain %q", args, r.stderr, want)
		}
	}
}

// TestConfigShowsDialect: config says which dialect applies and why, in
// text and JSON: detected (from which line), or the setting's source.
func TestConfigShowsDialect(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	writeFile(t, path, []byte("\n{oops\n"+`{"role":"user","content":"x"}`+"\n"), 0o644)
	r := sessionls(t, "config", "--isolated", path)
	r.wantCode(t, 0)
	r.wantStdout(t, "# dialect: seed: auto (default), detected: line 3, the first line JSON.parse accepts, is a seed record\n")

	r = sessionls(t, "config", "--isolated", "--format", "json", path)
	var j configJSON
	r.decodeJSON(t, &j)
	if j.Dialect.Name == nil {
		t.Fatal("j.Dialect.Name is nil, want non-nil")
	}
	if *j.Dialect.Name != "seed" {
		t.Errorf("*j.Dialect.Name = %q, want %q", *j.Dialect.Name, "seed")
	}
	if !j.Dialect.Detected {
		t.Error("j.Dialect.Detected is false, want true")
	}
	if j.Dialect.Line != 3 {
		t.Errorf("j.Dialect.Line = %v, want %v", j.Dialect.Line, 3)
	}

	writeFile(t, filepath.Join(dir, "sessionls.toml"), []byte("dialect = \"seed\"\n"), 0o644)
	r = sessionls(t, "config", path)
	if want := "# dialect: seed: set by " + filepath.Join(dir, "sessionls.toml") + ":1:1\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("r.stdout = %q, want it to contain %q", r.stdout, want)
	}

	r = sessionls(t, "config", "--isolated", dir)
	r.wantStdout(t, "# dialect: auto (default): detected for each file from its first line that JSON.parse accepts\n")
}

// BenchmarkDetectStream is what auto adds to reading a seed file: its
// first line found and judged through ReadAt (the file's offset stays),
// on a realistic transcript.
func BenchmarkDetectStream(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	_, err = transcript.Write(f, 8<<20, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatalf("f.Close(): %v", err)
	}
	f, err = os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := detectStream(nil, f)
		if err != nil || d.Name() != "seed" {
			b.Fatal(d, err)
		}
	}
}

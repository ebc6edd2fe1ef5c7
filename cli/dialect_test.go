package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/config"
	"github.com/sessionls/sessionls/internal/transcript"
)

// fakeDialect stands for the dialects being written (claude-code, codex):
// it analyses as the engine does, and counts what the CLI asked of it, so
// a test sees that a non-seed file goes through its Dialect and only it.
type fakeDialect struct {
	dialect.Seed
	reads, plans, fixAlls *atomic.Int64
}

func newFake() fakeDialect {
	return fakeDialect{reads: new(atomic.Int64), plans: new(atomic.Int64), fixAlls: new(atomic.Int64)}
}

func (fakeDialect) Name() string { return "fake" }

func (f fakeDialect) AnalyzeReader(ctx context.Context, r io.Reader, o analysis.Options) (*analysis.Report, error) {
	f.reads.Add(1)
	return f.Seed.AnalyzeReader(ctx, r, o)
}

func (f fakeDialect) Plan(data []byte, fs []analysis.Finding) []fix.Fix {
	f.plans.Add(1)
	return f.Seed.Plan(data, fs)
}

func (f fakeDialect) FixAll(ctx context.Context, data []byte, o analysis.Options, unsafe bool) (fix.Result, error) {
	f.fixAlls.Add(1)
	return f.Seed.FixAll(ctx, data, o, unsafe)
}

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
	require.NoError(t, err)
	opts := analysis.Options{SkipMessages: true}

	seedF, seedFixes, seedMore, seedCut, err := checkFile(context.Background(), e, target{path: path, dialect: dialect.Seed{}}, opts, sarif, &n)
	require.NoError(t, err)
	fk := newFake()
	fakeF, fakeFixes, fakeMore, fakeCut, err := checkFile(context.Background(), e, target{path: path, dialect: fk}, opts, sarif, &n)
	require.NoError(t, err)
	assert.Equal(t, int64(1), fk.reads.Load(), "read once through the dialect")
	assert.Equal(t, int64(1), fk.plans.Load(), "fix marks planned once by the dialect")
	assert.Equal(t, seedF, fakeF)
	assert.Equal(t, seedFixes, fakeFixes)
	assert.Equal(t, seedMore, fakeMore)
	assert.Equal(t, seedCut, fakeCut)
	safe, unsafe := fakeFixes.count()
	assert.Positive(t, safe)
	assert.Positive(t, unsafe)

	// Auto on stdin: detected (seed here), replayed, the same findings.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	e, _, _ = testEnv(string(data), nil)
	stdinF, stdinFixes, _, _, err := checkFile(context.Background(), e, target{path: path, stdin: true}, opts, sarif, &n)
	require.NoError(t, err)
	assert.Equal(t, seedF, stdinF)
	assert.Equal(t, seedFixes, stdinFixes)
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
	require.Len(t, rep.Findings, 5)
	listed := rep.Findings[:2]
	var cut []cutLines
	for _, ln := range []int{3, 4, 5} {
		cut = addCut(cut, rep.Findings[2].Code, ln)
	}
	want, wantCounts, err := streamFixesCapped(context.Background(), bytes.NewReader(data), listed, cut, true)
	require.NoError(t, err)
	got, gotCounts, err := planFixesCapped(context.Background(), newFake(), bytes.NewReader(data), listed, cut, true)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, wantCounts, gotCounts)
	assert.Equal(t, fixCounts{safe: 3}, gotCounts)
}

// TestFixDataThroughDialect: --fix and --diff repair through the file's
// dialect (FixAll, and once more for what --unsafe-fixes would add),
// with seed's result when the dialect repairs as seed does.
func TestFixDataThroughDialect(t *testing.T) {
	atRepoRoot(t)
	data, err := os.ReadFile(sessionPath("badrecords"))
	require.NoError(t, err)
	o := checkOptions{diff: true}
	o.out, err = formatNamed(formatText)
	require.NoError(t, err)
	seedRun, _, err := fixData(context.Background(), target{path: "a.jsonl"}, data, analysis.Options{}, o)
	require.NoError(t, err)
	fk := newFake()
	fakeRun, _, err := fixData(context.Background(), target{path: "a.jsonl", dialect: fk}, data, analysis.Options{}, o)
	require.NoError(t, err)
	assert.Equal(t, int64(2), fk.fixAlls.Load(), "the fixes, then what --unsafe-fixes would add")
	assert.Equal(t, seedRun, fakeRun)
	assert.NotEmpty(t, fakeRun.diff)
}

// TestDetectStream: a file is detected without moving its offset, and
// is analysed itself (the engine keeps ReadAt and Seek); a pipe is
// replayed from what detection read.
func TestDetectStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	text := `{"role":"user","content":"x"}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d, r, err := detectStream(nil, f)
	require.NoError(t, err)
	assert.Equal(t, "seed", d.Name())
	assert.Same(t, f, r.(*os.File))
	off, err := f.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	assert.Zero(t, off, "the file's offset is where it was")

	pipe := io.MultiReader(strings.NewReader(text)) // no ReadAt, no Seek
	d, r, err = detectStream(nil, pipe)
	require.NoError(t, err)
	assert.Equal(t, "seed", d.Name())
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, text, string(got), "what detection read is replayed")

	fk := newFake()
	d, r, err = detectStream(fk, pipe)
	require.NoError(t, err)
	assert.Equal(t, "fake", d.Name(), "a setting's dialect is not detected")
	assert.Same(t, pipe, r)
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
			assert.Contains(t, seed.stdout, `dialect = "seed"`)
			assert.Contains(t, seed.stdout, "# flag --dialect")
		} else {
			assert.Equal(t, auto, seed, "%v", args)
		}
		bad := sessionls(t, append(slices.Clone(args), "--dialect", "claude", clean)...)
		assert.Equal(t, 2, bad.code, "%v", args)
		assert.Contains(t, bad.stderr, `unknown --dialect "claude" (want auto, seed, claude-code, codex)`, "%v", args)
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
		assert.Equal(t, 2, r.code, "%v", args)
		assert.Contains(t, r.stderr, "flag --dialect: dialect \""+missing+"\" is not available in this build", "%v", args)
	}
}

// TestConfigShowsDialect: config says which dialect applies and why, in
// text and JSON: detected (from which line), or the setting's source.
func TestConfigShowsDialect(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("\n{oops\n"+`{"role":"user","content":"x"}`+"\n"), 0o644))
	r := sessionls(t, "config", "--isolated", path)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "# dialect: seed: auto (default), detected: line 3, the first line JSON.parse accepts, is a seed record\n")

	r = sessionls(t, "config", "--isolated", "--format", "json", path)
	var j configJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j), r.stdout)
	require.NotNil(t, j.Dialect.Name)
	assert.Equal(t, "seed", *j.Dialect.Name)
	assert.True(t, j.Dialect.Detected)
	assert.Equal(t, 3, j.Dialect.Line)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "sessionls.toml"), []byte("dialect = \"seed\"\n"), 0o644))
	r = sessionls(t, "config", path)
	assert.Contains(t, r.stdout, "# dialect: seed: set by "+filepath.Join(dir, "sessionls.toml")+":1:1\n")

	r = sessionls(t, "config", "--isolated", dir)
	assert.Contains(t, r.stdout, "# dialect: auto (default): detected for each file from its first line that JSON.parse accepts\n")
}

// BenchmarkDetectStream is what auto adds to reading a seed file: its
// first line found and judged through ReadAt (the file's offset stays),
// on a realistic transcript.
func BenchmarkDetectStream(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	require.NoError(b, err)
	_, err = transcript.Write(f, 8<<20, 1)
	require.NoError(b, err)
	require.NoError(b, f.Close())
	f, err = os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := detectStream(nil, f)
		if err != nil || d.Name() != "seed" {
			b.Fatal(d, err)
		}
	}
}

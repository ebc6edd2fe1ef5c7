package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
)

// sessions under testdata/sessions and the exit code of a plain check.
var sessionCases = []struct {
	name string
	code int
}{
	{"demo", 1},
	{"clean", 0},
	{"crlf", 1},
	{"crlf_ok", 0},
	{"badrecords", 1},
	{"units", 0}, // warnings and info only
	{"empty", 0},
}

func sessionPath(name string) string { return "testdata/sessions/" + name + ".jsonl" }

func TestCheckGolden(t *testing.T) {
	atRepoRoot(t)
	for _, format := range []string{formatText, formatJSON, formatGitHub, formatSARIF} {
		for _, sc := range sessionCases {
			t.Run(format+"/"+sc.name, func(t *testing.T) {
				r := sessionls(t, "check", "--format", format, sessionPath(sc.name))
				assert.Equal(t, sc.code, r.code, "exit code; stderr: %s", r.stderr)
				assert.Equal(t, "", r.stderr)
				golden(t, "check/"+sc.name+"."+format, r.stdout)
				if format == formatSARIF {
					validateSARIF(t, []byte(r.stdout), countFindings(t, sc.name))
				}
			})
		}
		t.Run(format+"/directory", func(t *testing.T) {
			r := sessionls(t, "check", "--format", format, "testdata/sessions")
			assert.Equal(t, 1, r.code, r.stderr)
			golden(t, "check/sessions-dir."+format, r.stdout)
		})
	}
}

// countFindings is the number of findings the json format reports.
func countFindings(t *testing.T, name string) int {
	t.Helper()
	return len(checkJSON(t, sessionPath(name)))
}

func checkJSON(t *testing.T, args ...string) []jsonFinding {
	t.Helper()
	r := sessionls(t, append([]string{"check", "--format", "json"}, args...)...)
	var out []jsonFinding
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), "json output: %q, stderr %q", r.stdout, r.stderr)
	return out
}

func TestCheckTextFormatAndSummary(t *testing.T) {
	atRepoRoot(t)
	r := sessionls(t, "check", sessionPath("clean"), sessionPath("demo"), sessionPath("units"))
	assert.Equal(t, 1, r.code)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 3)
	re := regexp.MustCompile(`^testdata/sessions/(demo|units)\.jsonl:\d+:\d+: (error|warning|info)\[[a-z-]+\] (\[(unsafe )?fix\] )?.+$`)
	for _, l := range lines[:len(lines)-2] {
		assert.True(t, re.MatchString(l), "finding line %q", l)
	}
	assert.True(t, regexp.MustCompile(`^Found \d+ errors?, \d+ warnings?(, \d+ info)? in 2 of 3 files\.$`).MatchString(lines[len(lines)-2]), "summary %q", lines[len(lines)-2])
	// demo's truncated line and orphan, units' orphan.
	assert.Equal(t, "3 fixable with --fix --unsafe-fixes.", lines[len(lines)-1])
	// Argument order is kept: every demo line before every units line.
	lastDemo, firstUnits := -1, len(lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "testdata/sessions/demo.jsonl") {
			lastDemo = i
		}
		if strings.HasPrefix(l, "testdata/sessions/units.jsonl") && i < firstUnits {
			firstUnits = i
		}
	}
	assert.True(t, lastDemo >= 0 && lastDemo < firstUnits, "output not in argument order:\n%s", r.stdout)

	r = sessionls(t, "check", sessionPath("clean"), sessionPath("crlf_ok"))
	assert.Equal(t, 0, r.code)
	assert.Equal(t, "All checks passed (2 files).\n", r.stdout)
}

func TestCheckColor(t *testing.T) {
	atRepoRoot(t)
	for _, tc := range []struct {
		tty     bool
		noColor string
		want    bool
	}{{true, "", true}, {true, "1", false}, {false, "", false}} {
		e, out, errb := testEnv("", map[string]string{"NO_COLOR": tc.noColor})
		e.stdoutTTY = tc.tty
		r := runWith(t, e, out, errb, "check", sessionPath("demo"))
		assert.Equal(t, 1, r.code)
		assert.Equal(t, tc.want, strings.Contains(r.stdout, "\x1b["), "tty=%v NO_COLOR=%q: %q", tc.tty, tc.noColor, r.stdout)
	}
}

func TestCheckExitCodes(t *testing.T) {
	atRepoRoot(t)
	codes := strings.Join(analysis.Codes(), ", ")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // substring
	}{
		{"clean", []string{"check", sessionPath("clean")}, 0, ""},
		{"errors", []string{"check", sessionPath("demo")}, 1, ""},
		{"warnings pass", []string{"check", sessionPath("units")}, 0, ""},
		{"warnings fail with --strict", []string{"check", "--strict", sessionPath("units")}, 1, ""},
		{"info never fails", []string{"check", "--strict", "--disable", "orphan-tool-result,missing-tool-result,duplicate-call-id", sessionPath("units")}, 0, ""},
		{"disabled errors", []string{"check", "--disable", "invalid-json", "--disable", "invalid-record,truncated-record", sessionPath("demo")}, 0, ""},
		{"disabled errors, strict", []string{"check", "--strict", "--disable", "invalid-json,invalid-record,truncated-record", sessionPath("demo")}, 1, ""},
		{"unknown code", []string{"check", "--disable", "nope", sessionPath("clean")}, 2, "valid codes: " + codes},
		{"unknown format", []string{"check", "--format", "xml", sessionPath("clean")}, 2, `unknown --format "xml"`},
		{"no path", []string{"check"}, 2, "Usage: sessionls check"},
		{"bad shard", []string{"check", "--shard", "5/4", sessionPath("clean")}, 2, "invalid --shard"},
		{"negative budget", []string{"check", "--budget", "-3", sessionPath("clean")}, 2, `invalid argument "-3" for "--budget" flag: want a positive whole number`},
		{"zero budget", []string{"check", "--budget", "0", sessionPath("clean")}, 2, `for "--budget" flag`},
		{"bad flag", []string{"check", "--frobnicate", sessionPath("clean")}, 2, "unknown flag: --frobnicate"},
		{"unknown command", []string{"lint", "x"}, 2, `unknown command "lint"`},
		{"no command", []string{}, 2, "missing command"},
		{"nil args", nil, 2, "missing command"},
		{"budget fits", []string{"check", "--budget", "100000", sessionPath("clean")}, 0, ""},
		{"budget exceeded", []string{"check", "--budget", "10", sessionPath("clean")}, 1, ""},
		{"missing file", []string{"check", "testdata/sessions/nope.jsonl"}, 2, "sessionls: cannot read testdata/sessions/nope.jsonl: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sessionls(t, tc.args...)
			assert.Equal(t, tc.code, r.code, "stdout %q stderr %q", r.stdout, r.stderr)
			if tc.stderr != "" {
				assert.Contains(t, r.stderr, tc.stderr)
			} else {
				assert.Equal(t, "", r.stderr)
			}
			if tc.code == 2 && r.stdout != "" && !strings.Contains(tc.name, "missing") {
				t.Errorf("a usage error printed on stdout: %q", r.stdout)
			}
		})
	}
}

func TestCheckBudgetFindings(t *testing.T) {
	atRepoRoot(t)
	fs := checkJSON(t, "--budget", "100000", sessionPath("clean"))
	require.Len(t, fs, 1)
	assert.Equal(t, analysis.CodeBudgetCutoff, fs[0].Code)
	assert.Equal(t, "info", fs[0].Severity)
	fs = checkJSON(t, "--budget", "10", sessionPath("clean"))
	require.Len(t, fs, 1)
	assert.Equal(t, analysis.CodeBudgetExceeded, fs[0].Code)
	assert.Equal(t, "error", fs[0].Severity)
}

func TestCheckDisable(t *testing.T) {
	atRepoRoot(t)
	all := checkJSON(t, sessionPath("units"))
	some := checkJSON(t, "--disable", "swept-message", sessionPath("units"))
	var want []jsonFinding
	for _, f := range all {
		if f.Code != analysis.CodeSweptMessage {
			want = append(want, f)
		}
	}
	require.True(t, len(want) < len(all), "units.jsonl should have a swept-message finding: %+v", all)
	assert.Equal(t, want, some)
}

func TestCheckStdin(t *testing.T) {
	atRepoRoot(t)
	data, err := os.ReadFile(sessionPath("demo"))
	require.NoError(t, err)
	fromFile := checkJSON(t, sessionPath("demo"))

	e, out, errb := testEnv(string(data), nil)
	r := runWith(t, e, out, errb, "check", "--format", "json", "--stdin-filename", "piped/demo.jsonl", "-")
	assert.Equal(t, 1, r.code, r.stderr)
	var fromStdin []jsonFinding
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &fromStdin))
	require.Len(t, fromStdin, len(fromFile))
	for i := range fromFile {
		assert.Equal(t, "piped/demo.jsonl", fromStdin[i].File)
		fromStdin[i].File = fromFile[i].File
	}
	assert.Equal(t, fromFile, fromStdin)

	// Without --stdin-filename the file is "-".
	e, out, errb = testEnv(string(data), nil)
	r = runWith(t, e, out, errb, "check", "-")
	assert.True(t, strings.HasPrefix(r.stdout, "-:"), r.stdout)
}

// writeTree creates files (path → content) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	return dir
}

const badLine = "{\"role\":\"user\"}\n"

func TestCheckDirectoryRecursion(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"b.jsonl":            badLine,
		"a.jsonl":            badLine,
		"sub/deeper/c.jsonl": badLine,
		"sub/a.jsonl":        badLine,
		"notes.txt":          badLine,
		"x.json":             badLine,
		"sub/ok.jsonl":       "{\"role\":\"user\",\"content\":\"hi\"}\n",
	})
	t.Chdir(dir)
	r := sessionls(t, "check", ".")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, `a.jsonl:1:1: error[invalid-record] `, r.stdout[:len("a.jsonl:1:1: error[invalid-record] ")])
	var files []string
	for _, f := range checkJSON(t, ".") {
		files = append(files, f.File)
	}
	assert.Equal(t, []string{"a.jsonl", "b.jsonl", "sub/a.jsonl", "sub/deeper/c.jsonl"}, files)
	assert.Contains(t, r.stdout, "in 4 of 5 files.")
	// A file named explicitly is checked whatever its name.
	assert.Len(t, checkJSON(t, "notes.txt"), 1)
	// The same file twice is checked once.
	assert.Len(t, checkJSON(t, "a.jsonl", "./a.jsonl", "."), 4)

	empty := t.TempDir()
	r = sessionls(t, "check", empty)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "no .jsonl files found")
	assert.Equal(t, "All checks passed (0 files).\n", r.stdout)
}

func TestCheckShards(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/s%02d.jsonl", i%3, i)] = badLine
	}
	dir := writeTree(t, files)
	t.Chdir(dir)
	all := map[string]int{}
	for _, f := range checkJSON(t, ".") {
		all[f.File]++
	}
	require.Len(t, all, 40)
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			r := sessionls(t, "check", "--format", "json", "--shard", fmt.Sprintf("%d/%d", i, n), ".")
			var fs []jsonFinding
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &fs))
			for _, f := range fs {
				seen[f.File]++
			}
		}
		assert.Equal(t, all, seen, "over %d shards every file appears exactly once", n)
	}
	// Adding a file moves no other file between shards.
	before := shardFiles(t, "2/3")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d0", "new.jsonl"), []byte(badLine), 0o644))
	after := shardFiles(t, "2/3")
	after = slices.DeleteFunc(after, func(s string) bool { return s == "d0/new.jsonl" })
	assert.Equal(t, before, after)
}

func shardFiles(t *testing.T, shard string) []string {
	t.Helper()
	var out []string
	for _, f := range checkJSON(t, "--shard", shard, ".") {
		out = append(out, f.File)
	}
	return out
}

func TestCheckIOErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"data/a.jsonl": badLine,
		"data/z.jsonl": badLine,
		"good.jsonl":   "{\"role\":\"user\",\"content\":\"hi\"}\n",
	})
	t.Chdir(dir)
	// Root reads files whatever their mode, so unreadable files are made of
	// things that fail for root too: a dangling symlink, and a link to
	// /proc/self/mem, whose first page is unmapped (read: EIO).
	require.NoError(t, os.Symlink("nowhere.jsonl", filepath.Join("data", "b.jsonl")))
	if _, err := os.Stat("/proc/self/mem"); err == nil {
		require.NoError(t, os.Symlink("/proc/self/mem", filepath.Join("data", "m.jsonl")))
	}

	r := sessionls(t, "check", "missing.jsonl", "good.jsonl", "data")
	assert.Equal(t, 2, r.code, "2 beats 1")
	assert.Contains(t, r.stderr, "sessionls: cannot read missing.jsonl: no such file or directory\n")
	assert.Contains(t, r.stderr, "sessionls: cannot read data/b.jsonl: no such file or directory\n")
	if _, err := os.Lstat(filepath.Join("data", "m.jsonl")); err == nil {
		// EIO on Linux; a hardened kernel may refuse the open instead.
		assert.Contains(t, r.stderr, "sessionls: cannot read data/m.jsonl: ")
	}
	// The other files are still checked and reported.
	assert.Contains(t, r.stdout, "data/a.jsonl:1:1: error[invalid-record]")
	assert.Contains(t, r.stdout, "data/z.jsonl:1:1: error[invalid-record]")
	n := 2
	if _, err := os.Lstat(filepath.Join("data", "m.jsonl")); err == nil {
		n = 3
	}
	assert.Contains(t, r.stdout, fmt.Sprintf("in 2 of 3 files; %d paths could not be read.\n", n))
	assert.NotContains(t, r.stderr, "no .jsonl files found")

	// Good file only plus a missing one: still 2, good file's result shown.
	r = sessionls(t, "check", "--format", "json", "good.jsonl", "missing.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "[]\n", r.stdout)

	// A directory named like a session, given as a file to budget: EISDIR.
	require.NoError(t, os.Mkdir("dir.jsonl", 0o755))
	r = sessionls(t, "budget", "--max-chars", "10", "dir.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "sessionls: cannot read dir.jsonl: is a directory\n", r.stderr)

	// SARIF records the failure in the invocation.
	r = sessionls(t, "check", "--format", "sarif", "good.jsonl", "missing.jsonl")
	assert.Equal(t, 2, r.code)
	log := validateSARIF(t, []byte(r.stdout), 0)
	inv := log["runs"].([]any)[0].(map[string]any)["invocations"].([]any)[0].(map[string]any)
	assert.Equal(t, false, inv["executionSuccessful"])

	if os.Geteuid() != 0 {
		require.NoError(t, os.WriteFile("locked.jsonl", []byte(badLine), 0o000))
		r = sessionls(t, "check", "locked.jsonl", "good.jsonl")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "sessionls: cannot read locked.jsonl: permission denied\n")
	}
}

func TestCheckHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB file")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(big)
	require.NoError(t, err)
	_, err = f.WriteString(`{"role":"user","content":"`)
	require.NoError(t, err)
	chunk := bytes.Repeat([]byte("abcdefgh"), 1<<17) // 1 MiB
	for range 100 {
		_, err = f.Write(chunk)
		require.NoError(t, err)
	}
	_, err = f.WriteString("\"}\n{\"role\":\"user\",\"content\":\"after the big line\"}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	nested := filepath.Join(dir, "nested.jsonl")
	require.NoError(t, os.WriteFile(nested, append(bytes.Repeat([]byte("["), 100_000), '\n'), 0o644))
	nestedClosed := filepath.Join(dir, "nested_closed.jsonl")
	require.NoError(t, os.WriteFile(nestedClosed, append(append(bytes.Repeat([]byte("["), 100_000), bytes.Repeat([]byte("]"), 100_000)...), '\n'), 0o644))
	nul := filepath.Join(dir, "nul.jsonl")
	require.NoError(t, os.WriteFile(nul, []byte("{\"role\":\"user\",\"content\":\"a\x00b\"}\n\x00\x00\x00\n{\"role\":\"user\",\"content\":\"ok\"}\n"), 0o644))

	r := sessionls(t, "check", "--format", "json", big, nested, nestedClosed, nul)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, "", r.stderr)
	var fs []jsonFinding
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &fs))
	byFile := map[string][]jsonFinding{}
	for _, f := range fs {
		byFile[f.File] = append(byFile[f.File], f)
	}
	assert.Empty(t, byFile[big], "the 100 MB line is a valid message")
	require.Len(t, byFile[nested], 1)
	assert.Equal(t, analysis.CodeInvalidJSON, byFile[nested][0].Code)
	require.Len(t, byFile[nestedClosed], 1)
	assert.Equal(t, analysis.CodeInvalidRecord, byFile[nestedClosed][0].Code, "deep arrays parse; an array is not a record")
	require.Len(t, byFile[nul], 2)
	assert.Equal(t, 1, byFile[nul][0].Line)
	assert.Equal(t, analysis.CodeInvalidJSON, byFile[nul][0].Code)
	assert.Equal(t, 28, byFile[nul][0].Column, "the NUL inside the string is the offending character")
	assert.Equal(t, 2, byFile[nul][1].Line)

	// budget reads the big file too: one unit per message.
	r = sessionls(t, "budget", "--format", "json", "--max-chars", "1000", big)
	assert.Equal(t, 0, r.code, r.stderr)
	var bj budgetJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &bj))
	require.Len(t, bj.Units, 2)
	assert.Equal(t, int64(len(`{"role":"user","content":""}`)+100<<20+1), bj.Units[0].Chars)
	require.NotNil(t, bj.Cutoff)
	assert.Equal(t, 2, bj.Cutoff.FirstKeptLine)
}

func TestCheckMemoryLimit(t *testing.T) {
	atRepoRoot(t)
	prev := debug.SetMemoryLimit(-1)
	for _, tc := range []struct {
		gomemlimit string
		want       int64
	}{{"", checkMemoryLimit}, {"1GiB", prev}} {
		e, out, errb := testEnv("", map[string]string{"GOMEMLIMIT": tc.gomemlimit})
		var during int64
		e.analyze = func(ctx context.Context, _ dialect.Dialect, r io.Reader, o analysis.Options) (*analysis.Report, error) {
			during = debug.SetMemoryLimit(-1)
			return analysis.AnalyzeReader(ctx, r, o)
		}
		r := runWith(t, e, out, errb, "check", sessionPath("clean"))
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, tc.want, during, "GOMEMLIMIT=%q", tc.gomemlimit)
		assert.Equal(t, prev, debug.SetMemoryLimit(-1), "the limit is restored after the run")
	}
}

func TestInternalErrorsBecomeExit2(t *testing.T) {
	atRepoRoot(t)
	boom := func(context.Context, dialect.Dialect, io.Reader, analysis.Options) (*analysis.Report, error) {
		panic("engine bug")
	}
	for _, args := range [][]string{
		{"check", sessionPath("clean"), sessionPath("demo")},
		{"budget", "--max-chars", "10", sessionPath("clean")},
		{"trim", "--max-chars", "10", sessionPath("clean")},
	} {
		e, out, errb := testEnv("", nil)
		e.analyze = boom
		r := runWith(t, e, out, errb, args...)
		assert.Equal(t, 2, r.code, "%v", args)
		assert.Contains(t, r.stderr, "internal error")
		assert.Contains(t, r.stderr, "engine bug")
	}
	// A failing read (not a panic) is an I/O error naming the file.
	e, out, errb := testEnv("", nil)
	e.analyze = func(context.Context, dialect.Dialect, io.Reader, analysis.Options) (*analysis.Report, error) {
		return nil, &os.PathError{Op: "read", Path: "x", Err: errors.New("device unplugged")}
	}
	r := runWith(t, e, out, errb, "check", sessionPath("clean"))
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "sessionls: cannot read testdata/sessions/clean.jsonl: device unplugged\n", r.stderr)
}

func TestVersionAndHelp(t *testing.T) {
	r := sessionls(t, "version")
	assert.Equal(t, 0, r.code)
	assert.True(t, regexp.MustCompile(`^sessionls 0\.0\.0-test \(go1\.test [a-z0-9]+/[a-z0-9]+\)\n$`).MatchString(r.stdout), r.stdout)
	r2 := sessionls(t, "--version")
	assert.Equal(t, 0, r2.code)
	assert.Equal(t, r.stdout, r2.stdout)
	for _, cmd := range []string{"check", "budget", "trim", "version", "serve"} {
		r := sessionls(t, cmd, "--help")
		assert.Equal(t, 0, r.code, cmd)
		assert.Contains(t, r.stdout, "Examples:", cmd)
		assert.Contains(t, r.stdout, "sessionls "+cmd, cmd)
	}
	r = sessionls(t, "serve", "--log-level", "loud")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "invalid --log-level")
}

func TestCheckInterrupted(t *testing.T) {
	atRepoRoot(t)
	e, out, errb := testEnv("", nil)
	ctx, cancel := context.WithCancel(context.Background())
	e.analyze = func(c context.Context, _ dialect.Dialect, r io.Reader, o analysis.Options) (*analysis.Report, error) {
		cancel() // as if Ctrl-C came while the first file was read
		return analysis.AnalyzeReader(c, r, o)
	}
	code := run(ctx, e, []string{"check", "testdata/sessions"})
	assert.Equal(t, 2, code)
	assert.Equal(t, "sessionls: interrupted\n", errb.String())
	assert.NotContains(t, out.String(), "All checks passed")

	e, out, errb = testEnv("", nil)
	ctx, cancel = context.WithCancel(context.Background())
	e.analyze = func(c context.Context, _ dialect.Dialect, r io.Reader, o analysis.Options) (*analysis.Report, error) {
		cancel()
		return analysis.AnalyzeReader(c, r, o)
	}
	code = run(ctx, e, []string{"check", "--format", "json", "testdata/sessions"})
	assert.Equal(t, 2, code)
	var fs []jsonFinding
	assert.NoError(t, json.Unmarshal(out.Bytes(), &fs), "an interrupted json run is still one array: %q", out.String())
	assert.Equal(t, "sessionls: interrupted\n", errb.String(), "the json run says it was interrupted on stderr")
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/internal/testtree"
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
				r.wantCode(t, sc.code)
				if r.stderr != "" {
					t.Errorf("r.stderr = %q, want %q", r.stderr, "")
				}
				golden(t, "check/"+sc.name+"."+format, r.stdout)
				if format == formatSARIF {
					validateSARIF(t, []byte(r.stdout), countFindings(t, sc.name))
				}
			})
		}
		t.Run(format+"/directory", func(t *testing.T) {
			r := sessionls(t, "check", "--format", format, "testdata/sessions")
			r.wantCode(t, 1)
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
	r.decodeJSON(t, &out)
	return out
}

func TestCheckTextFormatAndSummary(t *testing.T) {
	atRepoRoot(t)
	r := sessionls(t, "check", sessionPath("clean"), sessionPath("demo"), sessionPath("units"))
	r.wantCode(t, 1)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if got := len(lines); got < 3 {
		t.Fatalf("len(lines) = %v, want >= %v", got, 3)
	}
	re := regexp.MustCompile(`^testdata/sessions/(demo|units)\.jsonl:\d+:\d+: (error|warning|info)\[[a-z-]+\] (\[(unsafe )?fix\] )?.+$`)
	for _, l := range lines[:len(lines)-2] {
		if !re.MatchString(l) {
			t.Errorf("finding line %q: re.MatchString(l) is false, want true", l)
		}
	}
	if !regexp.MustCompile(`^Found \d+ errors?, \d+ warnings?(, \d+ info)? in 2 of 3 files\.$`).MatchString(lines[len(lines)-2]) {
		t.Errorf("summary %q: regexp.MustCompile(`^Found \\d+ errors?, \\d+ warnings?(, \\d+ info)? in 2 of 3 files\\.$`).MatchString(lines[len(lines)-2]) is false, want true", lines[len(lines)-2])
	}
	// demo's truncated line and orphan, units' orphan.
	if got := lines[len(lines)-1]; got != "3 fixable with --fix --unsafe-fixes." {
		t.Errorf("lines[len(lines)-1] = %q, want %q", got, "3 fixable with --fix --unsafe-fixes.")
	}
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
	if !(lastDemo >= 0 && lastDemo < firstUnits) {
		t.Errorf("output not in argument order:\n%s: lastDemo >= 0 && lastDemo < firstUnits is false, want true", r.stdout)
	}

	r = sessionls(t, "check", sessionPath("clean"), sessionPath("crlf_ok"))
	r.wantCode(t, 0)
	if r.stdout != "All checks passed (2 files).\n" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "All checks passed (2 files).\n")
	}
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
		r.wantCode(t, 1)
		if got := strings.Contains(r.stdout, "\x1b["); got != tc.want {
			t.Errorf(`tty=%v NO_COLOR=%q: %q: strings.Contains(r.stdout, "\x1b[") = %v, want %v`, tc.tty, tc.noColor, r.stdout, got, tc.want)
		}
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
			r.wantCode(t, tc.code)
			if tc.stderr != "" {
				if !strings.Contains(r.stderr, tc.stderr) {
					t.Errorf("r.stderr = %q, want it to contain %q", r.stderr, tc.stderr)
				}
			} else {
				if r.stderr != "" {
					t.Errorf("r.stderr = %q, want %q", r.stderr, "")
				}
			}
			if tc.code == 2 && r.stdout != "" && !strings.Contains(tc.name, "missing") {
				t.Errorf("a usage error printed on stdout: %q", r.stdout)
			}
		})
	}
}

func TestCheckBudgetFindings(t *testing.T) {
	atRepoRoot(t)
	for _, tc := range []struct {
		budget, code, severity string
	}{
		{"100000", analysis.CodeBudgetCutoff, "info"},
		{"10", analysis.CodeBudgetExceeded, "error"},
	} {
		fs := checkJSON(t, "--budget", tc.budget, sessionPath("clean"))
		if len(fs) != 1 {
			t.Fatalf("--budget %s: len(fs) = %d, want %d: %+v", tc.budget, len(fs), 1, fs)
		}
		if fs[0].Code != tc.code || fs[0].Severity != tc.severity {
			t.Errorf("--budget %s: fs[0] is %s %q, want %s %q", tc.budget, fs[0].Severity, fs[0].Code, tc.severity, tc.code)
		}
	}
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
	if !(len(want) < len(all)) {
		t.Fatalf("units.jsonl should have a swept-message finding: %+v: len(want) < len(all) is false, want true", all)
	}
	wantEqual(t, "some", some, want)
}

func TestCheckStdin(t *testing.T) {
	atRepoRoot(t)
	data := readFile(t, sessionPath("demo"))
	fromFile := checkJSON(t, sessionPath("demo"))

	e, out, errb := testEnv(string(data), nil)
	r := runWith(t, e, out, errb, "check", "--format", "json", "--stdin-filename", "piped/demo.jsonl", "-")
	r.wantCode(t, 1)
	var fromStdin []jsonFinding
	r.decodeJSON(t, &fromStdin)
	if want := len(fromFile); len(fromStdin) != want {
		t.Fatalf("len(fromStdin) = %d, want %d: %+v", len(fromStdin), want, fromStdin)
	}
	for i := range fromFile {
		if fromStdin[i].File != "piped/demo.jsonl" {
			t.Errorf("fromStdin[i].File = %q, want %q", fromStdin[i].File, "piped/demo.jsonl")
		}
		fromStdin[i].File = fromFile[i].File
	}
	wantEqual(t, "fromStdin", fromStdin, fromFile)

	// Without --stdin-filename the file is "-".
	e, out, errb = testEnv(string(data), nil)
	r = runWith(t, e, out, errb, "check", "-")
	wantPrefix(t, "stdout", r.stdout, "-:")
}

const badLine = "{\"role\":\"user\"}\n"

func TestCheckDirectoryRecursion(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
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
	r.wantCode(t, 1)
	if got := r.stdout[:len("a.jsonl:1:1: error[invalid-record] ")]; got != `a.jsonl:1:1: error[invalid-record] ` {
		t.Errorf(`r.stdout[:len("a.jsonl:1:1: error[invalid-record] ")] = %q, want %q`, got, `a.jsonl:1:1: error[invalid-record] `)
	}
	var files []string
	for _, f := range checkJSON(t, ".") {
		files = append(files, f.File)
	}
	wantEqual(t, "files", files, []string{"a.jsonl", "b.jsonl", "sub/a.jsonl", "sub/deeper/c.jsonl"})
	r.wantStdout(t, "in 4 of 5 files.")
	// A file named explicitly is checked whatever its name.
	if got := len(checkJSON(t, "notes.txt")); got != 1 {
		t.Errorf(`len(checkJSON(t, "notes.txt")) = %d, want %d`, got, 1)
	}
	// The same file twice is checked once.
	if got := len(checkJSON(t, "a.jsonl", "./a.jsonl", ".")); got != 4 {
		t.Errorf(`len(checkJSON(t, "a.jsonl", "./a.jsonl", ".")) = %d, want %d`, got, 4)
	}

	empty := t.TempDir()
	r = sessionls(t, "check", empty)
	r.wantCode(t, 0)
	r.wantStderr(t, "no .jsonl files found")
	if r.stdout != "All checks passed (0 files).\n" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "All checks passed (0 files).\n")
	}
}

func TestCheckShards(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/s%02d.jsonl", i%3, i)] = badLine
	}
	dir := testtree.Write(t, files)
	t.Chdir(dir)
	all := map[string]int{}
	for _, f := range checkJSON(t, ".") {
		all[f.File]++
	}
	if len(all) != 40 {
		t.Fatalf("len(all) = %d, want %d: %+v", len(all), 40, all)
	}
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			r := sessionls(t, "check", "--format", "json", "--shard", fmt.Sprintf("%d/%d", i, n), ".")
			var fs []jsonFinding
			r.decodeJSON(t, &fs)
			for _, f := range fs {
				seen[f.File]++
			}
		}
		if !reflect.DeepEqual(seen, all) {
			t.Errorf("over %d shards every file appears exactly once: seen = %+v, want %+v", n, seen, all)
		}
	}
	// Adding a file moves no other file between shards.
	before := shardFiles(t, "2/3")
	writeFile(t, filepath.Join(dir, "d0", "new.jsonl"), []byte(badLine), 0o644)
	after := shardFiles(t, "2/3")
	after = slices.DeleteFunc(after, func(s string) bool { return s == "d0/new.jsonl" })
	wantEqual(t, "after", after, before)
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
	dir := testtree.Write(t, map[string]string{
		"data/a.jsonl": badLine,
		"data/z.jsonl": badLine,
		"good.jsonl":   "{\"role\":\"user\",\"content\":\"hi\"}\n",
	})
	t.Chdir(dir)
	// Root reads files whatever their mode, so unreadable files are made of
	// things that fail for root too: a dangling symlink, and a link to
	// /proc/self/mem, whose first page is unmapped (read: EIO).
	if err := os.Symlink("nowhere.jsonl", filepath.Join("data", "b.jsonl")); err != nil {
		t.Fatalf(`os.Symlink("nowhere.jsonl", filepath.Join("data", "b.jsonl")): %v`, err)
	}
	if _, err := os.Stat("/proc/self/mem"); err == nil {
		if err := os.Symlink("/proc/self/mem", filepath.Join("data", "m.jsonl")); err != nil {
			t.Fatalf(`os.Symlink("/proc/self/mem", filepath.Join("data", "m.jsonl")): %v`, err)
		}
	}

	r := sessionls(t, "check", "missing.jsonl", "good.jsonl", "data")
	r.wantCode(t, 2, "2 beats 1")
	r.wantStderr(t, "sessionls: cannot read missing.jsonl: no such file or directory\n", "sessionls: cannot read data/b.jsonl: no such file or directory\n")
	if _, err := os.Lstat(filepath.Join("data", "m.jsonl")); err == nil {
		// EIO on Linux; a hardened kernel may refuse the open instead.
		r.wantStderr(t, "sessionls: cannot read data/m.jsonl: ")
	}
	// The other files are still checked and reported.
	r.wantStdout(t, "data/a.jsonl:1:1: error[invalid-record]", "data/z.jsonl:1:1: error[invalid-record]")
	n := 2
	if _, err := os.Lstat(filepath.Join("data", "m.jsonl")); err == nil {
		n = 3
	}
	if want := fmt.Sprintf("in 2 of 3 files; %d paths could not be read.\n", n); !strings.Contains(r.stdout, want) {
		t.Errorf("r.stdout = %q, want it to contain %q", r.stdout, want)
	}
	wantNotContains(t, "stderr", r.stderr, "no .jsonl files found")

	// Good file only plus a missing one: still 2, good file's result shown.
	r = sessionls(t, "check", "--format", "json", "good.jsonl", "missing.jsonl")
	r.wantCode(t, 2)
	if r.stdout != "[]\n" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "[]\n")
	}

	// A directory named like a session, given as a file to budget: EISDIR.
	if err := os.Mkdir("dir.jsonl", 0o755); err != nil {
		t.Fatalf(`os.Mkdir("dir.jsonl", 0o755): %v`, err)
	}
	r = sessionls(t, "budget", "--max-chars", "10", "dir.jsonl")
	r.wantCode(t, 2)
	if r.stderr != "sessionls: cannot read dir.jsonl: is a directory\n" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "sessionls: cannot read dir.jsonl: is a directory\n")
	}

	// SARIF records the failure in the invocation.
	r = sessionls(t, "check", "--format", "sarif", "good.jsonl", "missing.jsonl")
	r.wantCode(t, 2)
	log := validateSARIF(t, []byte(r.stdout), 0)
	inv := log["runs"].([]any)[0].(map[string]any)["invocations"].([]any)[0].(map[string]any)
	wantEqual(t, `inv["executionSuccessful"]`, inv["executionSuccessful"], false)

	if os.Geteuid() != 0 {
		writeFile(t, "locked.jsonl", []byte(badLine), 0o000)
		r = sessionls(t, "check", "locked.jsonl", "good.jsonl")
		r.wantCode(t, 2)
		r.wantStderr(t, "sessionls: cannot read locked.jsonl: permission denied\n")
	}
}

func TestCheckHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB file")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(`{"role":"user","content":"`)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("abcdefgh"), 1<<17) // 1 MiB
	for range 100 {
		_, err = f.Write(chunk)
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.WriteString("\"}\n{\"role\":\"user\",\"content\":\"after the big line\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("f.Close(): %v", err)
	}

	nested := filepath.Join(dir, "nested.jsonl")
	writeFile(t, nested, append(bytes.Repeat([]byte("["), 100_000), '\n'), 0o644)
	nestedClosed := filepath.Join(dir, "nested_closed.jsonl")
	writeFile(t, nestedClosed, append(append(bytes.Repeat([]byte("["), 100_000), bytes.Repeat([]byte("]"), 100_000)...), '\n'), 0o644)
	nul := filepath.Join(dir, "nul.jsonl")
	writeFile(t, nul, []byte("{\"role\":\"user\",\"content\":\"a\x00b\"}\n\x00\x00\x00\n{\"role\":\"user\",\"content\":\"ok\"}\n"), 0o644)

	r := sessionls(t, "check", "--format", "json", big, nested, nestedClosed, nul)
	r.wantCode(t, 1)
	if r.stderr != "" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "")
	}
	var fs []jsonFinding
	r.decodeJSON(t, &fs)
	byFile := map[string][]jsonFinding{}
	for _, f := range fs {
		byFile[f.File] = append(byFile[f.File], f)
	}
	if len(byFile[big]) != 0 {
		t.Errorf("the 100 MB line is a valid message: byFile[big] = %+v, want empty", byFile[big])
	}
	if len(byFile[nested]) != 1 {
		t.Fatalf("len(byFile[nested]) = %d, want %d: %+v", len(byFile[nested]), 1, byFile[nested])
	}
	if byFile[nested][0].Code != analysis.CodeInvalidJSON {
		t.Errorf("byFile[nested][0].Code = %q, want %q", byFile[nested][0].Code, analysis.CodeInvalidJSON)
	}
	if len(byFile[nestedClosed]) != 1 {
		t.Fatalf("len(byFile[nestedClosed]) = %d, want %d: %+v", len(byFile[nestedClosed]), 1, byFile[nestedClosed])
	}
	if byFile[nestedClosed][0].Code != analysis.CodeInvalidRecord {
		t.Errorf("deep arrays parse; an array is not a record: byFile[nestedClosed][0].Code = %q, want %q", byFile[nestedClosed][0].Code, analysis.CodeInvalidRecord)
	}
	if len(byFile[nul]) != 2 {
		t.Fatalf("len(byFile[nul]) = %d, want %d: %+v", len(byFile[nul]), 2, byFile[nul])
	}
	if byFile[nul][0].Line != 1 {
		t.Errorf("byFile[nul][0].Line = %v, want %v", byFile[nul][0].Line, 1)
	}
	if byFile[nul][0].Code != analysis.CodeInvalidJSON {
		t.Errorf("byFile[nul][0].Code = %q, want %q", byFile[nul][0].Code, analysis.CodeInvalidJSON)
	}
	if byFile[nul][0].Column != 28 {
		t.Errorf("the NUL inside the string is the offending character: byFile[nul][0].Column = %v, want %v", byFile[nul][0].Column, 28)
	}
	if byFile[nul][1].Line != 2 {
		t.Errorf("byFile[nul][1].Line = %v, want %v", byFile[nul][1].Line, 2)
	}

	// budget reads the big file too: one unit per message.
	r = sessionls(t, "budget", "--format", "json", "--max-chars", "1000", big)
	r.wantCode(t, 0)
	var bj budgetJSON
	r.decodeJSON(t, &bj)
	if len(bj.Units) != 2 {
		t.Fatalf("len(bj.Units) = %d, want %d: %+v", len(bj.Units), 2, bj.Units)
	}
	if want := int64(len(`{"role":"user","content":""}`) + 100<<20 + 1); bj.Units[0].Chars != want {
		t.Errorf("bj.Units[0].Chars = %v, want %v", bj.Units[0].Chars, want)
	}
	if bj.Cutoff == nil {
		t.Fatal("bj.Cutoff is nil, want non-nil")
	}
	if bj.Cutoff.FirstKeptLine != 2 {
		t.Errorf("bj.Cutoff.FirstKeptLine = %v, want %v", bj.Cutoff.FirstKeptLine, 2)
	}
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
		r.wantCode(t, 0)
		if during != tc.want {
			t.Errorf("GOMEMLIMIT=%q: during = %v, want %v", tc.gomemlimit, during, tc.want)
		}
		if got := debug.SetMemoryLimit(-1); got != prev {
			t.Errorf("the limit is restored after the run: debug.SetMemoryLimit(-1) = %v, want %v", got, prev)
		}
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
		r.wantCode(t, 2, args)
		r.wantStderr(t, "internal error", "engine bug")
	}
	// A failing read (not a panic) is an I/O error naming the file.
	e, out, errb := testEnv("", nil)
	e.analyze = func(context.Context, dialect.Dialect, io.Reader, analysis.Options) (*analysis.Report, error) {
		return nil, &os.PathError{Op: "read", Path: "x", Err: errors.New("device unplugged")}
	}
	r := runWith(t, e, out, errb, "check", sessionPath("clean"))
	r.wantCode(t, 2)
	if r.stderr != "sessionls: cannot read testdata/sessions/clean.jsonl: device unplugged\n" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "sessionls: cannot read testdata/sessions/clean.jsonl: device unplugged\n")
	}
}

func TestVersionAndHelp(t *testing.T) {
	r := sessionls(t, "version")
	r.wantCode(t, 0)
	if !regexp.MustCompile(`^sessionls 0\.0\.0-test \(go1\.test [a-z0-9]+/[a-z0-9]+\)\n$`).MatchString(r.stdout) {
		t.Errorf("%v: regexp.MustCompile(`^sessionls 0\\.0\\.0-test \\(go1\\.test [a-z0-9]+/[a-z0-9]+\\)\\n$`).MatchString(r.stdout) is false, want true", r.stdout)
	}
	r2 := sessionls(t, "--version")
	if r2.code != 0 {
		t.Errorf("r2.code = %v, want %v", r2.code, 0)
	}
	if r2.stdout != r.stdout {
		t.Errorf("r2.stdout = %q, want %q", r2.stdout, r.stdout)
	}
	for _, cmd := range []string{"check", "budget", "trim", "version", "serve"} {
		r := sessionls(t, cmd, "--help")
		r.wantCode(t, 0, cmd)
		if !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("%v: r.stdout = %q, want it to contain %q", cmd, r.stdout, "Examples:")
		}
		if want := "sessionls " + cmd; !strings.Contains(r.stdout, want) {
			t.Errorf("%v: r.stdout = %q, want it to contain %q", cmd, r.stdout, want)
		}
	}
	r = sessionls(t, "serve", "--log-level", "loud")
	r.wantCode(t, 2)
	r.wantStderr(t, "invalid --log-level")
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
	if code != 2 {
		t.Errorf("code = %v, want %v", code, 2)
	}
	if got := errb.String(); got != "sessionls: interrupted\n" {
		t.Errorf("errb.String() = %q, want %q", got, "sessionls: interrupted\n")
	}
	if got := out.String(); strings.Contains(got, "All checks passed") {
		t.Errorf("out.String() = %q, want it not to contain %q", got, "All checks passed")
	}

	e, out, errb = testEnv("", nil)
	ctx, cancel = context.WithCancel(context.Background())
	e.analyze = func(c context.Context, _ dialect.Dialect, r io.Reader, o analysis.Options) (*analysis.Report, error) {
		cancel()
		return analysis.AnalyzeReader(c, r, o)
	}
	code = run(ctx, e, []string{"check", "--format", "json", "testdata/sessions"})
	if code != 2 {
		t.Errorf("code = %v, want %v", code, 2)
	}
	var fs []jsonFinding
	if err := json.Unmarshal(out.Bytes(), &fs); err != nil {
		t.Errorf("an interrupted json run is still one array: %q: json.Unmarshal(out.Bytes(), &fs): %v", out.String(), err)
	}
	if got := errb.String(); got != "sessionls: interrupted\n" {
		t.Errorf("the json run says it was interrupted on stderr: errb.String() = %q, want %q", got, "sessionls: interrupted\n")
	}
}

package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// copySession copies a shipped session into a temporary directory with the
// given mode and returns its path and bytes.
func copySession(t *testing.T, name string, mode os.FileMode) (string, []byte) {
	t.Helper()
	data := readFile(t, filepath.Join("..", "testdata", "sessions", name+".jsonl"))
	path := filepath.Join(t.TempDir(), name+".jsonl")
	writeFile(t, path, data, mode)
	if err := os.Chmod(path, mode); err != nil {
		t.Fatalf("os.Chmod(path, mode): %v", err)
	}
	return path, data
}

// TestCheckFixInPlace: --fix writes exactly what the fix engine makes of
// the file, keeps its mode, leaves no temporary file, reports what remains
// and exits as that requires; a second --fix changes nothing.
func TestCheckFixInPlace(t *testing.T) {
	for _, sc := range sessionCases {
		for _, unsafe := range []bool{false, true} {
			name := sc.name
			if unsafe {
				name += "/unsafe"
			}
			t.Run(name, func(t *testing.T) {
				path, data := copySession(t, sc.name, 0o640)
				want := fix.FixAll(data, analysis.Options{}, unsafe)
				args := []string{"check", "--fix", path}
				if unsafe {
					args = []string{"check", "--fix", "--unsafe-fixes", path}
				}
				r := sessionls(t, args...)
				got := readFile(t, path)
				if expected, actual := string(want.Data), string(got); actual != expected {
					t.Errorf("file after --fix: string(got) = %q, want %q", actual, expected)
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if want, got := os.FileMode(0o640), fi.Mode().Perm(); got != want {
					t.Errorf("mode kept: fi.Mode().Perm() = %v, want %v", got, want)
				}
				entries, err := os.ReadDir(filepath.Dir(path))
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) != 1 {
					t.Errorf("no temporary file left: len(entries) = %d, want %d: %+v", len(entries), 1, entries)
				}

				// Exit code and summary follow what remains.
				code := ExitClean
				for _, f := range want.Report.Findings {
					if f.Severity == analysis.SeverityError {
						code = ExitFindings
					}
				}
				r.wantCode(t, code)
				if r.stderr != "" {
					t.Errorf("r.stderr = %q, want %q", r.stderr, "")
				}
				if want.Fixed > 0 {
					if summary := "Fixed " + textfmt.Plural(want.Fixed, "finding", "findings") + " in 1 file"; !strings.Contains(r.stdout, summary) {
						t.Errorf("r.stdout = %q, want it to contain %q", r.stdout, summary)
					}
				}
				if want.Fixed == 0 && len(want.Report.Findings) > 0 {
					r.wantStdout(t, "Nothing fixed; ")
				}
				if expected, got := len(want.Report.Findings), strings.Count(r.stdout, ".jsonl:"); got != expected {
					t.Errorf("one line per remaining finding:\n%s: strings.Count(r.stdout, \".jsonl:\") = %v, want %v", r.stdout, got, expected)
				}

				again := sessionls(t, args...)
				got2, _ := os.ReadFile(path)
				if want, actual := string(got), string(got2); actual != want {
					t.Errorf("a second --fix changes nothing: string(got2) = %q, want %q", actual, want)
				}
				if len(want.Report.Findings) > 0 {
					if !strings.Contains(again.stdout, "Nothing fixed; ") {
						t.Errorf("again.stdout = %q, want it to contain %q", again.stdout, "Nothing fixed; ")
					}
				} else {
					if again.stdout != "All checks passed (1 file).\n" {
						t.Errorf("again.stdout = %q, want %q", again.stdout, "All checks passed (1 file).\n")
					}
				}
				if again.code != r.code {
					t.Errorf("again.code = %v, want %v", again.code, r.code)
				}
			})
		}
	}
}

// TestCheckFixCounts pins the summary on the demo session: the truncated
// line and the orphan are unsafe, the system line has no fix.
func TestCheckFixCounts(t *testing.T) {
	path, _ := copySession(t, "demo", 0o644)
	r := sessionls(t, "check", "--fix", path)
	r.wantCode(t, 1)
	if !strings.HasSuffix(r.stdout, "Found 2 errors, 1 warning in 1 of 1 file.\nNothing fixed; 3 remain (2 more fixable with --unsafe-fixes).\n") {
		t.Errorf(`%v: strings.HasSuffix(r.stdout, "Found 2 errors, 1 warning in 1 of 1 file.\nNothing fixed; 3 remain (2 more fixable with --unsafe-fixes).\n") is false, want true`, r.stdout)
	}
	r = sessionls(t, "check", "--fix", "--unsafe-fixes", path)
	r.wantCode(t, 1, "the system line remains")
	if !strings.HasSuffix(r.stdout, "Found 1 error, 0 warnings in 1 of 1 file.\nFixed 2 findings in 1 file; 1 remains.\n"+
		"The unsafe fixes deleted 139 bytes (2 records, whole or partial).\n") {
		t.Errorf("%v: strings.HasSuffix(r.stdout, \"Found 1 error, 0 warnings in 1 of 1 file.\\nFixed 2 findings in 1 file; 1 remains.\\n\"+\n\t\t\"The unsafe fixes deleted 139 bytes (2 records, whole or partial).\\n\") is false, want true", r.stdout)
	}

	path, _ = copySession(t, "crlf", 0o644)
	r = sessionls(t, "check", "--fix", path)
	r.wantCode(t, 0, "every finding fixed")
	if r.stdout != "All checks passed (1 file).\nFixed 3 findings in 1 file; 0 remain.\n" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "All checks passed (1 file).\nFixed 3 findings in 1 file; 0 remain.\n")
	}
}

// TestCheckDiff: --diff prints what --fix would write (as a diff whose
// result is --fix's file), writes nothing, and exits 1 when a file would
// change.
func TestCheckDiff(t *testing.T) {
	atRepoRoot(t)
	for _, sc := range sessionCases {
		for _, unsafe := range []bool{false, true} {
			name := sc.name
			args := []string{"check", "--diff"}
			if unsafe {
				name += "-unsafe"
				args = append(args, "--unsafe-fixes")
			}
			t.Run(name, func(t *testing.T) {
				path := sessionPath(sc.name)
				before := readFile(t, path)
				r := sessionls(t, append(args, path)...)
				after, _ := os.ReadFile(path)
				if want, got := string(before), string(after); got != want {
					t.Errorf("--diff writes nothing: string(after) = %q, want %q", got, want)
				}
				res := fix.FixAll(before, analysis.Options{}, unsafe)
				if want := string(fix.UnifiedDiff(path, path, before, res.Data, res.Origin)); r.stdout != want {
					t.Errorf("r.stdout = %q, want %q", r.stdout, want)
				}
				want := ExitClean
				if res.Fixed > 0 {
					want = ExitFindings
				}
				r.wantCode(t, want)
				golden(t, "fix/"+name+".diff", r.stdout+"--- stderr ---\n"+r.stderr)
			})
		}
	}
}

func TestCheckFixStdin(t *testing.T) {
	atRepoRoot(t)
	data := readFile(t, sessionPath("badrecords"))
	e, out, errb := testEnv(string(data), nil)
	r := runWith(t, e, out, errb, "check", "--fix", "--stdin-filename", "bad.jsonl", "-")
	want := fix.FixAll(data, analysis.Options{}, false)
	if expected := string(want.Data); r.stdout != expected {
		t.Errorf("the fixed text on stdout: r.stdout = %q, want %q", r.stdout, expected)
	}
	r.wantCode(t, 1)
	r.wantStderr(t, "bad.jsonl:3:2: error[invalid-json] invalid session JSON", "Fixed 3 findings in 1 file; 31 remain (3 more fixable with --unsafe-fixes).\n")

	// A clean stdin comes back unchanged.
	clean, _ := os.ReadFile(sessionPath("clean"))
	e, out, errb = testEnv(string(clean), nil)
	r = runWith(t, e, out, errb, "check", "--fix", "-")
	if want := string(clean); r.stdout != want {
		t.Errorf("r.stdout = %q, want %q", r.stdout, want)
	}
	r.wantCode(t, 0)

	// --diff on stdin prints the diff.
	e, out, errb = testEnv(string(data), nil)
	r = runWith(t, e, out, errb, "check", "--diff", "--stdin-filename", "bad.jsonl", "-")
	if expected := string(fix.UnifiedDiff("bad.jsonl", "bad.jsonl", data, want.Data, want.Origin)); r.stdout != expected {
		t.Errorf("r.stdout = %q, want %q", r.stdout, expected)
	}
	r.wantCode(t, 1)
}

func TestCheckFixUsage(t *testing.T) {
	atRepoRoot(t)
	for _, args := range [][]string{
		{"check", "--unsafe-fixes", sessionPath("demo")},
		{"check", "--fix", "-", sessionPath("demo")},
		{"check", "--diff", "--format", "json", sessionPath("demo")},
	} {
		r := sessionls(t, args...)
		r.wantCode(t, ExitError, args)
		if !strings.Contains(r.stderr, "Usage:") {
			t.Errorf("%v: r.stderr = %q, want it to contain %q", args, r.stderr, "Usage:")
		}
	}
}

// TestCheckFixesStreamedMatchInMemory: the fixability a plain check reports
// (found by reading the file a second time, or stdin spooled) is the fix
// engine's on the whole file in memory.
func TestCheckFixesStreamedMatchInMemory(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 9))
	var files [][]byte
	for _, sc := range sessionCases {
		b := readFile(t, filepath.Join("..", "testdata", "sessions", sc.name+".jsonl"))
		files = append(files, b)
	}
	for range 60 {
		files = append(files, randjsonl.File(r, 3+r.IntN(30)))
	}
	safe, unsafe := 0, 0
	for i, data := range files {
		path := filepath.Join(dir, strconv.Itoa(i)+".jsonl")
		writeFile(t, path, data, 0o644)
		rep := analysis.Analyze(data, analysis.Options{})
		want := engineFixes(data, rep.Findings)
		for _, stdin := range []bool{false, true} {
			var got []jsonFinding
			if stdin {
				e, out, errb := testEnv(string(data), nil)
				res := runWith(t, e, out, errb, "check", "--format", "json", "-")
				res.decodeJSON(t, &got)
			} else {
				got = checkJSON(t, path)
			}
			listed, _ := capFindings(rep.Findings, maxListedPerCode, nil, nil)
			if want := len(listed); len(got) != want {
				t.Fatalf("len(got) = %d, want %d: %+v", len(got), want, got)
			}
			for _, f := range got {
				w, ok := want[fixKey{f.Line, f.Code}]
				if !ok {
					if f.Fix != nil {
						t.Errorf("file %d line %d %s: f.Fix = %+v, want nil", i, f.Line, f.Code, f.Fix)
					}
					continue
				}
				if f.Fix == nil {
					t.Errorf("file %d line %d %s: f.Fix is nil, want non-nil", i, f.Line, f.Code)
				} else if *f.Fix != w {
					t.Errorf("*f.Fix = %q, want %q", *f.Fix, w)
				}
				if w == "safe" {
					safe++
				} else {
					unsafe++
				}
			}
		}
	}
	if safe <= 20 {
		t.Errorf("coverage: safe = %v, want > %v", safe, 20)
	}
	if unsafe <= 20 {
		t.Errorf("coverage: unsafe = %v, want > %v", unsafe, 20)
	}
}

package cli

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// copySession copies a shipped session into a temporary directory with the
// given mode and returns its path and bytes.
func copySession(t *testing.T, name string, mode os.FileMode) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", name+".jsonl"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), name+".jsonl")
	require.NoError(t, os.WriteFile(path, data, mode))
	require.NoError(t, os.Chmod(path, mode))
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
				got, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, string(want.Data), string(got), "file after --fix")
				fi, err := os.Stat(path)
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "mode kept")
				entries, err := os.ReadDir(filepath.Dir(path))
				require.NoError(t, err)
				assert.Len(t, entries, 1, "no temporary file left")

				// Exit code and summary follow what remains.
				code := ExitClean
				for _, f := range want.Report.Findings {
					if f.Severity == analysis.SeverityError {
						code = ExitFindings
					}
				}
				assert.Equal(t, code, r.code, "stdout %s stderr %s", r.stdout, r.stderr)
				assert.Equal(t, "", r.stderr)
				if want.Fixed > 0 {
					assert.Contains(t, r.stdout, "Fixed "+textfmt.Plural(want.Fixed, "finding", "findings")+" in 1 file")
				}
				if want.Fixed == 0 && len(want.Report.Findings) > 0 {
					assert.Contains(t, r.stdout, "Nothing fixed; ")
				}
				assert.Equal(t, len(want.Report.Findings), strings.Count(r.stdout, ".jsonl:"), "one line per remaining finding:\n%s", r.stdout)

				again := sessionls(t, args...)
				got2, _ := os.ReadFile(path)
				assert.Equal(t, string(got), string(got2), "a second --fix changes nothing")
				if len(want.Report.Findings) > 0 {
					assert.Contains(t, again.stdout, "Nothing fixed; ")
				} else {
					assert.Equal(t, "All checks passed (1 file).\n", again.stdout)
				}
				assert.Equal(t, r.code, again.code)
			})
		}
	}
}

// TestCheckFixCounts pins the summary on the demo session: the truncated
// line and the orphan are unsafe, the system line has no fix.
func TestCheckFixCounts(t *testing.T) {
	path, _ := copySession(t, "demo", 0o644)
	r := sessionls(t, "check", "--fix", path)
	assert.Equal(t, 1, r.code)
	assert.True(t, strings.HasSuffix(r.stdout, "Found 2 errors, 1 warning in 1 of 1 file.\nNothing fixed; 3 remain (2 more fixable with --unsafe-fixes).\n"), r.stdout)
	r = sessionls(t, "check", "--fix", "--unsafe-fixes", path)
	assert.Equal(t, 1, r.code, "the system line remains")
	assert.True(t, strings.HasSuffix(r.stdout, "Found 1 error, 0 warnings in 1 of 1 file.\nFixed 2 findings in 1 file; 1 remains.\n"+
		"The unsafe fixes deleted 139 bytes (2 records, whole or partial).\n"), r.stdout)

	path, _ = copySession(t, "crlf", 0o644)
	r = sessionls(t, "check", "--fix", path)
	assert.Equal(t, 0, r.code, "every finding fixed: %s", r.stdout)
	assert.Equal(t, "All checks passed (1 file).\nFixed 3 findings in 1 file; 0 remain.\n", r.stdout)
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
				before, err := os.ReadFile(path)
				require.NoError(t, err)
				r := sessionls(t, append(args, path)...)
				after, _ := os.ReadFile(path)
				assert.Equal(t, string(before), string(after), "--diff writes nothing")
				res := fix.FixAll(before, analysis.Options{}, unsafe)
				assert.Equal(t, string(fix.UnifiedDiff(path, path, before, res.Data, res.Origin)), r.stdout)
				want := ExitClean
				if res.Fixed > 0 {
					want = ExitFindings
				}
				assert.Equal(t, want, r.code, r.stderr)
				golden(t, "fix/"+name+".diff", r.stdout+"--- stderr ---\n"+r.stderr)
			})
		}
	}
}

func TestCheckFixStdin(t *testing.T) {
	atRepoRoot(t)
	data, err := os.ReadFile(sessionPath("badrecords"))
	require.NoError(t, err)
	e, out, errb := testEnv(string(data), nil)
	r := runWith(t, e, out, errb, "check", "--fix", "--stdin-filename", "bad.jsonl", "-")
	want := fix.FixAll(data, analysis.Options{}, false)
	assert.Equal(t, string(want.Data), r.stdout, "the fixed text on stdout")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "bad.jsonl:3:2: error[invalid-json] invalid session JSON")
	assert.Contains(t, r.stderr, "Fixed 3 findings in 1 file; 31 remain (3 more fixable with --unsafe-fixes).\n")

	// A clean stdin comes back unchanged.
	clean, _ := os.ReadFile(sessionPath("clean"))
	e, out, errb = testEnv(string(clean), nil)
	r = runWith(t, e, out, errb, "check", "--fix", "-")
	assert.Equal(t, string(clean), r.stdout)
	assert.Equal(t, 0, r.code)

	// --diff on stdin prints the diff.
	e, out, errb = testEnv(string(data), nil)
	r = runWith(t, e, out, errb, "check", "--diff", "--stdin-filename", "bad.jsonl", "-")
	assert.Equal(t, string(fix.UnifiedDiff("bad.jsonl", "bad.jsonl", data, want.Data, want.Origin)), r.stdout)
	assert.Equal(t, 1, r.code)
}

func TestCheckFixUsage(t *testing.T) {
	atRepoRoot(t)
	for _, args := range [][]string{
		{"check", "--unsafe-fixes", sessionPath("demo")},
		{"check", "--fix", "-", sessionPath("demo")},
		{"check", "--diff", "--format", "json", sessionPath("demo")},
	} {
		r := sessionls(t, args...)
		assert.Equal(t, ExitError, r.code, "%v", args)
		assert.Contains(t, r.stderr, "Usage:", "%v", args)
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
		b, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", sc.name+".jsonl"))
		require.NoError(t, err)
		files = append(files, b)
	}
	for range 60 {
		files = append(files, randjsonl.File(r, 3+r.IntN(30)))
	}
	safe, unsafe := 0, 0
	for i, data := range files {
		path := filepath.Join(dir, strconv.Itoa(i)+".jsonl")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		rep := analysis.Analyze(data, analysis.Options{})
		want := map[fixKey]string{}
		for _, f := range fix.Compute(data, rep.Findings) {
			want[fixKey{f.Line, f.Code}] = f.Safety.String()
		}
		for _, stdin := range []bool{false, true} {
			var got []jsonFinding
			if stdin {
				e, out, errb := testEnv(string(data), nil)
				res := runWith(t, e, out, errb, "check", "--format", "json", "-")
				require.NoError(t, json.Unmarshal([]byte(res.stdout), &got), res.stderr)
			} else {
				got = checkJSON(t, path)
			}
			listed, _ := capFindings(rep.Findings, maxListedPerCode, nil, nil)
			require.Len(t, got, len(listed))
			for _, f := range got {
				w, ok := want[fixKey{f.Line, f.Code}]
				if !ok {
					assert.Nil(t, f.Fix, "file %d line %d %s", i, f.Line, f.Code)
					continue
				}
				if assert.NotNil(t, f.Fix, "file %d line %d %s", i, f.Line, f.Code) {
					assert.Equal(t, w, *f.Fix)
				}
				if w == "safe" {
					safe++
				} else {
					unsafe++
				}
			}
		}
	}
	assert.Greater(t, safe, 20, "coverage")
	assert.Greater(t, unsafe, 20, "coverage")
}

package cli

import (
	"bytes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// lineStarts returns the byte offset of each physical line's start.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func TestTrimStdout(t *testing.T) {
	atRepoRoot(t)
	for _, tc := range []struct {
		session   string
		budget    int64
		firstLine int
	}{
		{"crlf_ok", 250, 5}, // 5-8 is one unit (blank lines 6-7 inside it), then 9
		{"crlf_ok", 100000, 1},
		{"units", 200, 15},
		{"clean", 300, 6},
		{"clean", 100000, 1},
	} {
		data, err := os.ReadFile(sessionPath(tc.session))
		require.NoError(t, err)
		r := sessionls(t, "trim", "--max-chars", strconv.FormatInt(tc.budget, 10), sessionPath(tc.session))
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "", r.stderr)
		want := string(data[lineStarts(data)[tc.firstLine-1]:])
		assert.Equal(t, want, r.stdout, "%s %d: bytes from line %d to the end", tc.session, tc.budget, tc.firstLine)
	}
	// The CRLF file keeps its CRs and its blank lines inside the kept part.
	r := sessionls(t, "trim", "--max-chars", "250", sessionPath("crlf_ok"))
	golden(t, "trim/crlf_ok-250.jsonl", r.stdout)
	assert.Contains(t, r.stdout, "}\r\n\n\n{")
}

func TestTrimToFile(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	src, err := os.ReadFile(sessionPath("units"))
	require.NoError(t, err)
	want := src[lineStarts(src)[14]:]

	out := filepath.Join(dir, "out.jsonl")
	r := sessionls(t, "trim", "--max-chars", "200", "-o", out, sessionPath("units"))
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "", r.stdout)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	fi, _ := os.Stat(out)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	// Trim in place, keeping an existing file's mode.
	inplace := filepath.Join(dir, "inplace.jsonl")
	require.NoError(t, os.WriteFile(inplace, src, 0o640))
	require.NoError(t, os.Chmod(inplace, 0o640))
	r = sessionls(t, "trim", "--max-chars", "200", "--output", inplace, inplace)
	assert.Equal(t, 0, r.code, r.stderr)
	got, _ = os.ReadFile(inplace)
	assert.Equal(t, string(want), string(got))
	fi, _ = os.Stat(inplace)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "no temporary file left")

	// The trimmed file is itself a session that keeps everything at that budget.
	r = sessionls(t, "budget", "--format", "json", "--max-chars", "200", inplace)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"cutoff": {`)
	assert.Contains(t, r.stdout, `"firstKeptLine": 1,`)
}

func TestTrimRefuses(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.jsonl")
	require.NoError(t, os.WriteFile(existing, []byte("keep me\n"), 0o644))
	for _, tc := range []struct {
		name, session, budget, stderr string
	}{
		{"invalid file", "demo", "1000", "sessionls: cannot trim testdata/sessions/demo.jsonl: invalid session record at line 7"},
		{"budget too small", "clean", "10", "sessionls: cannot trim testdata/sessions/clean.jsonl: context budget cannot contain the smallest consistent message unit; the least budget that works is 43 (the newest unit, line 7)\n"},
		{"empty session", "empty", "10", "sessionls: cannot trim testdata/sessions/empty.jsonl: context budget cannot be empty\n"},
		{"BOM", "crlf", "1000", "sessionls: cannot trim testdata/sessions/crlf.jsonl: invalid session JSON at line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sessionls(t, "trim", "--max-chars", tc.budget, sessionPath(tc.session))
			assert.Equal(t, 1, r.code)
			assert.Equal(t, "", r.stdout, "nothing written")
			assert.True(t, bytes.HasPrefix([]byte(r.stderr), []byte(tc.stderr)), "stderr %q, want prefix %q", r.stderr, tc.stderr)

			fresh := filepath.Join(dir, tc.name+".jsonl")
			r = sessionls(t, "trim", "--max-chars", tc.budget, "-o", fresh, sessionPath(tc.session))
			assert.Equal(t, 1, r.code)
			_, err := os.Stat(fresh)
			assert.True(t, os.IsNotExist(err), "OUT created for a refused trim")

			r = sessionls(t, "trim", "--max-chars", tc.budget, "-o", existing, sessionPath(tc.session))
			assert.Equal(t, 1, r.code)
			b, _ := os.ReadFile(existing)
			assert.Equal(t, "keep me\n", string(b), "OUT changed by a refused trim")
		})
	}
	r := sessionls(t, "trim", "--max-chars", "100", "nope.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "sessionls: cannot read nope.jsonl: no such file or directory\n", r.stderr)
	r = sessionls(t, "trim", "--max-chars", "100000", "-o", filepath.Join(dir, "missing-dir", "x.jsonl"), sessionPath("clean"))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "cannot write")
}

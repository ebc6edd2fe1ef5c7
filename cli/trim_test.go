package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		data := readFile(t, sessionPath(tc.session))
		r := sessionls(t, "trim", "--max-chars", strconv.FormatInt(tc.budget, 10), sessionPath(tc.session))
		r.wantCode(t, 0)
		if r.stderr != "" {
			t.Errorf("r.stderr = %q, want %q", r.stderr, "")
		}
		want := string(data[lineStarts(data)[tc.firstLine-1]:])
		if r.stdout != want {
			t.Errorf("%s %d: bytes from line %d to the end: r.stdout = %q, want %q", tc.session, tc.budget, tc.firstLine, r.stdout, want)
		}
	}
	// The CRLF file keeps its CRs and its blank lines inside the kept part.
	r := sessionls(t, "trim", "--max-chars", "250", sessionPath("crlf_ok"))
	golden(t, "trim/crlf_ok-250.jsonl", r.stdout)
	r.wantStdout(t, "}\r\n\n\n{")
}

func TestTrimToFile(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	src := readFile(t, sessionPath("units"))
	want := src[lineStarts(src)[14]:]

	out := filepath.Join(dir, "out.jsonl")
	r := sessionls(t, "trim", "--max-chars", "200", "-o", out, sessionPath("units"))
	r.wantCode(t, 0)
	if r.stdout != "" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "")
	}
	got := readFile(t, out)
	if expected, actual := string(want), string(got); actual != expected {
		t.Errorf("string(got) = %q, want %q", actual, expected)
	}
	fi, _ := os.Stat(out)
	if want, got := os.FileMode(0o644), fi.Mode().Perm(); got != want {
		t.Errorf("fi.Mode().Perm() = %v, want %v", got, want)
	}

	// Trim in place, keeping an existing file's mode.
	inplace := filepath.Join(dir, "inplace.jsonl")
	writeFile(t, inplace, src, 0o640)
	if err := os.Chmod(inplace, 0o640); err != nil {
		t.Fatalf("os.Chmod(inplace, 0o640): %v", err)
	}
	r = sessionls(t, "trim", "--max-chars", "200", "--output", inplace, inplace)
	r.wantCode(t, 0)
	got, _ = os.ReadFile(inplace)
	if expected, actual := string(want), string(got); actual != expected {
		t.Errorf("string(got) = %q, want %q", actual, expected)
	}
	fi, _ = os.Stat(inplace)
	if want, got := os.FileMode(0o640), fi.Mode().Perm(); got != want {
		t.Errorf("fi.Mode().Perm() = %v, want %v", got, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("no temporary file left: len(entries) = %d, want %d: %+v", len(entries), 2, entries)
	}

	// The trimmed file is itself a session that keeps everything at that budget.
	r = sessionls(t, "budget", "--format", "json", "--max-chars", "200", inplace)
	r.wantCode(t, 0)
	r.wantStdout(t, `"cutoff": {`, `"firstKeptLine": 1,`)
}

func TestTrimRefuses(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.jsonl")
	writeFile(t, existing, []byte("keep me\n"), 0o644)
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
			r.wantCode(t, 1)
			if r.stdout != "" {
				t.Errorf("nothing written: r.stdout = %q, want %q", r.stdout, "")
			}
			if !bytes.HasPrefix([]byte(r.stderr), []byte(tc.stderr)) {
				t.Errorf("stderr %q, want prefix %q: bytes.HasPrefix([]byte(r.stderr), []byte(tc.stderr)) is false, want true", r.stderr, tc.stderr)
			}

			fresh := filepath.Join(dir, tc.name+".jsonl")
			r = sessionls(t, "trim", "--max-chars", tc.budget, "-o", fresh, sessionPath(tc.session))
			r.wantCode(t, 1)
			_, err := os.Stat(fresh)
			if !os.IsNotExist(err) {
				t.Error("OUT created for a refused trim: os.IsNotExist(err) is false, want true")
			}

			r = sessionls(t, "trim", "--max-chars", tc.budget, "-o", existing, sessionPath(tc.session))
			r.wantCode(t, 1)
			b, _ := os.ReadFile(existing)
			if got := string(b); got != "keep me\n" {
				t.Errorf("OUT changed by a refused trim: string(b) = %q, want %q", got, "keep me\n")
			}
		})
	}
	r := sessionls(t, "trim", "--max-chars", "100", "nope.jsonl")
	r.wantCode(t, 2)
	if r.stderr != "sessionls: cannot read nope.jsonl: no such file or directory\n" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "sessionls: cannot read nope.jsonl: no such file or directory\n")
	}
	r = sessionls(t, "trim", "--max-chars", "100000", "-o", filepath.Join(dir, "missing-dir", "x.jsonl"), sessionPath("clean"))
	r.wantCode(t, 2)
	r.wantStderr(t, "cannot write")
}

func TestCopyFromLine(t *testing.T) {
	src := "l1\r\n\nl3\r\nl4 «x»\n\nl6"
	for _, tc := range []struct {
		line int
		want string
	}{
		{1, src}, {2, "\nl3\r\nl4 «x»\n\nl6"}, {3, "l3\r\nl4 «x»\n\nl6"}, {6, "l6"},
	} {
		var b bytes.Buffer
		// A one-byte reader exercises every chunk boundary.
		if err := copyFromLine(&b, &oneByteReader{strings.NewReader(src)}, tc.line); err != nil {
			t.Fatalf("copyFromLine(&b, &oneByteReader{strings.NewReader(src)}, tc.line): %v", err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("line %d: b.String() = %q, want %q", tc.line, got, tc.want)
		}
	}
	var b bytes.Buffer
	err := copyFromLine(&b, strings.NewReader("a\nb"), 5)
	var re readError
	if !errors.As(err, &re) {
		t.Errorf("a file shorter than expected is a read error: %v: errors.As(err, &re) is false, want true", err)
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

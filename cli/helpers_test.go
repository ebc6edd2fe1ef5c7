package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// result is what one in-process run printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// wantCode checks a run's exit code; the message shows what the run printed
// and, first, the notes (what was run, why the code is expected).
func (r result) wantCode(t *testing.T, code int, notes ...any) {
	t.Helper()
	if r.code != code {
		t.Errorf("%sexit code %d, want %d\nstdout: %q\nstderr: %q", notePrefix(notes), r.code, code, r.stdout, r.stderr)
	}
}

// mustCode is wantCode for a test that cannot go on after a wrong code.
func (r result) mustCode(t *testing.T, code int, notes ...any) {
	t.Helper()
	if r.code != code {
		t.Fatalf("%sexit code %d, want %d\nstdout: %q\nstderr: %q", notePrefix(notes), r.code, code, r.stdout, r.stderr)
	}
}

func notePrefix(notes []any) string {
	if len(notes) == 0 {
		return ""
	}
	return fmt.Sprint(notes...) + ": "
}

// wantStdout checks that stdout holds each of subs.
func (r result) wantStdout(t *testing.T, subs ...string) {
	t.Helper()
	wantContains(t, "stdout", r.stdout, subs...)
}

// wantStderr checks that stderr holds each of subs.
func (r result) wantStderr(t *testing.T, subs ...string) {
	t.Helper()
	wantContains(t, "stderr", r.stderr, subs...)
}

// wantEqual checks that got, named what in the message, is deeply equal to want.
func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

// wantContains checks that got, named what in the message, holds each of subs.
func wantContains(t *testing.T, what, got string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(got, sub) {
			t.Errorf("%s = %q, want it to contain %q", what, got, sub)
		}
	}
}

// wantNotContains checks that got, named what in the message, holds none of subs.
func wantNotContains(t *testing.T, what, got string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if strings.Contains(got, sub) {
			t.Errorf("%s = %q, want it not to contain %q", what, got, sub)
		}
	}
}

// wantPrefix checks that got, named what in the message, starts with prefix.
func wantPrefix(t *testing.T, what, got, prefix string) {
	t.Helper()
	if !strings.HasPrefix(got, prefix) {
		t.Errorf("%s = %q, want it to start with %q", what, got, prefix)
	}
}

// decodeJSON decodes a run's stdout into v, or stops the test.
func (r result) decodeJSON(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("stdout is not the JSON of a %T: %v\nstdout: %q\nstderr: %q", v, err, r.stdout, r.stderr)
	}
}

// readFile returns the bytes of a file the test needs, or stops the test.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeFile writes a file the test needs, or stops the test.
func writeFile(t testing.TB, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
}

// engineFixes is the fix engine's verdict on a whole file in memory: the
// safety of each fix, by line and code, as check reports it.
func engineFixes(data []byte, findings []analysis.Finding) map[fixKey]string {
	fixes := map[fixKey]string{}
	for _, f := range fix.Compute(data, findings) {
		fixes[fixKey{f.Line, f.Code}] = f.Safety.String()
	}
	return fixes
}

// testEnv pins everything a command reads from the process.
func testEnv(stdin string, vars map[string]string) (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &env{
		stdin:     strings.NewReader(stdin),
		stdout:    &out,
		stderr:    &errb,
		getenv:    func(k string) string { return vars[k] },
		version:   "0.0.0-test",
		goVersion: "go1.test",
		now:       time.Now,
		analyze:   analyzeWith,
	}, &out, &errb
}

func runWith(t *testing.T, e *env, out, errb *bytes.Buffer, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code := run(ctx, e, args)
	return result{out.String(), errb.String(), code}
}

// sessionls runs a command line in-process with empty stdin.
func sessionls(t *testing.T, args ...string) result {
	t.Helper()
	e, out, errb := testEnv("", nil)
	return runWith(t, e, out, errb, args...)
}

// atRepoRoot makes paths like testdata/sessions/demo.jsonl resolve, so
// outputs and goldens show the paths a user would type.
func atRepoRoot(t *testing.T) {
	t.Helper()
	t.Chdir("..")
}

// golden compares got with testdata/golden/<name>, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden %s (run go test ./cli -update to create it): %v", path, err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (review, then -update):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// lockedBuffer is a bytes.Buffer safe for the progress goroutine and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newCounter(v int64) *atomic.Int64 {
	var c atomic.Int64
	c.Store(v)
	return &c
}

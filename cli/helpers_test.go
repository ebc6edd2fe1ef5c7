package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// result is what one in-process run printed and returned.
type result struct {
	stdout, stderr string
	code           int
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

package oracle

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WriteLines writes lines, each followed by '\n', to a new file in t's
// temporary directory and returns its path: the input of Lines, Stringify
// and Counts.
func WriteLines(t testing.TB, lines [][]byte) string {
	t.Helper()
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "lines.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// FileJob writes data to dir/name and returns the Job that asks Batch
// about that file (no budgets).
func FileJob(t testing.TB, dir, name string, data []byte) Job {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return Job{Path: path}
}

// AskBatch is Batch on jobs within timeout: it fails t unless node
// answers for each of them.
func AskBatch(t testing.TB, node string, jobs []Job, timeout time.Duration) []File {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	files, err := Batch(ctx, node, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// DemoLines returns the physical lines of the repository's demo sessions
// (testdata/sessions: demo.jsonl, clean.jsonl), empty ones included.
func DemoLines(t testing.TB) [][]byte {
	t.Helper()
	var lines [][]byte
	for _, name := range []string{"demo.jsonl", "clean.jsonl"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(Script()), "..", "sessions", name))
		if err != nil {
			t.Fatalf("reading demo session: %v", err)
		}
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	return lines
}

// AskLines is Lines on the non-empty lines given, within timeout: it
// fails t unless node answers for each of them, in order.
func AskLines(t testing.TB, node string, lines [][]byte, timeout time.Duration) []Line {
	t.Helper()
	return ask(t, lines, timeout, func(ctx context.Context, path string) ([]Line, error) {
		return Lines(ctx, node, path)
	})
}

// AskStringify is Stringify on the non-empty lines given, as AskLines.
func AskStringify(t testing.TB, node string, lines [][]byte, timeout time.Duration) []Text {
	t.Helper()
	return ask(t, lines, timeout, func(ctx context.Context, path string) ([]Text, error) {
		return Stringify(ctx, node, path)
	})
}

// AskCounts is Counts on the non-empty lines given, as AskLines.
func AskCounts(t testing.TB, node, dir string, lines [][]byte, timeout time.Duration) []Text {
	t.Helper()
	return ask(t, lines, timeout, func(ctx context.Context, path string) ([]Text, error) {
		return Counts(ctx, node, dir, path)
	})
}

func ask[T any](t testing.TB, lines [][]byte, timeout time.Duration, run func(context.Context, string) ([]T, error)) []T {
	t.Helper()
	path := WriteLines(t, lines)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	answers, err := run(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(lines) {
		t.Fatalf("oracle answered for %d lines, we wrote %d", len(answers), len(lines))
	}
	return answers
}

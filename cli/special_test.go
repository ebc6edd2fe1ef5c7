//go:build unix

package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO named on the command line used to block check in open(2) forever
// (and budget and trim too). Paths that are not regular files are refused
// with exit 2 and a clear error; the other files are still checked.
func TestNamedNonRegularFilesAreRefused(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cases := [][]string{
		{"check", fifo, "testdata/sessions/clean.jsonl"},
		{"check", "/dev/null"},
		{"budget", "--max-chars", "100", fifo},
		{"trim", "--max-chars", "100", fifo},
	}
	for _, args := range cases {
		done := make(chan result, 1)
		go func() { done <- sessionls(t, args...) }()
		var r result
		select {
		case r = <-done:
		case <-time.After(30 * time.Second):
			// Unblock the stuck open so the test binary can end.
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			t.Fatalf("%v: still blocked after 30s", args)
		}
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "not a regular file", args)
		if args[0] != "trim" {
			assert.Contains(t, r.stderr, "- <", "%v: the error says how to read it as stdin", args)
		}
		if args[1] == fifo && args[0] == "check" {
			assert.Contains(t, r.stdout, "All checks passed (1 file)", "the other file is still checked")
		}
	}
}

// SIGINT ends a run even while a read blocks (stdin that never delivers):
// the process used to wait for the read forever.
func TestBinaryInterruptedWhileReadingStdin(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "check", "-")
	stdin, err := cmd.StdinPipe() // never written to, closed only at the end
	require.NoError(t, err)
	defer stdin.Close()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	// Give it time to reach the read; a signal before that is handled too.
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	require.NoError(t, ctx.Err(), "the run did not end after SIGINT; stderr %q", errb.String())
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit status: %v", err)
	assert.Equal(t, 2, ee.ExitCode())
	assert.True(t, strings.Contains(errb.String(), "interrupted"), errb.String())
}

// blockedReader blocks every Read until release is closed.
type blockedReader struct{ release chan struct{} }

func (b blockedReader) Read([]byte) (int, error) {
	<-b.release
	return 0, errors.New("released")
}

// In-process: once ctx is done, a run stuck in a Read ends anyway.
func TestInterruptEndsARunStuckInARead(t *testing.T) {
	e, _, errb := testEnv("", nil)
	stuck := blockedReader{release: make(chan struct{})}
	defer close(stuck.release)
	e.stdin = stuck
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan int, 1)
	go func() { done <- runInterruptible(ctx, e, []string{"check", "-"}) }()
	select {
	case code := <-done:
		assert.Equal(t, 2, code)
		assert.Contains(t, errb.String(), "sessionls: interrupted")
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end after its context was cancelled")
	}
}

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
)

// A FIFO named on the command line used to block check in open(2) forever
// (and budget and trim too). Paths that are not regular files are refused
// with exit 2 and a clear error; the other files are still checked.
func TestNamedNonRegularFilesAreRefused(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("syscall.Mkfifo(fifo, 0o600): %v", err)
	}
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
		r.wantCode(t, 2, args)
		if !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("%v: r.stderr = %q, want it to contain %q", args, r.stderr, "not a regular file")
		}
		if args[0] != "trim" {
			if !strings.Contains(r.stderr, "- <") {
				t.Errorf("%v: the error says how to read it as stdin: r.stderr = %q, want it to contain %q", args, r.stderr, "- <")
			}
		}
		if args[1] == fifo && args[0] == "check" {
			if !strings.Contains(r.stdout, "All checks passed (1 file)") {
				t.Errorf("the other file is still checked: r.stdout = %q, want it to contain %q", r.stdout, "All checks passed (1 file)")
			}
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
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("cmd.Start(): %v", err)
	}
	// Give it time to reach the read; a signal before that is handled too.
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("cmd.Process.Signal(os.Interrupt): %v", err)
	}
	err = cmd.Wait()
	if err := ctx.Err(); err != nil {
		t.Fatalf("the run did not end after SIGINT; stderr %q: ctx.Err(): %v", errb.String(), err)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit status: %v: errors.As(err, &ee) is false, want true", err)
	}
	if got := ee.ExitCode(); got != 2 {
		t.Errorf("ee.ExitCode() = %v, want %v", got, 2)
	}
	if !strings.Contains(errb.String(), "interrupted") {
		t.Errorf(`%v: strings.Contains(errb.String(), "interrupted") is false, want true`, errb.String())
	}
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
		if code != 2 {
			t.Errorf("code = %v, want %v", code, 2)
		}
		if got := errb.String(); !strings.Contains(got, "sessionls: interrupted") {
			t.Errorf("errb.String() = %q, want it to contain %q", got, "sessionls: interrupted")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end after its context was cancelled")
	}
}

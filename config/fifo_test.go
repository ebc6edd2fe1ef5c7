//go:build unix

package config

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFONotOpened: a FIFO named sessionls.toml (or given to --config) is
// refused without being opened, which would block until a writer came.
func TestFIFONotOpened(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, Name)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(Options{Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r.Settings(filepath.Join(root, "a.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("got error %v, want one containing %q", err, "not a regular file")
	}
	_, err = NewResolver(Options{Cwd: root, ConfigFile: fifo})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("got error %v, want one containing %q", err, "not a regular file")
	}
}

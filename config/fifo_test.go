//go:build unix

package config

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFIFONotOpened: a FIFO named sessionls.toml (or given to --config) is
// refused without being opened, which would block until a writer came.
func TestFIFONotOpened(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, Name)
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	r, err := NewResolver(Options{Cwd: root})
	require.NoError(t, err)
	_, _, err = r.Settings(filepath.Join(root, "a.jsonl"))
	require.ErrorContains(t, err, "not a regular file")
	_, err = NewResolver(Options{Cwd: root, ConfigFile: fifo})
	require.ErrorContains(t, err, "not a regular file")
}

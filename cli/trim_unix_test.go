//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trim -o onto an existing file keeps its owner (as root), group and mode,
// set-group-ID included; it used to leave a file owned by whoever ran trim,
// without the special bits.
func TestTrimToFileKeepsOwnerAndMode(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving the output another owner takes root")
	}
	src, err := filepath.Abs(filepath.Join("..", "testdata", "sessions", "clean.jsonl"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	require.NoError(t, os.WriteFile(out, []byte("old\n"), 0o600))
	require.NoError(t, os.Chown(out, 4321, 8765))
	want := fs.FileMode(0o640) | fs.ModeSetgid
	require.NoError(t, os.Chmod(out, want))

	r := sessionls(t, "trim", "--max-chars", "300", "-o", out, src)
	require.Equal(t, 0, r.code, r.stderr)
	fi, err := os.Stat(out)
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	assert.Equal(t, [2]uint32{4321, 8765}, [2]uint32{st.Uid, st.Gid}, "owner and group")
	assert.Equal(t, want, fi.Mode(), "mode")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.NotEqual(t, "old\n", string(b))
}

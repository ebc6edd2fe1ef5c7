//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplaceFileKeepsModeOwnerAndLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o600))
	require.NoError(t, os.Chmod(target, 0o604))
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		// Root can give the file away: the replacement must keep it.
		uid, gid = 4321, 4322
		require.NoError(t, os.Chown(target, uid, gid))
	}
	link := filepath.Join(dir, "l.jsonl")
	require.NoError(t, os.Symlink("t.jsonl", link))

	require.NoError(t, replaceFile(link, []byte("new\n")))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(got))
	li, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, li.Mode()&os.ModeSymlink != 0, "the link stays a link")
	fi, err := os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o604), fi.Mode().Perm())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		assert.Equal(t, uid, int(st.Uid), "owner kept")
		assert.Equal(t, gid, int(st.Gid), "group kept")
	}
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "no temporary file left")

	assert.Error(t, replaceFile(filepath.Join(dir, "missing.jsonl"), nil))
	assert.Error(t, replaceFile(dir, nil), "a directory is not replaced")
}

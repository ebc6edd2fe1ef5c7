//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A link that stays in the tree is fixed through its target, once: the
// link stays a link, and the target keeps its mode and owner.
func TestFixThroughLinkInTreeKeepsModeOwnerAndLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(target, []byte("{\"role\":\"user\",\"content\":\"hi\",}\n"), 0o600))
	require.NoError(t, os.Chmod(target, 0o604))
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		// Root can give the file away: the replacement must keep it.
		uid, gid = 4321, 4322
		require.NoError(t, os.Chown(target, uid, gid))
	}
	link := filepath.Join(dir, "l.jsonl")
	require.NoError(t, os.Symlink("t.jsonl", link))

	r := sessionls(t, "check", "--fix", dir)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "Fixed 1 finding in 1 file", "the file is fixed once, not once per name")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "{\"role\":\"user\",\"content\":\"hi\"}\n", string(got))
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
}

// An immutable file (chattr +i) cannot be replaced: the failure is a write
// failure, said as one, with exit 2, and the file is untouched.
func TestFixWriteFailureIsSaid(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("no chattr")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	broken := "{\"role\":\"user\",\"content\":\"hi\",}\n"
	require.NoError(t, os.WriteFile(p, []byte(broken), 0o644))
	if out, err := exec.Command(chattr, "+i", p).CombinedOutput(); err != nil {
		t.Skipf("chattr +i not supported here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(chattr, "-i", p).Run() })

	r := fixNotWritten(t, p, "cannot write", p, broken)
	assert.NotContains(t, r.stdout, "could not be read")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left")
}

// fixNotWritten runs check --fix on arg, whose file cannot be written for
// the reason stderr must give, and checks that it says so (exit 2, and
// "1 file could not be written") and that path still holds want.
func fixNotWritten(t *testing.T, arg, reason, path, want string) result {
	t.Helper()
	r := sessionls(t, "check", "--fix", arg)
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, reason)
	assert.Contains(t, r.stdout, "1 file could not be written")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "the file is untouched")
	return r
}

// A session with a trailing comma on line 1: fixable by the safe fix.
const fixableSession = "{\"role\":\"user\",\"content\":\"hi\",}\n"

func TestFixRefusesLinkOutOfTree(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "home", ".bashrc")
	require.NoError(t, os.MkdirAll(filepath.Dir(outside), 0o755))
	require.NoError(t, os.WriteFile(outside, []byte(fixableSession), 0o644))
	tree := filepath.Join(root, "repo", "sessions")
	require.NoError(t, os.MkdirAll(tree, 0o755))
	link := filepath.Join(tree, "x.jsonl")
	require.NoError(t, os.Symlink("../../home/.bashrc", link))

	for _, arg := range []string{filepath.Dir(tree), link} {
		t.Run(strings.TrimPrefix(arg, root), func(t *testing.T) {
			fixNotWritten(t, arg, "is a symbolic link to "+outside, outside, fixableSession)

			// Checking it (reading) is fine; --diff only reads too.
			assert.Equal(t, 1, sessionls(t, "check", arg).code)
			assert.Equal(t, 1, sessionls(t, "check", "--diff", arg).code)
		})
	}
}

func TestFixRefusesReadOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(fixableSession), 0o444))
	fixNotWritten(t, p, "read-only", p, fixableSession)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o444), fi.Mode().Perm())

	// A read-only file with nothing to fix is simply checked.
	clean := filepath.Join(t.TempDir(), "clean.jsonl")
	require.NoError(t, os.WriteFile(clean, []byte("{\"role\":\"user\",\"content\":\"hi\"}\n"), 0o444))
	assert.Equal(t, 0, sessionls(t, "check", "--fix", clean).code)

	// trim -o onto a read-only file refuses too.
	r := sessionls(t, "trim", "--max-chars", "1000", "-o", p, clean)
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "read-only")
}

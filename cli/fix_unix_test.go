//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A link that stays in the tree is fixed through its target, once: the
// link stays a link, and the target keeps its mode and owner.
func TestFixThroughLinkInTreeKeepsModeOwnerAndLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "t.jsonl")
	writeFile(t, target, []byte("{\"role\":\"user\",\"content\":\"hi\",}\n"), 0o600)
	if err := os.Chmod(target, 0o604); err != nil {
		t.Fatalf("os.Chmod(target, 0o604): %v", err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		// Root can give the file away: the replacement must keep it.
		uid, gid = 4321, 4322
		if err := os.Chown(target, uid, gid); err != nil {
			t.Fatalf("os.Chown(target, uid, gid): %v", err)
		}
	}
	link := filepath.Join(dir, "l.jsonl")
	if err := os.Symlink("t.jsonl", link); err != nil {
		t.Fatalf(`os.Symlink("t.jsonl", link): %v`, err)
	}

	r := sessionls(t, "check", "--fix", dir)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "Fixed 1 finding in 1 file") {
		t.Errorf("the file is fixed once, not once per name: r.stdout = %q, want it to contain %q", r.stdout, "Fixed 1 finding in 1 file")
	}
	got := readFile(t, target)
	if actual := string(got); actual != "{\"role\":\"user\",\"content\":\"hi\"}\n" {
		t.Errorf("string(got) = %q, want %q", actual, "{\"role\":\"user\",\"content\":\"hi\"}\n")
	}
	li, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if li.Mode()&os.ModeSymlink == 0 {
		t.Error("the link stays a link: li.Mode()&os.ModeSymlink != 0 is false, want true")
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := os.FileMode(0o604), fi.Mode().Perm(); got != want {
		t.Errorf("fi.Mode().Perm() = %v, want %v", got, want)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if got := int(st.Uid); got != uid {
			t.Errorf("owner kept: int(st.Uid) = %v, want %v", got, uid)
		}
		if got := int(st.Gid); got != gid {
			t.Errorf("group kept: int(st.Gid) = %v, want %v", got, gid)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("no temporary file left: len(entries) = %d, want %d: %+v", len(entries), 2, entries)
	}
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
	writeFile(t, p, []byte(broken), 0o644)
	if out, err := exec.Command(chattr, "+i", p).CombinedOutput(); err != nil {
		t.Skipf("chattr +i not supported here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(chattr, "-i", p).Run() })

	r := fixNotWritten(t, p, "cannot write", p, broken)
	wantNotContains(t, "stdout", r.stdout, "could not be read")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("no temporary file left: len(entries) = %d, want %d: %+v", len(entries), 1, entries)
	}
}

// fixNotWritten runs check --fix on arg, whose file cannot be written for
// the reason stderr must give, and checks that it says so (exit 2, and
// "1 file could not be written") and that path still holds want.
func fixNotWritten(t *testing.T, arg, reason, path, want string) result {
	t.Helper()
	r := sessionls(t, "check", "--fix", arg)
	r.wantCode(t, 2)
	if !strings.Contains(r.stderr, reason) {
		t.Errorf("r.stderr = %q, want it to contain %q", r.stderr, reason)
	}
	r.wantStdout(t, "1 file could not be written")
	got := readFile(t, path)
	if actual := string(got); actual != want {
		t.Errorf("the file is untouched: string(got) = %q, want %q", actual, want)
	}
	return r
}

// A session with a trailing comma on line 1: fixable by the safe fix.
const fixableSession = "{\"role\":\"user\",\"content\":\"hi\",}\n"

func TestFixRefusesLinkOutOfTree(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "home", ".bashrc")
	if err := os.MkdirAll(filepath.Dir(outside), 0o755); err != nil {
		t.Fatalf("os.MkdirAll(filepath.Dir(outside), 0o755): %v", err)
	}
	writeFile(t, outside, []byte(fixableSession), 0o644)
	tree := filepath.Join(root, "repo", "sessions")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatalf("os.MkdirAll(tree, 0o755): %v", err)
	}
	link := filepath.Join(tree, "x.jsonl")
	if err := os.Symlink("../../home/.bashrc", link); err != nil {
		t.Fatalf(`os.Symlink("../../home/.bashrc", link): %v`, err)
	}

	for _, arg := range []string{filepath.Dir(tree), link} {
		t.Run(strings.TrimPrefix(arg, root), func(t *testing.T) {
			fixNotWritten(t, arg, "is a symbolic link to "+outside, outside, fixableSession)

			// Checking it (reading) is fine; --diff only reads too.
			if got := sessionls(t, "check", arg).code; got != 1 {
				t.Errorf(`sessionls(t, "check", arg).code = %v, want %v`, got, 1)
			}
			if got := sessionls(t, "check", "--diff", arg).code; got != 1 {
				t.Errorf(`sessionls(t, "check", "--diff", arg).code = %v, want %v`, got, 1)
			}
		})
	}
}

func TestFixRefusesReadOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, p, []byte(fixableSession), 0o444)
	fixNotWritten(t, p, "read-only", p, fixableSession)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := os.FileMode(0o444), fi.Mode().Perm(); got != want {
		t.Errorf("fi.Mode().Perm() = %v, want %v", got, want)
	}

	// A read-only file with nothing to fix is simply checked.
	clean := filepath.Join(t.TempDir(), "clean.jsonl")
	writeFile(t, clean, []byte("{\"role\":\"user\",\"content\":\"hi\"}\n"), 0o444)
	if got := sessionls(t, "check", "--fix", clean).code; got != 0 {
		t.Errorf(`sessionls(t, "check", "--fix", clean).code = %v, want %v`, got, 0)
	}

	// trim -o onto a read-only file refuses too.
	r := sessionls(t, "trim", "--max-chars", "1000", "-o", p, clean)
	r.wantCode(t, 2)
	r.wantStderr(t, "read-only")
}

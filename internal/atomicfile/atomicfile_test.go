package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tempFile writes content to a file of that name in a new temporary
// directory, with perm, and returns its path.
func tempFile(t *testing.T, name, content string, perm fs.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	return p
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

type sourceError struct{ error }

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	if err := Write(out, writeString("one\n")); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, out); m != newMode {
		t.Errorf("a new file has mode %v, want %v", m, newMode)
	}

	if err := os.Chmod(out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, writeString("two\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, out); got != "two\n" {
		t.Errorf("content %q, want %q", got, "two\n")
	}
	if m := mode(t, out); m != 0o600 {
		t.Errorf("mode %v, want the old file's 0600", m)
	}

	// A failed write leaves the old file and no temporary behind, and the
	// writer's error can be told apart.
	err := Write(out, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return sourceError{errors.New("disk on fire")}
	})
	var se sourceError
	if !errors.As(err, &se) || err.Error() != "cannot write "+out+": disk on fire" {
		t.Errorf("error %v, want the writer's error wrapped", err)
	}
	if got := read(t, out); got != "two\n" {
		t.Errorf("after a failed write the content is %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory: a temporary file was left behind", len(entries))
	}

	if err := Write(filepath.Join(dir, "no", "such", "dir.jsonl"), writeString("x")); err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing directory: %v", err)
	}

	// Through a symlink: the target changes, the link stays.
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("out.jsonl", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, writeString("three\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, out); got != "three\n" {
		t.Errorf("the link's target holds %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}

	// The write replaces the file: another hard link keeps the old content
	// (as the documentation says).
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Link(out, hard); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, writeString("four\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, hard); got != "three\n" {
		t.Errorf("the hard link holds %q, want the old content", got)
	}
}

// The special mode bits (set-group-ID on a shared file, for one) are kept;
// they used to be dropped.
func TestWriteKeepsSpecialModeBits(t *testing.T) {
	out := tempFile(t, "out.jsonl", "old\n", 0o600)
	want := fs.FileMode(0o640) | fs.ModeSetgid
	if err := os.Chmod(out, want); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, out); got != want {
		t.Skipf("this file system does not keep set-group-ID (%v)", got)
	}
	if err := Write(out, writeString("new\n")); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, out); got != want {
		t.Errorf("mode %v, want the old file's %v", got, want)
	}
}

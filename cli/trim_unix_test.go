//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// trim -o onto an existing file keeps its owner (as root), group and mode,
// set-group-ID included; it used to leave a file owned by whoever ran trim,
// without the special bits.
func TestTrimToFileKeepsOwnerAndMode(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving the output another owner takes root")
	}
	src, err := filepath.Abs(filepath.Join("..", "testdata", "sessions", "clean.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	writeFile(t, out, []byte("old\n"), 0o600)
	if err := os.Chown(out, 4321, 8765); err != nil {
		t.Fatalf("os.Chown(out, 4321, 8765): %v", err)
	}
	want := fs.FileMode(0o640) | fs.ModeSetgid
	if err := os.Chmod(out, want); err != nil {
		t.Fatalf("os.Chmod(out, want): %v", err)
	}

	r := sessionls(t, "trim", "--max-chars", "300", "-o", out, src)
	r.mustCode(t, 0)
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	wantEqual(t, "owner and group: [2]uint32{st.Uid, st.Gid}", [2]uint32{st.Uid, st.Gid}, [2]uint32{4321, 8765})
	if got := fi.Mode(); got != want {
		t.Errorf("mode: fi.Mode() = %v, want %v", got, want)
	}
	b := readFile(t, out)
	if got := string(b); got == "old\n" {
		t.Errorf("string(b) = %q, want anything else", got)
	}
}

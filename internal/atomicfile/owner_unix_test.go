//go:build unix

package atomicfile

import (
	"os"
	"syscall"
	"testing"
)

func owner(t *testing.T, path string) (uid, gid uint32) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid
}

// The replacement keeps the old file's owner and group: it used to belong
// to whoever ran the write. Giving a file away takes root; elsewhere the
// group is kept when the owner is in it.
func TestWriteKeepsOwnerAndGroup(t *testing.T) {
	out := tempFile(t, "out.jsonl", "old\n", 0o640)
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 4321, 8765
	} else if groups, _ := os.Getgroups(); len(groups) > 1 {
		for _, g := range groups {
			if g != gid {
				gid = g
				break
			}
		}
	} else {
		t.Skip("neither root nor in a second group: cannot give the file another owner or group")
	}
	if err := os.Chown(out, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, writeString("new\n")); err != nil {
		t.Fatal(err)
	}
	gotUID, gotGID := owner(t, out)
	if int(gotUID) != uid || int(gotGID) != gid {
		t.Errorf("owner %d:%d, want the old file's %d:%d", gotUID, gotGID, uid, gid)
	}
	if m := mode(t, out); m != 0o640 {
		t.Errorf("mode %v, want 0640", m)
	}
}

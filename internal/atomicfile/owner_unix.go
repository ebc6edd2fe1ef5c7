//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of old, as far as the process may:
// only root can give a file away, but an owner can set a group it is in.
// Not being allowed is not an error: the new file is then the writer's, as
// any file it creates.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	uid, gid := int(st.Uid), int(st.Gid)
	if f.Chown(uid, gid) == nil {
		return
	}
	_ = f.Chown(-1, gid)
}

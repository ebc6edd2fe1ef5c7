package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// replaceFile writes data over the file at path atomically: a temporary
// file in the same directory, with the original's mode and (where the
// system has owners) owner and group, fsynced, then renamed over it. A
// symbolic link is followed, so the link stays and its target changes.
// When the owner cannot be kept (a file of another user, writable through
// its group or directory), nothing is written: the file would otherwise
// change hands silently.
func replaceFile(path string, data []byte) (err error) {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, eerr := filepath.EvalSymlinks(path)
		if eerr != nil {
			return fmt.Errorf("cannot write %s: %w", path, unwrapPath(eerr))
		}
		path = target
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("cannot write %s: not a regular file", path)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".fix-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := keepOwner(tmp, fi); err != nil {
		return fmt.Errorf("cannot write %s: cannot keep its owner (%w); the file is unchanged", path, unwrapPath(err))
	}
	// After chown, which may clear the setuid and setgid bits.
	if err := tmp.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	// Persist the rename; best effort (not every system can fsync a
	// directory), the data is already safe.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

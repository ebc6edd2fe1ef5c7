// Package atomicfile replaces a file's content all at once: a reader sees
// the old file or the new one, never a part, and a failed write leaves the
// old one. The new file takes over the old one's mode, group and, when the
// process may set it, owner. trim -o writes through it, and so will any
// command that rewrites a user's file in place.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// keptMode is what a replacement keeps of the old file's mode bits.
const keptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// newMode is the mode of a file that did not exist.
const newMode fs.FileMode = 0o644

// Write writes path through a temporary file in the same directory, which
// write fills; the file is fsynced, given the old file's mode, group and
// owner, then renamed over path. The rename replaces the file: another hard
// link to the old file keeps the old content. A symlink is followed: its
// target is replaced and the link stays a link.
//
// Errors read "cannot write PATH: reason"; write's own error is wrapped in
// one, so a caller can tell it apart with errors.As.
func Write(path string, write func(io.Writer) error) (err error) {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, eerr := filepath.EvalSymlinks(path)
		if eerr != nil {
			return failed(path, eerr)
		}
		path = target
	}
	mode := newMode
	old, statErr := os.Stat(path)
	switch {
	case statErr == nil:
		if !old.Mode().IsRegular() {
			return fmt.Errorf("cannot write %s: not a regular file", path)
		}
		if perm := old.Mode().Perm(); perm&0o222 == 0 {
			return fmt.Errorf("cannot write %s: %w (mode %04o); nothing was written, make it writable first", path, ErrReadOnly, perm)
		}
		mode = old.Mode() & keptMode
	case errors.Is(statErr, fs.ErrNotExist):
		old = nil
	default:
		return failed(path, statErr)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return failed(path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return failed(path, err)
	}
	if old != nil {
		// Before the chmod: changing the owner clears set-user-ID and
		// set-group-ID bits.
		keepOwner(tmp, old)
	}
	if err := tmp.Chmod(mode); err != nil {
		return failed(path, err)
	}
	if err := tmp.Sync(); err != nil {
		return failed(path, err)
	}
	if err := tmp.Close(); err != nil {
		return failed(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return failed(path, err)
	}
	// Persist the rename itself; best effort (not every system can fsync a
	// directory), the data is already safe.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// failed wraps err for path, without the *PathError's own repetition of
// the (temporary) file name.
func failed(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot write %s: %w", path, err)
}

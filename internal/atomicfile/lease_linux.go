//go:build linux

package atomicfile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// errLeaseBusy: another open file description of the file exists.
var errLeaseBusy = errors.New("file is open elsewhere")

// tryLease takes a write lease on f: true when held; errLeaseBusy when
// another process (or another descriptor of ours) has the file open; false
// and no error where leases are not to be had (the file system, or a file
// the process does not own without CAP_LEASE).
func tryLease(f *os.File) (bool, error) {
	_, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_WRLCK)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EBUSY):
		return false, errLeaseBusy
	}
	return false, nil
}

// unlease releases f's lease; a blocked open of the file then proceeds.
func unlease(f *os.File) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_UNLCK)
}

// breakPending says whether another process is waiting to open f, leased:
// the kernel then reports the lease type it must be lowered to (unlocked).
func breakPending(f *os.File) bool {
	t, err := unix.FcntlInt(f.Fd(), unix.F_GETLEASE, 0)
	return err == nil && t == unix.F_UNLCK
}

// openNoFollow opens path for reading, refusing a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a symbolic link")}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// O_NONBLOCK only so that a FIFO put in the file's place cannot block
	// the open; reads of a regular file ignore it.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// copyXattrs gives dst every extended attribute of src (ACLs, SELinux
// labels, user attributes); one that cannot be set is an error, so that a
// replacement never silently drops an ACL or a label.
func copyXattrs(src, dst *os.File) error {
	names, err := listXattrs(int(src.Fd()))
	if err != nil {
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		return fmt.Errorf("cannot list its extended attributes: %w", err)
	}
	for _, name := range names {
		val, err := getXattr(int(src.Fd()), name)
		if err != nil {
			return fmt.Errorf("cannot read its extended attribute %s: %w", name, err)
		}
		if err := unix.Fsetxattr(int(dst.Fd()), name, val, 0); err != nil {
			return fmt.Errorf("cannot keep its extended attribute %s: %w", name, err)
		}
	}
	return nil
}

func listXattrs(fd int) ([]string, error) {
	for {
		n, err := unix.Flistxattr(fd, nil)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, nil
		}
		buf := make([]byte, n)
		n, err = unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // grew meanwhile
		}
		if err != nil {
			return nil, err
		}
		var names []string
		for _, b := range splitNUL(buf[:n]) {
			names = append(names, string(b))
		}
		return names, nil
	}
}

func getXattr(fd int, name string) ([]byte, error) {
	for {
		n, err := unix.Fgetxattr(fd, name, nil)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Fgetxattr(fd, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}

func splitNUL(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return out
}

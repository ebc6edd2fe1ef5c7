//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// errLeaseBusy is never returned where there are no leases.
var errLeaseBusy = errors.New("file is open elsewhere")

// tryLease: no leases here; the replacement runs its checks alone.
func tryLease(*os.File) (bool, error) { return false, nil }

func unlease(*os.File) {}

func breakPending(*os.File) bool { return false }

// openNoFollow opens path for reading, refusing a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a symbolic link")}
	}
	return os.Open(path)
}

// copyXattrs: extended attributes are kept only on Linux.
func copyXattrs(_, _ *os.File) error { return nil }

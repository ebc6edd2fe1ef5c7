//go:build linux

package atomicfile

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func leasesWork(t *testing.T) bool {
	t.Helper()
	p := tempFile(t, "lease", "", 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ok, err := tryLease(f)
	unlease(f)
	return ok && err == nil
}

func setXattr(t *testing.T, path, name, val string) bool {
	t.Helper()
	err := unix.Setxattr(path, name, []byte(val), 0)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

func getXattrString(t *testing.T, path, name string) string {
	t.Helper()
	buf := make([]byte, 256)
	n, err := unix.Getxattr(path, name, buf)
	if err != nil {
		t.Fatalf("getxattr %s: %v", name, err)
	}
	return string(buf[:n])
}

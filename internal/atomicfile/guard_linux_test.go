//go:build linux

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func leasesWork(t *testing.T) bool {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lease")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
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

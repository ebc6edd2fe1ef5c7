//go:build !unix

package cli

import "os"

// openNoWait opens path for reading. Without O_NONBLOCK, a path is checked
// before it is opened (a named pipe there opens as a client of a server,
// which does not wait).
func openNoWait(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, notRegular(fi.Mode(), "")
	}
	return os.Open(path)
}

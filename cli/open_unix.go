//go:build unix

package cli

import (
	"os"
	"syscall"
)

// openNoWait opens path for reading without waiting for a FIFO's writer
// (O_NONBLOCK; a regular file reads the same with it).
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

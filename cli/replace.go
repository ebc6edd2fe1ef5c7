package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sessionls/sessionls/internal/atomicfile"
)

// replaceFile writes data over the existing file at path through
// atomicfile: all at once, keeping its mode, group and (where the process
// may) owner; a symbolic link is followed. A file that has gone since it was
// read is not created again.
func replaceFile(path string, data []byte) error {
	if _, err := os.Stat(path); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

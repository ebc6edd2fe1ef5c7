package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sessionls/sessionls/internal/atomicfile"
)

// openRegular opens a file named on the command line for reading, and
// refuses anything but a regular file: opening a FIFO blocks until a writer
// comes, and a FIFO, a device or a socket may never end. hint says how the
// command can read such a file instead. The file is opened without waiting
// (openNoWait) and checked after, so a path swapped for a FIFO between a
// stat and the open cannot block either.
func openRegular(path, hint string) (*os.File, error) {
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	// A directory opens, and its first read fails ("is a directory"): the
	// error it always gave.
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		f.Close()
		return nil, notRegular(fi.Mode(), hint)
	}
	return f, nil
}

// notRegular is the error for a path of mode m that is not a regular file.
func notRegular(m fs.FileMode, hint string) error {
	what := "a special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	if hint != "" {
		hint = "; " + hint
	}
	return fmt.Errorf("not a regular file (%s)%s", what, hint)
}

// openSource opens the file path names, through its symbolic links, for
// reading and a guarded replacement (atomicfile.Source): check --fix and
// trim -o FILE FILE rewrite a link's target and leave the link a link. Its
// errors are those of filepath.EvalSymlinks and atomicfile.Open, for the
// caller to word.
func openSource(path string) (*atomicfile.Source, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	return atomicfile.Open(real)
}

//go:build !unix

package cli

import (
	"io/fs"
	"os"
)

// keepOwner: files have no Unix owner here; a new file gets the directory's
// default access, as every editor's save does.
func keepOwner(*os.File, fs.FileInfo) error { return nil }

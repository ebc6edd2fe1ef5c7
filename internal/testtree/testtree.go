// Package testtree writes the files a test needs: a tree of files under a
// new temporary directory, or one file with the directories above it. The
// cli, config, lsp, dialect and generator tests each had their own copy of
// these loops.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates files (slash-separated path relative to the tree → content)
// under a new temporary directory of t and returns that directory.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		WriteFile(t, filepath.Join(root, filepath.FromSlash(name)), []byte(body))
	}
	return root
}

// WriteFile writes body to path (mode 0644), creating the directories above
// it, or stops the test.
func WriteFile(t testing.TB, path string, body []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("testtree: %v", err)
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatalf("testtree: %v", err)
	}
}

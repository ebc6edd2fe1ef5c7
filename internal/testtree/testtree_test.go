package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	files := map[string]string{
		"a.jsonl":                "x\n",
		"deep/er/sessionls.toml": "budget = 1\n",
		"empty":                  "",
	}
	root := Write(t, files)
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	// WriteFile into a directory that does not exist yet, over a file that does.
	p := filepath.Join(root, "new", "dir", "f")
	WriteFile(t, p, []byte("1"))
	WriteFile(t, p, []byte("2"))
	if got, err := os.ReadFile(p); err != nil || string(got) != "2" {
		t.Errorf("WriteFile twice: %q, %v; want \"2\"", got, err)
	}
}

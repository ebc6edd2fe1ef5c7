package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1G", 1 << 30, true}, {"64M", 64 << 20, true}, {"512K", 512 << 10, true},
		{"1000", 1000, true}, {"", 0, false}, {"-1M", 0, false}, {"1T", 0, false}, {"M", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestRunWritesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := run([]string{"-size", "100K", "-seed", "3", "-o", path}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"-size", "100K", "-seed", "3"}, &out); err != nil {
		t.Fatal(err)
	}
	if len(b) < 100<<10 || !bytes.Equal(b, out.Bytes()) {
		t.Fatalf("file of %d bytes, stdout of %d; want equal and at least 100 KiB", len(b), out.Len())
	}
	if err := run([]string{"-size", "x"}, nil); err == nil {
		t.Fatal("bad size accepted")
	}
}

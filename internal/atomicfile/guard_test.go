package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// readAll reads s through Read, as a caller about to fix it does.
func readAll(t *testing.T, s *Source) []byte {
	t.Helper()
	b, err := io.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func upper(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, strings.ToUpper(string(b)))
		return err
	}
}

func openSource(t *testing.T, path string) *Source {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.busyWait = 200 * time.Millisecond
	return s
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReplace(t *testing.T) {
	tests := []struct {
		name string
		// meanwhile runs between the read and the replacement.
		meanwhile func(t *testing.T, path string)
		want      string // the file afterwards
		wantErr   error
		carried   int64
	}{
		{name: "unchanged", want: "A\nB\n"},
		{
			name:      "appended",
			meanwhile: func(t *testing.T, p string) { appendTo(t, p, "c\nd\n") },
			want:      "A\nB\nc\nd\n", carried: 4,
		},
		{
			name:      "appended without a final line break",
			meanwhile: func(t *testing.T, p string) { appendTo(t, p, "c") },
			want:      "A\nB\nc", carried: 1,
		},
		{
			name: "rewritten in place",
			meanwhile: func(t *testing.T, p string) {
				if err := os.WriteFile(p, []byte("x\nb\nc\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: "x\nb\nc\n", wantErr: ErrChanged,
		},
		{
			name: "truncated",
			meanwhile: func(t *testing.T, p string) {
				if err := os.Truncate(p, 2); err != nil {
					t.Fatal(err)
				}
			},
			want: "a\n", wantErr: ErrChanged,
		},
		{
			name: "another file renamed into place",
			meanwhile: func(t *testing.T, p string) {
				other := p + ".new"
				if err := os.WriteFile(other, []byte("a\nb\nnew\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(other, p); err != nil {
					t.Fatal(err)
				}
			},
			want: "a\nb\nnew\n", wantErr: ErrChanged,
		},
		{
			name: "removed",
			meanwhile: func(t *testing.T, p string) {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			},
			want: "", wantErr: ErrChanged,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tempFile(t, "s.jsonl", "a\nb\n", 0o640)
			s := openSource(t, p)
			data := readAll(t, s)
			if tc.meanwhile != nil {
				tc.meanwhile(t, p)
			}
			res, err := s.Replace(upper(data))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Replace: %v, want %v", err, tc.wantErr)
			}
			if err == nil && res.Carried != tc.carried {
				t.Errorf("carried %d bytes, want %d", res.Carried, tc.carried)
			}
			got, rerr := os.ReadFile(p)
			if rerr != nil && tc.want != "" {
				t.Fatal(rerr)
			}
			if string(got) != tc.want {
				t.Errorf("file is %q, want %q", got, tc.want)
			}
			if err == nil {
				if m := mode(t, p).Perm(); m != 0o640 {
					t.Errorf("mode %v, want 0640", m)
				}
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*tmp-*"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestReplaceLastLineStillWritten(t *testing.T) {
	p := tempFile(t, "s.jsonl", "a\n{\"partial", 0o644)
	s := openSource(t, p)
	data := readAll(t, s)
	appendTo(t, p, "\":1}\n")
	if _, err := s.Replace(upper(data)); !errors.Is(err, ErrLastLineGrew) {
		t.Fatalf("Replace: %v, want ErrLastLineGrew", err)
	}
	if got := read(t, p); got != "a\n{\"partial\":1}\n" {
		t.Errorf("file is %q", got)
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.jsonl")
	if err := os.WriteFile(ro, []byte("a\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	s := openSource(t, ro)
	data := readAll(t, s)
	if _, err := s.Replace(upper(data)); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Replace(read-only): %v, want ErrReadOnly", err)
	}
	if got := read(t, ro); got != "a\n" {
		t.Errorf("read-only file is %q, want it untouched", got)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(ro, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Open(symlink): %v, want a refusal naming the link", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open(dir): %v", err)
	}
}

func TestReplaceBusy(t *testing.T) {
	if !leasesWork(t) {
		t.Skip("no file leases here")
	}
	p := tempFile(t, "s.jsonl", "a\n", 0o644)
	s := openSource(t, p)
	data := readAll(t, s)
	// Another descriptor held open, as a writer that keeps its file open.
	held, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if _, err := s.Replace(upper(data)); !errors.Is(err, ErrBusy) {
		t.Fatalf("Replace with the file held open: %v, want ErrBusy", err)
	}
	if got := read(t, p); got != "a\n" {
		t.Errorf("file is %q, want it untouched", got)
	}
}

func TestReplaceKeepsXattrs(t *testing.T) {
	p := tempFile(t, "s.jsonl", "a\n", 0o644)
	if !setXattr(t, p, "user.sessionls.test", "kept") {
		t.Skip("no user extended attributes here")
	}
	s := openSource(t, p)
	data := readAll(t, s)
	if _, err := s.Replace(upper(data)); err != nil {
		t.Fatal(err)
	}
	if got := getXattrString(t, p, "user.sessionls.test"); got != "kept" {
		t.Errorf("xattr after replace = %q, want kept", got)
	}
}

// TestReplaceConcurrentAppends replaces a file over and over while another
// goroutine appends to it as node's appendFile does (open with O_APPEND,
// one write, close, for every line): every line must be there, once and in
// order.
func TestReplaceConcurrentAppends(t *testing.T) {
	p := tempFile(t, "s.jsonl", "", 0o644)
	const n = 1500
	var wg sync.WaitGroup
	done := make(chan struct{})
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := range n {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				werr = err
				return
			}
			_, err = fmt.Fprintf(f, "line %d\n", i)
			f.Close()
			if err != nil {
				werr = err
				return
			}
			if i%4 == 0 {
				time.Sleep(20 * time.Microsecond) // room for replacements between appends
			}
		}
	}()
	replaced, carried, refused := 0, int64(0), 0
	for {
		select {
		case <-done:
		default:
			s, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(s)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Replace(func(w io.Writer) error { _, err := w.Write(data); return err })
			s.Close()
			switch {
			case err == nil:
				replaced++
				carried += res.Carried
			case errors.Is(err, ErrLastLineGrew), errors.Is(err, ErrBusy):
				refused++
			default:
				t.Fatalf("Replace: %v", err)
			}
			continue
		}
		break
	}
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	got := strings.Split(strings.TrimSuffix(read(t, p), "\n"), "\n")
	if len(got) != n {
		t.Errorf("%d lines, want %d", len(got), n)
	}
	for i, l := range got {
		if l != "line "+strconv.Itoa(i) {
			t.Fatalf("line %d is %q, want %q (lost or reordered)", i+1, l, "line "+strconv.Itoa(i))
		}
	}
	t.Logf("%d replacements (%d bytes carried over), %d refused, %d appends, none lost", replaced, carried, refused, n)
	if replaced == 0 {
		t.Error("no replacement happened while appending: the test proves nothing")
	}
}

package dialect

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// fake claims the lines that have a "fake" key; it analyses as Seed does.
type fake struct{ Seed }

func (fake) Name() string { return "fake" }
func (fake) Sniff(l []byte) bool {
	return bytes.Contains(l, []byte(`"fake":`))
}
func (fake) SniffReason([]byte) string { return "a fake key" }

// endless is a first line that never ends: it counts what was read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

func TestDetect(t *testing.T) {
	ds := []Dialect{fake{}, Seed{}}
	big := strings.Repeat(" ", MaxSniff)
	tests := []struct {
		name, text   string
		want         string
		line, lines  int
		why          string
		wantHeadSize int // -1: the whole text
	}{
		{"first line", `{"fake":1}` + "\n" + `{"role":"user","content":"x"}` + "\n", "fake", 1, 1,
			"line 1, the first line JSON.parse accepts, is a fake record (a fake key)", -1},
		{"skips blank and invalid lines", "\n{oops\n\r\n" + `{"fake":true}`, "fake", 4, 4,
			"line 4, the first line JSON.parse accepts, is a fake record (a fake key)", -1},
		{"seed message", `{"role":"user","content":"x"}` + "\n" + `{"fake":1}`, "seed", 1, 1,
			"line 1, the first line JSON.parse accepts, is a seed record", -1},
		{"a JSON value that is no record is seed's", "[1]\n" + `{"fake":1}`, "seed", 1, 1,
			"line 1, the first line JSON.parse accepts, is a seed record", -1},
		{"empty", "", "seed", 0, 1, "no line is one JSON.parse accepts: seed", -1},
		{"nothing parses", "{\n}\n", "seed", 0, 3, "no line is one JSON.parse accepts: seed", -1},
		{"a line past the bound is not judged", "{\n" + big + `{"fake":1}`, "seed", 0, 2,
			"no line within the first 4 MiB is one JSON.parse accepts: seed", MaxSniff},
		{"a line ending just within the bound is", big[:MaxSniff-20] + "\n" + `{"fake":1}` + "\n", "fake", 2, 2,
			"line 2, the first line JSON.parse accepts, is a fake record (a fake key)", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Readers that return the last bytes with io.EOF (a file's
			// ReadAt through io.SectionReader does), and one byte at a time.
			for _, r := range []io.Reader{iotest.DataErrReader(strings.NewReader(tt.text)), iotest.OneByteReader(strings.NewReader(tt.text))} {
				d, _, err := detect(r, ds)
				if err != nil {
					t.Fatal(err)
				}
				if d.Dialect.Name() != tt.want || d.Line != tt.line || d.Why != tt.why {
					t.Errorf("%T: got %s line %d %q, want %s line %d %q", r, d.Dialect.Name(), d.Line, d.Why, tt.want, tt.line, tt.why)
				}
			}
			d, head, err := detect(strings.NewReader(tt.text), ds)
			if err != nil {
				t.Fatal(err)
			}
			if d.Dialect.Name() != tt.want || d.Line != tt.line || d.Lines != tt.lines || d.Why != tt.why {
				t.Errorf("got %s line %d lines %d %q, want %s line %d lines %d %q",
					d.Dialect.Name(), d.Line, d.Lines, d.Why, tt.want, tt.line, tt.lines, tt.why)
			}
			// What was read is a prefix of the text, replayable.
			if !strings.HasPrefix(tt.text, string(head)) {
				t.Errorf("head is not a prefix of the text")
			}
			if tt.wantHeadSize >= 0 && len(head) != tt.wantHeadSize {
				t.Errorf("read %d bytes, want %d", len(head), tt.wantHeadSize)
			}
		})
	}
}

// TestDetectBound: a first line that never ends is read up to MaxSniff and
// no further, and not held past it.
func TestDetectBound(t *testing.T) {
	r := &endless{}
	d, head, err := Detect(r)
	if err != nil {
		t.Fatal(err)
	}
	if d.Dialect.Name() != "seed" || d.Line != 0 {
		t.Errorf("got %s at line %d, want seed by default", d.Dialect.Name(), d.Line)
	}
	if r.n > MaxSniff || len(head) > MaxSniff || cap(head) > MaxSniff {
		t.Errorf("read %d bytes, held %d (cap %d): want at most %d", r.n, len(head), cap(head), MaxSniff)
	}
}

// TestDetectReadsLittle: a file decided by its first line is read one
// chunk, not MaxSniff.
func TestDetectReadsLittle(t *testing.T) {
	text := `{"role":"user","content":"x"}` + "\n" + strings.Repeat(`{"role":"user","content":"y"}`+"\n", 100000)
	r := &countReader{r: strings.NewReader(text)}
	if _, _, err := Detect(r); err != nil {
		t.Fatal(err)
	}
	if r.n > sniffChunk {
		t.Errorf("read %d bytes, want at most %d", r.n, sniffChunk)
	}
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestDetectReadError(t *testing.T) {
	d, _, err := Detect(failing{})
	if err == nil || d.Dialect == nil || d.Dialect.Name() != "seed" {
		t.Errorf("got %v, %v: want seed and the error", d.Dialect, err)
	}
}

func TestDetectBytesSeed(t *testing.T) {
	d := DetectBytes([]byte(`{"role":"user","content":"x"}`))
	if d.Dialect.Name() != "seed" || d.Line != 1 {
		t.Errorf("got %s line %d", d.Dialect.Name(), d.Line)
	}
}

func TestNamed(t *testing.T) {
	if d, err := Named("seed"); err != nil || d.Name() != "seed" {
		t.Errorf("Named(seed) = %v, %v", d, err)
	}
	_, err := Named("nonesuch")
	if err == nil || !strings.Contains(err.Error(), `dialect "nonesuch" is not available`) || !strings.Contains(err.Error(), "seed") {
		t.Errorf("Named(nonesuch) error = %v", err)
	}
	if _, err := Named(Auto); err == nil {
		t.Errorf("Named(auto) is no dialect: want an error")
	}
}

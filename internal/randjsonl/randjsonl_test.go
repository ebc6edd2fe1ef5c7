package randjsonl

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

func TestLineDeterministicAndVaried(t *testing.T) {
	a := rand.New(rand.NewPCG(1, 2))
	b := rand.New(rand.NewPCG(1, 2))
	var valid, invalid, nonUTF8 int
	for i := 0; i < 5000; i++ {
		la, lb := Line(a), Line(b)
		if !bytes.Equal(la, lb) {
			t.Fatalf("line %d differs between two generators with one seed", i)
		}
		if bytes.IndexByte(la, '\n') >= 0 {
			t.Fatalf("line %d contains a newline: %q", i, la)
		}
		if json.Valid(la) {
			valid++
		} else {
			invalid++
		}
		if !bytes.Equal(bytes.ToValidUTF8(la, nil), la) {
			nonUTF8++
		}
	}
	// The mix matters: a generator that only makes garbage (or only valid
	// records) reaches few branches.
	if valid < 1000 || invalid < 1000 || nonUTF8 < 200 {
		t.Fatalf("poor mix: %d valid, %d invalid, %d with invalid UTF-8", valid, invalid, nonUTF8)
	}
}

func TestFile(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sawCRLF, sawBOM, sawBlank bool
	for i := 0; i < 300; i++ {
		n := 5 + r.IntN(56)
		f := File(r, n)
		lines := bytes.Split(f, []byte("\n"))
		if got := len(lines); got != n && got != n+1 {
			t.Fatalf("File(%d) has %d physical lines", n, got)
		}
		sawCRLF = sawCRLF || bytes.Contains(f, []byte("\r\n"))
		sawBOM = sawBOM || bytes.HasPrefix(f, []byte("\ufeff"))
		sawBlank = sawBlank || bytes.Contains(f, []byte("\n\n")) || bytes.Contains(f, []byte("\n\r\n"))
	}
	if !sawCRLF || !sawBOM || !sawBlank {
		t.Fatalf("files lack variety: CRLF %v, BOM %v, blank lines %v", sawCRLF, sawBOM, sawBlank)
	}
	if File(r, 0) == nil {
		t.Fatal("File(0) is empty")
	}
}

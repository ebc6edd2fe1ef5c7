package cli

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
)

// repeatReader yields n bytes of b, then a line break, without holding
// them.
type repeatReader struct {
	b    byte
	left int64
	nl   bool
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		if r.nl {
			return 0, io.EOF
		}
		r.nl = true
		p[0] = '\n'
		return 1, nil
	}
	n := int64(len(p))
	if n > r.left {
		n = r.left
	}
	for i := range p[:n] {
		p[i] = r.b
	}
	r.left -= n
	return int(n), nil
}

// A crash tail of NULs on one line, far longer than maxFixLine: a plain
// check's fix marks must not hold it (it held the whole line: 100 MiB for
// a 100 MiB line, 2.6 GB for a 1 GiB one).
func TestStreamFixesHoldsNoHugeLine(t *testing.T) {
	const size = 4 * maxFixLine
	findings := []analysis.Finding{{Line: 1, Code: analysis.CodeInvalidJSON}, {Line: 2, Code: analysis.CodeInvalidJSON}}
	src := io.MultiReader(&repeatReader{b: 0, left: size}, strings.NewReader("{\"role\":\"user\",\"content\":\"x\",}\n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fixes, err := streamFixes(context.Background(), src, findings, false)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// Up to maxFixLine is read before the line is known to be too long:
	// at most twice that is allocated on the way (it was 5x the line).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*maxFixLine+8<<20 {
		t.Errorf("streamFixes allocated %d MiB for a %d MiB line; want at most %d MiB", alloc>>20, size>>20, (2*maxFixLine+8<<20)>>20)
	}
	if fixes.at(0) != nil {
		t.Error("the huge line got a fix mark")
	}
	if fixes.at(1) == nil {
		t.Error("the line after it lost its fix mark")
	}
}

// Past its limit the spool of stdin stops copying, frees its disk and says
// there is nothing to read again; under it, it reads back what went in.
func TestSpoolStdinBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		limit int64
		over  bool
	}{
		{"under", "abc\ndef\n", 8, false},
		{"over", "abc\ndef\nghi\n", 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newSpool(tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			// Read in small pieces, as the analysis does.
			got, err := io.ReadAll(io.LimitReader(s.tee(strings.NewReader(tc.input)), 1<<20))
			if err != nil || string(got) != tc.input {
				t.Fatalf("tee changed stdin: %q, %v", got, err)
			}
			fi, err := s.f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > tc.limit {
				t.Errorf("spool holds %d bytes, limit %d", fi.Size(), tc.limit)
			}
			again, err := s.rewind()
			if err != nil {
				t.Fatal(err)
			}
			if tc.over {
				if again != nil {
					t.Error("a spool over its limit offers a partial copy")
				}
				if fi.Size() != 0 {
					t.Errorf("an abandoned spool keeps %d bytes of disk", fi.Size())
				}
				return
			}
			b, _ := io.ReadAll(again)
			if !bytes.Equal(b, []byte(tc.input)) {
				t.Errorf("spool reads back %q", b)
			}
		})
	}
}

// fixDataBytesPerLine runs fixData on n refused lines line (each with a
// line break) and returns the bytes it allocated per line.
func fixDataBytesPerLine(t *testing.T, line string, n int, o checkOptions) uint64 {
	t.Helper()
	data := []byte(strings.Repeat(line+"\n", n))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	run, _, err := fixData(context.Background(), target{path: "a.jsonl"}, data, analysis.Options{}, o)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	left := len(run.findings)
	for _, m := range run.omitted {
		left += m.n
	}
	if run.fixed != 0 || left != n || run.more != 0 {
		t.Fatalf("fixData fixed %d, left %d findings, would fix %d more; want 0, %d, 0", run.fixed, left, run.more, n)
	}
	if len(run.findings) > maxListedPerCode {
		t.Fatalf("fixData listed %d findings of one code; want at most %d, the rest counted", len(run.findings), maxListedPerCode)
	}
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}

// A file of refused lines that no fix repairs: --diff and --fix count what
// --unsafe-fixes would fix without fixing the file a second time, and
// FixAll's report keeps the first findings of each code, as a plain
// check's engine does (fix.FixAllCapped), not a Finding and its message
// per line. 100k lines `nope`: --diff allocated 3,412 bytes per line, then
// 1,715 (no second FixAll, no copy of the report), now 146; --fix
// --unsafe-fixes 1,819, then 1,715, now 146. Allocations of a fixed input
// are the same on every run.
func TestFixDataBytesPerRefusedLine(t *testing.T) {
	if raceEnabled {
		t.Skip("bytes per line are measured without the race detector (1,806 under it)")
	}
	const n = 100_000
	for _, tc := range []struct {
		name string
		o    checkOptions
		max  uint64
	}{
		{"diff", checkOptions{diff: true}, 300},
		{"fix unsafe", checkOptions{fix: true, unsafeFixes: true}, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fixDataBytesPerLine(t, "nope", n, tc.o)
			t.Logf("%d bytes per refused line", got)
			if got > tc.max {
				t.Errorf("fixData allocated %d bytes per refused line no fix repairs; want at most %d", got, tc.max)
			}
		})
	}
}

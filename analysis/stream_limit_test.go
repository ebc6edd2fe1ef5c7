package analysis

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/allocs"
	"github.com/sessionls/sessionls/internal/randjsonl"
)

// endless yields head, then n bytes of fill, then tail, without holding
// the fill: a stand-in for /dev/zero or a line that never ends.
type endless struct {
	head, tail string
	fill       byte
	n          int64
}

func (r *endless) Read(p []byte) (int, error) {
	if len(r.head) > 0 {
		k := copy(p, r.head)
		r.head = r.head[k:]
		return k, nil
	}
	if r.n > 0 {
		k := int(min(int64(len(p)), r.n))
		if r.fill == 0 {
			clear(p[:k])
		} else {
			// Doubling copies: memmove, not a loop the race detector
			// instruments byte by byte.
			p[0] = r.fill
			for f := 1; f < k; f *= 2 {
				copy(p[f:k], p[:f])
			}
		}
		r.n -= int64(k)
		return k, nil
	}
	if len(r.tail) > 0 {
		k := copy(p, r.tail)
		r.tail = r.tail[k:]
		return k, nil
	}
	return 0, io.EOF
}

// A line past node's string limit (here 640 MiB of NUL bytes, as from
// /dev/zero) can never load: the stream must not hold it. The report is
// node's verdict (JSON.parse would throw at the first byte; readFile already
// throws for the size) and the engine allocates a bounded amount, far below
// check's 64 MiB, where it used to grow a buffer to hold the whole line.
// Under the race detector the line is 40 MiB, under the limit: the verdict
// is the same but for file-too-large, and the old engine allocated 80 MiB.
func TestAnalyzeReaderEndlessLineOfZeros(t *testing.T) {
	n := int64(640 << 20) // more than MaxStringLength units
	if raceEnabled {
		n = 40 << 20
	}
	var rep *Report
	var err error
	alloc := allocs.Once(func() {
		rep, err = AnalyzeReader(context.Background(), &endless{n: n, tail: "\n" + jU() + "\n"}, Options{SkipMessages: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	if alloc > 32<<20 {
		t.Errorf("analysing a %d MiB line allocated %d MiB: the line was held", n>>20, alloc>>20)
	}
	if rep.Lines != 2 || rep.Width16 != n+1+int64(len(jU())+1) || rep.Loads() {
		t.Errorf("Lines=%d Width16=%d Loads=%v; want 2 lines of %d units that do not load", rep.Lines, rep.Width16, rep.Loads(), n+1+int64(len(jU())+1))
	}
	if rep.FirstInvalidLine != 1 || len(rep.Units) != 1 {
		t.Errorf("FirstInvalidLine=%d units=%d; want line 1 invalid and line 2 a message", rep.FirstInvalidLine, len(rep.Units))
	}
	var codes []string
	for _, f := range rep.Findings {
		codes = append(codes, f.Code)
		if f.Code == CodeZeroFilled && (f.Line != 1 || f.Span.StartCol != 0 || !strings.Contains(f.Message, "U+0000")) {
			t.Errorf("zero-filled finding %+v, want line 1 column 0 about U+0000", f)
		}
	}
	// A line of NULs is what a file system leaves where it lost data.
	want := []string{CodeZeroFilled, CodeFileTooLarge}
	if n <= MaxStringLength {
		want = want[:1]
	}
	if !reflect.DeepEqual(codes, want) {
		t.Errorf("findings %v, want %v", codes, want)
	}
}

// A line that stays valid JSON as far as it goes (one endless string) is
// held until its width passes the string limit (lowered here), then dropped
// and only counted: the file cannot load, and memory stays bounded.
func TestAnalyzeReaderDropsLineOverStringLimit(t *testing.T) {
	e := newEngine()
	e.chunk, e.workers = 64<<10, 2
	e.maxLine = 1 << 20
	n := 64 << 20
	if raceEnabled {
		n = 16 << 20
	}
	head := `{"role":"user","content":"`
	tail := `"}` + "\n" + jU()
	var rep *Report
	var err error
	alloc := allocs.Once(func() {
		rep, err = e.analyzeReader(context.Background(), &endless{head: head, fill: 'a', n: int64(n), tail: tail}, Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if alloc > 16<<20 {
		t.Errorf("analysing a %d MiB line allocated %d MiB: the line was held past the limit", n>>20, alloc>>20)
	}
	width := int64(len(head) + n + len(tail))
	if rep.Lines != 2 || rep.Width16 != width || len(rep.Messages) != 1 || rep.Messages[0].Line != 2 || rep.InvalidLines != 0 {
		t.Errorf("Lines=%d Width16=%d messages=%+v invalid=%d; want 2 lines, %d units, one message on line 2 and the long line unparsed",
			rep.Lines, rep.Width16, rep.Messages, rep.InvalidLines, width)
	}
}

// The stream decides a long line's verdict from a prefix when the prefix
// already fails JSON.parse well before its end (settledPrefix). That must
// be the verdict on the whole line: checked on every prefix of random
// hostile lines, and on whole streams against Analyze with the shortcut
// taken as early as possible.
func TestSettledPrefixIsTheLineVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	lines, files := 400, uint64(30)
	if raceEnabled {
		lines, files = 60, 6
	}
	tried, settled := 0, 0
	for range lines {
		// Two random lines end to end: most fail early, and go on long
		// after their first error.
		l := append(randjsonl.Line(rng), randjsonl.Line(rng)...)
		full := line.Parse(l)
		// Cuts anywhere, and every one just past the margin of an error
		// near the start.
		cuts := make([]int, 0, 300)
		for k := settleMargin; k < min(len(l), settleMargin+100); k++ {
			cuts = append(cuts, k)
		}
		for range 100 {
			cuts = append(cuts, 1+rng.IntN(len(l)+1))
		}
		for _, k := range cuts {
			if k >= len(l) {
				continue
			}
			tried++
			r, ok := settledPrefix(line.Parse, l[:k])
			if !ok {
				continue
			}
			settled++
			if r.Verdict != full.Verdict || r.Reason != full.Reason || r.Span != full.Span {
				t.Fatalf("%q: prefix of %d bytes settles as %v %q %+v; the whole line is %v %q %+v",
					l, k, r.Verdict, r.Reason, r.Span, full.Verdict, full.Reason, full.Span)
			}
		}
	}
	t.Logf("%d of %d prefixes settled the verdict", settled, tried)
	if settled < tried/5 {
		t.Errorf("only %d of %d prefixes settled: the test proves little", settled, tried)
	}

	var texts []string
	for seed := uint64(1); seed <= files; seed++ {
		texts = append(texts, string(randjsonl.File(rand.New(rand.NewPCG(seed, 1)), 30)))
	}
	for _, chunk := range []int{7, 64, 300} {
		for i, text := range texts {
			e := streamEngine(line.Parse, chunk, 2)
			e.settleFrom = 1
			want := e.analyze([]byte(text), Options{Budget: 500})
			got, err := e.analyzeReader(context.Background(), strings.NewReader(text), Options{Budget: 500})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("chunk %d text %d: stream report with early verdicts differs from Analyze\ngot  %+v\nwant %+v", chunk, i, got, want)
			}
		}
	}
}

// onlyReader hides every method of a reader but Read: a pipe.
type onlyReader struct{ io.Reader }

// A long line is counted without being held and read again only if it can
// load: from a file, at its offset; from a pipe, from a temporary file it
// was kept in meanwhile. A line past the string limit (lowered here) costs
// no memory at all, and a loadable long line is read once more, whole,
// instead of growing a buffer to twice its size (what the old engine did
// for both sources).
func TestAnalyzeReaderRereadsLongLines(t *testing.T) {
	e := newEngine()
	e.chunk, e.workers, e.settleFrom = 64<<10, 2, 1<<20
	e.maxLine = 32 << 20
	loadable := `{"role":"user","content":"` + strings.Repeat("é", 6<<20) + `"}` // 12 MiB, 6 Mi units
	huge := `{"role":"user","content":"` + strings.Repeat("a", 40<<20) + `"}`    // past the limit
	text := jU() + "\n" + loadable + "\n" + huge + "\n" + jU() + "\n"
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	// The report is Analyze's with the huge line's place empty, but for
	// its width.
	want := e.analyze([]byte(jU()+"\n"+loadable+"\n\n"+jU()+"\n"), Options{})
	want.Width16 += int64(len(`{"role":"user","content":""}`) + 40<<20)
	loadable, huge, text = "", "", "" // not counted in what the engine allocates

	for _, source := range []string{"file", "pipe"} {
		t.Run(source, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var r io.Reader = f
			if source == "pipe" {
				r = onlyReader{f}
			}
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			var rep *Report
			alloc := allocs.Once(func() {
				rep, err = e.analyzeReader(context.Background(), r, Options{})
			})
			if err != nil {
				t.Fatal(err)
			}
			if alloc > 24<<20 {
				t.Errorf("allocated %d MiB: a long line was held (the loadable one needs 12 MiB)", alloc>>20)
			}
			if !reflect.DeepEqual(rep, want) {
				t.Errorf("report differs from Analyze's (the huge line aside)\ngot  %+v\nwant %+v", rep, want)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

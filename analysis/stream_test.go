package analysis

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sessionls/sessionls/analysis/line"
)

// streamEngine is an engine with tiny chunks, so that lines straddle chunk
// boundaries and long lines grow the buffer.
func streamEngine(parse func([]byte) line.Result, chunk, workers int) engine {
	e := newEngine()
	e.parse, e.chunk, e.workers = parse, chunk, workers
	return e
}

func TestAnalyzeReaderMatchesAnalyze(t *testing.T) {
	parsers := []struct {
		name  string
		parse func([]byte) line.Result
	}{{"fake", fakeParse}, {"line.Parse", line.Parse}}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"plain", func(r io.Reader) io.Reader { return r }},
		{"one byte at a time", iotest.OneByteReader},
		{"half reads", iotest.HalfReader},
		{"data with EOF", iotest.DataErrReader},
	}
	var texts []string
	for seed := uint64(1); seed <= 40; seed++ {
		texts = append(texts, genText(seed, 1+int(seed)*3))
	}
	texts = append(texts, "", "\n", "\n\n\n", "{", jU(), jU()+"\n",
		`{"role":"user","content":"`+strings.Repeat("a very long line ", 200)+`"}`+"\n"+jU())
	for _, p := range parsers {
		for _, chunk := range []int{7, 64, 1 << 20} {
			for _, rd := range readers {
				for i, text := range texts {
					e := streamEngine(p.parse, chunk, 3)
					opts := Options{Budget: 1500}
					want := e.analyze([]byte(text), opts)
					got, err := e.analyzeReader(context.Background(), rd.wrap(strings.NewReader(text)), opts)
					if err != nil {
						t.Fatalf("%s/%d/%s text %d: %v", p.name, chunk, rd.name, i, err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s/chunk %d/%s: text %d: stream report differs from Analyze\ngot  %+v\nwant %+v", p.name, chunk, rd.name, i, got, want)
					}
				}
			}
		}
	}
}

func TestAnalyzeReaderLongLine(t *testing.T) {
	// A line of 1 MB read in 7-byte chunks: the buffer grows to hold it.
	long := `{"role":"user","content":"` + strings.Repeat("x", 1<<20) + `"}`
	text := jU() + "\n" + long + "\n" + jU()
	e := streamEngine(fakeParse, 7, 2)
	e.settleFrom = math.MaxInt // fakeParse's spans do not say where JSON fails
	r, err := e.analyzeReader(context.Background(), strings.NewReader(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) != 3 || r.Messages[1].Cost != int64(len(long)+1) || r.Lines != 3 {
		t.Fatalf("Lines=%d messages=%d", r.Lines, len(r.Messages))
	}
}

func TestAnalyzeReaderSkipMessages(t *testing.T) {
	text := genText(99, 200)
	e := streamEngine(fakeParse, 16, 2)
	want := e.analyze([]byte(text), Options{Budget: 900})
	got, err := e.analyzeReader(context.Background(), strings.NewReader(text), Options{Budget: 900, SkipMessages: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Messages != nil {
		t.Fatal("SkipMessages kept messages")
	}
	want.Messages = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SkipMessages changed the report:\ngot  %+v\nwant %+v", got, want)
	}
}

func TestAnalyzeReaderErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	t.Run("read error is wrapped", func(t *testing.T) {
		r := io.MultiReader(strings.NewReader(strings.Repeat(jU()+"\n", 50)), iotest.ErrReader(boom))
		e := streamEngine(fakeParse, 64, 2)
		rep, err := e.analyzeReader(context.Background(), r, Options{})
		if !errors.Is(err, boom) || rep != nil {
			t.Fatalf("err = %v, report %v; want %v", err, rep, boom)
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := AnalyzeReader(ctx, strings.NewReader(jU()), Options{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("cancelled while reading", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r := &cancelAfter{r: strings.NewReader(strings.Repeat(jU()+"\n", 10_000)), n: 20, cancel: cancel}
		e := streamEngine(fakeParse, 64, 2)
		_, err := e.analyzeReader(ctx, r, Options{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// cancelAfter cancels its context after n reads.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	c.n--
	if c.n == 0 {
		c.cancel()
	}
	return c.r.Read(p)
}

func TestAnalyzeReaderBigMatchesAnalyze(t *testing.T) {
	// Real parser, default chunk size, several chunks.
	var b bytes.Buffer
	for seed := uint64(0); b.Len() < 3<<20; seed++ {
		b.WriteString(genText(seed, 500))
		b.WriteByte('\n')
	}
	want := Analyze(b.Bytes(), Options{Budget: 50_000})
	got, err := AnalyzeReader(context.Background(), bytes.NewReader(b.Bytes()), Options{Budget: 50_000})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("AnalyzeReader differs from Analyze on a 3 MB file")
	}
}

func FuzzAnalyzeReader(f *testing.F) {
	f.Add([]byte(jU()+"\n"+jA("a")+"\n\n"+jT("a")), uint8(7), uint8(2))
	f.Add([]byte("\uFEFF{\r\n\r\n{\"role\":\"tool\"}\n"), uint8(1), uint8(1))
	f.Add([]byte("\n\n\n"), uint8(3), uint8(3))
	f.Add([]byte(`{"role":"user","content":"`+strings.Repeat("\\u00e9", 40)+`"}`), uint8(5), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, chunk, workers uint8) {
		e := streamEngine(line.Parse, 1+int(chunk), 1+int(workers%4))
		e.settleFrom = int(workers) // 0 to 255: long lines that fail early are not held
		opts := Options{Budget: 300}
		want := e.analyze(data, opts)
		got, err := e.analyzeReader(context.Background(), bytes.NewReader(data), opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stream report differs from Analyze on %q (chunk %d)", data, 1+int(chunk))
		}
		d := NewDocument(string(data), opts)
		if !reflect.DeepEqual(d.Report(), want) {
			t.Fatalf("document report differs from Analyze on %q", data)
		}
	})
}

package tokens_test

import (
	"bytes"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/transcript"
)

// benchSession is the realistic transcript the benchmarks read, and its
// lines.
func benchSession() (data []byte, lines [][]byte) {
	data = transcript.Session(400, 1)
	return data, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// eachEncoding runs op as a sub-benchmark per encoding, n bytes an
// operation.
func eachEncoding(b *testing.B, n int, op func(b *testing.B, c *tokens.Counter)) {
	for _, enc := range tokens.Encodings() {
		b.Run(string(enc), func(b *testing.B) {
			c := counter(b, enc)
			b.SetBytes(int64(n))
			for b.Loop() {
				op(b, c)
			}
		})
	}
}

// BenchmarkMessage counts the tokens of a realistic transcript's messages,
// one core (the engine runs one count per worker).
func BenchmarkMessage(b *testing.B) {
	data, lines := benchSession()
	eachEncoding(b, len(data), func(b *testing.B, c *tokens.Counter) {
		for _, l := range lines {
			if _, err := c.Message(l); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStringify is the share of BenchmarkMessage that writes the text.
func BenchmarkStringify(b *testing.B) {
	data, lines := benchSession()
	b.SetBytes(int64(len(data)))
	var buf []byte
	for b.Loop() {
		for _, l := range lines {
			var err error
			if buf, err = line.AppendStringify(buf[:0], l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCount is the share of BenchmarkMessage that counts: the
// pre-tokenizer and the merges, on the stringified messages.
func BenchmarkCount(b *testing.B) {
	data, lines := benchSession()
	var texts []string
	for _, l := range lines {
		t, err := line.AppendStringify(nil, l)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(t))
	}
	eachEncoding(b, len(data), func(b *testing.B, c *tokens.Counter) {
		for _, t := range texts {
			if _, err := c.Count(t); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoad builds an encoding's tables, as the first New does.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := tokens.LoadO200k(); err != nil {
			b.Fatal(err)
		}
	}
}

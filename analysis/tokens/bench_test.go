package tokens_test

import (
	"bytes"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/transcript"
)

// BenchmarkMessage counts the tokens of a realistic transcript's messages,
// one core (the engine runs one count per worker).
func BenchmarkMessage(b *testing.B) {
	for _, enc := range tokens.Encodings() {
		b.Run(string(enc), func(b *testing.B) {
			c := counter(b, enc)
			data := transcript.Session(400, 1)
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for _, l := range lines {
					if _, err := c.Message(l); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkStringify is the share of BenchmarkMessage that writes the text.
func BenchmarkStringify(b *testing.B) {
	data := transcript.Session(400, 1)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
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
	data := transcript.Session(400, 1)
	var texts []string
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		t, err := line.AppendStringify(nil, l)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(t))
	}
	for _, enc := range tokens.Encodings() {
		b.Run(string(enc), func(b *testing.B) {
			c := counter(b, enc)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for _, t := range texts {
					if _, err := c.Count(t); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkLoad builds an encoding's tables, as the first New does.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := tokens.LoadO200k(); err != nil {
			b.Fatal(err)
		}
	}
}

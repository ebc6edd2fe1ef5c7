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

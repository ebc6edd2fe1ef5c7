package analysis

import (
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"
)

// BenchmarkIndexCRs measures what the lone-'\r' index adds to opening a
// 50 MB transcript (NewDocument parses it, which costs far more): one
// IndexByte over a file without '\r', a look at every line of a CRLF file,
// and the index itself when every line holds a lone '\r'.
func BenchmarkIndexCRs(b *testing.B) {
	var sb strings.Builder
	if _, err := transcript.Write(&sb, 50<<20, 1); err != nil {
		b.Fatal(err)
	}
	lf := sb.String()
	for _, c := range []struct{ name, text string }{
		{"lf", lf},
		{"crlf", strings.ReplaceAll(lf, "\n", "\r\n")},
		{"lone-cr", strings.ReplaceAll(lf, `"content":`, "\r"+`"content":`)},
	} {
		lines := strings.Split(c.text, "\n")
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				indexCRs(c.text, lines)
			}
		})
	}
}

package analysis

import (
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"
)

// benchTranscript is a 50 MB realistic transcript.
func benchTranscript(b *testing.B) string {
	b.Helper()
	var sb strings.Builder
	if _, err := transcript.Write(&sb, 50<<20, 1); err != nil {
		b.Fatal(err)
	}
	return sb.String()
}

// benchDocument is a document of benchTranscript and a line in its middle.
func benchDocument(b *testing.B) (*Document, int) {
	b.Helper()
	text := benchTranscript(b)
	d := NewDocument(text, Options{Budget: 200_000})
	if d.Report().FirstInvalidLine != 0 {
		b.Fatal("the transcript does not load")
	}
	b.SetBytes(int64(len(text)))
	return d, d.LineCount() / 2
}

// BenchmarkDocumentEditLine measures what the language server does on a
// keystroke in a 50 MB transcript: one edit inside one message's content,
// then Report (the patched path).
func BenchmarkDocumentEditLine(b *testing.B) {
	d, mid := benchDocument(b)
	col := strings.Index(d.Line(mid), `"content":"`) + len(`"content":"`) // ASCII up to here
	for i := 0; b.Loop(); i++ {
		// Type a character and delete it again, so the document stays put.
		pos := Position{Line: mid, Character: col}
		ch := Change{Range: &Range{pos, pos}, Text: "x"}
		if i%2 == 1 {
			ch = Change{Range: &Range{pos, Position{mid, col + 1}}, Text: ""}
		}
		if err := d.Apply([]Change{ch}); err != nil {
			b.Fatal(err)
		}
		if r := d.Report(); r.Cutoff == nil {
			b.Fatal("no cutoff")
		}
	}
}

// BenchmarkDocumentEditStructure is the same with an edit that adds or
// removes a line, so the report is recomputed from the cached results.
func BenchmarkDocumentEditStructure(b *testing.B) {
	d, mid := benchDocument(b)
	for i := 0; b.Loop(); i++ {
		var ch Change
		if i%2 == 0 {
			n := width16(d.Line(mid))
			p := Position{Line: mid, Character: n}
			ch = Change{Range: &Range{p, p}, Text: "\n"}
		} else {
			n := width16(d.Line(mid))
			ch = Change{Range: &Range{Position{mid, n}, Position{mid + 1, 0}}, Text: ""}
		}
		if err := d.Apply([]Change{ch}); err != nil {
			b.Fatal(err)
		}
		if r := d.Report(); r.Cutoff == nil {
			b.Fatal("no cutoff")
		}
	}
}

// BenchmarkIndexCRs measures what the lone-'\r' index adds to opening a
// 50 MB transcript (NewDocument parses it, which costs far more): one
// IndexByte over a file without '\r', a look at every line of a CRLF file,
// and the index itself when every line holds a lone '\r'.
func BenchmarkIndexCRs(b *testing.B) {
	lf := benchTranscript(b)
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

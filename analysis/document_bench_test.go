package analysis

import (
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"
)

// benchDocument is a 50 MB realistic transcript and a line in its middle.
func benchDocument(b *testing.B) (*Document, int) {
	b.Helper()
	var sb strings.Builder
	if _, err := transcript.Write(&sb, 50<<20, 1); err != nil {
		b.Fatal(err)
	}
	d := NewDocument(sb.String(), Options{Budget: 200_000})
	if d.Report().FirstInvalidLine != 0 {
		b.Fatal("the transcript does not load")
	}
	b.SetBytes(int64(sb.Len()))
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

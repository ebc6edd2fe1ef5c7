package analysis

import (
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"
)

// BenchmarkDocumentEditLine measures what the language server does on a
// keystroke in a 50 MB transcript: one edit inside one line, then Report.
func BenchmarkDocumentEditLine(b *testing.B) {
	var sb strings.Builder
	if _, err := transcript.Write(&sb, 50<<20, 1); err != nil {
		b.Fatal(err)
	}
	d := NewDocument(sb.String(), Options{Budget: 200_000})
	mid := d.LineCount() / 2
	if d.Report().FirstInvalidLine != 0 {
		b.Fatal("the transcript does not load")
	}
	col := strings.Index(d.Line(mid), `"content":"`) + len(`"content":"`) // ASCII up to here
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Type a character into the content of a mid-file message and
		// delete it again, so the document does not grow.
		pos := Position{Line: mid, Character: col}
		var ch Change
		if i%2 == 0 {
			ch = Change{Range: &Range{pos, pos}, Text: "x"}
		} else {
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

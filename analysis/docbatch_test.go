package analysis

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// oneByOne applies changes one Apply at a time, the reference for a
// multi-change Apply.
func oneByOne(d *Document, changes []Change) error {
	for _, ch := range changes {
		if err := d.Apply([]Change{ch}); err != nil {
			return err
		}
	}
	return nil
}

// TestApplyBatchEqualsOneByOne: a multi-change edit leaves the text, the
// line verdicts and the report that applying its changes one by one
// leaves, or fails as that does (and then changes nothing).
func TestApplyBatchEqualsOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	pieces := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"a"}`, "\n", "\n", "x", "é", "🙏", "", `"`, "\r\n", " ", "\r"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for iter := range 20000 {
		text := gen(rng.IntN(30))
		a, b := NewDocument(text, Options{Budget: 50}), NewDocument(text, Options{Budget: 50})
		var changes []Change
		oneLine := rng.IntN(3) == 0 // a multi-cursor edit of one line
		hot := rng.IntN(a.EditorLineCount() + 1)
		for range 1 + rng.IntN(6) {
			pos := func() Position {
				if oneLine {
					return Position{Line: hot, Character: rng.IntN(12)}
				}
				return Position{Line: rng.IntN(a.EditorLineCount() + 2), Character: rng.IntN(8)}
			}
			s, e := pos(), pos()
			if e.Line < s.Line || (e.Line == s.Line && e.Character < s.Character) {
				s, e = e, s
			}
			if rng.IntN(20) == 0 {
				s, e = e, s // invalid now and then
			}
			text := gen(rng.IntN(3))
			if rng.IntN(10) < 8 {
				text = strings.ReplaceAll(text, "\r", "") // mostly the batch path
			}
			changes = append(changes, Change{Range: &Range{s, e}, Text: text})
		}
		if rng.IntN(10) == 0 {
			changes = append([]Change{{Text: gen(5)}}, changes...)
		}
		before := a.Text()
		errA, errB := a.Apply(changes), oneByOne(b, changes)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("iter %d: %q %+v: batch %v, one by one %v", iter, text, changes, errA, errB)
		}
		if errA != nil {
			if a.Text() != before {
				t.Fatalf("iter %d: a failed edit changed the text", iter)
			}
			continue
		}
		if a.Text() != b.Text() {
			t.Fatalf("iter %d: %q %+v:\nbatch      %q\none by one %q", iter, text, changes, a.Text(), b.Text())
		}
		if a.EditorLineCount() != b.EditorLineCount() {
			t.Fatalf("iter %d: editor lines %d, want %d", iter, a.EditorLineCount(), b.EditorLineCount())
		}
		if !reflect.DeepEqual(a.results, b.results) {
			t.Fatalf("iter %d: line verdicts differ", iter)
		}
		if want := Analyze([]byte(b.Text()), Options{Budget: 50}); !reflect.DeepEqual(a.Report(), want) {
			t.Fatalf("iter %d: report\n%+v\nwant\n%+v", iter, a.Report(), want)
		}
	}
}

// TestApplyManyChangesBounded (issue 16): K changes in one Apply cost the
// document plus the line edited, not K copies of it, and work that is
// not K × lines.
func TestApplyManyChangesBounded(t *testing.T) {
	t.Run("2,000 edits of a 5 MiB line", func(t *testing.T) {
		long := `{"role":"user","content":"` + strings.Repeat("a", 5<<20) + `"}`
		d := NewDocument(long+"\n", Options{})
		var changes []Change
		for k := range 2000 {
			// Last first, as VS Code sends a multi-cursor edit.
			p := Position{Line: 0, Character: 30 + (2000-k)*2000}
			changes = append(changes, Change{Range: &Range{p, p}, Text: "b"})
		}
		if err := d.Apply(changes); err != nil {
			t.Fatal(err)
		}
		// One by one, each edit held a copy of the line for the undo
		// (10 GB), and copied it (10 GB of work).
		if d.undoBytes != 0 {
			t.Errorf("held %d bytes of replaced lines for the undo, want 0", d.undoBytes)
		}
		if limit := 4 * len(long); d.batchWork > limit {
			t.Errorf("%d bytes of work, want at most %d (the line copied in and out, and each byte moved once)", d.batchWork, limit)
		}
		if got := strings.Count(d.Line(0), "b"); got != 2000 {
			t.Errorf("%d edits in the text, want 2000", got)
		}
	})
	t.Run("one by one with lone CRs: the undo is bounded", func(t *testing.T) {
		long := `{"role":"user",` + "\r" + `"content":"` + strings.Repeat("a", 5<<20) + `"}`
		d := NewDocument(long+"\n", Options{})
		before := d.Text()
		var changes []Change
		for k := range 400 {
			p := Position{Line: 1, Character: 30 + k}
			changes = append(changes, Change{Range: &Range{p, p}, Text: "b"})
		}
		err := d.Apply(changes)
		if !errors.Is(err, ErrEditTooCostly) {
			t.Fatalf("error %v, want ErrEditTooCostly", err)
		}
		if d.undoBytes > len(long)+maxUndoExtra+len(long) {
			t.Errorf("held %d bytes for the undo of a %d-byte document", d.undoBytes, len(long))
		}
		if d.Text() != before {
			t.Error("a refused edit changed the text")
		}
	})
	t.Run("40,000 line breaks in 200,000 lines, last first", func(t *testing.T) {
		const lines, breaks = 200_000, 40_000
		d := NewDocument(strings.Repeat(`{"role":"user","content":"hi"}`+"\n", lines), Options{})
		var changes []Change
		for k := range breaks {
			p := Position{Line: lines - 1 - k*5, Character: 3}
			changes = append(changes, Change{Range: &Range{p, p}, Text: "\n"})
		}
		if err := d.Apply(changes); err != nil {
			t.Fatal(err)
		}
		if got := d.LineCount(); got != lines+breaks+1 {
			t.Fatalf("%d lines, want %d", got, lines+breaks+1)
		}
		// One by one, each break shifts every line after it: about
		// breaks × lines / 2 lines moved (64 GB of work at 16 per line).
		if limit := 16*3*(lines+breaks) + 8*breaks*4; d.batchWork > limit {
			t.Errorf("%d bytes of work, want at most %d", d.batchWork, limit)
		}
	})
	t.Run("scattered edits are refused past the bound", func(t *testing.T) {
		const lines = 100_000
		d := NewDocument(strings.Repeat(`{"role":"user","content":"hi"}`+"\n", lines), Options{})
		before := d.Text()
		var changes []Change
		for k := range 20_000 {
			p := Position{Line: (k % 2) * (lines - 1), Character: 0}
			changes = append(changes, Change{Range: &Range{p, p}, Text: "\n"})
		}
		err := d.Apply(changes)
		if !errors.Is(err, ErrEditTooCostly) {
			t.Fatalf("error %v, want ErrEditTooCostly", err)
		}
		if !strings.Contains(err.Error(), "send the whole text instead") {
			t.Errorf("error %q does not say what to do", err)
		}
		if d.Text() != before {
			t.Error("a refused edit changed the text")
		}
	})
}

package lsp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/lsp/transport"
	"go.lsp.dev/protocol"
)

// refDoc is the reference model: the text as a plain string, edited with
// UTF-16 positions by the rules LSP gives (and the engine enforces): lines
// end at "\r\n", "\n" and a lone "\r"; a position must be on a line (or
// just past the last line at character 0) and on a UTF-16 boundary, a
// character past the end of its line is its end, and a range must not end
// before it starts.
type refDoc struct {
	text  string
	stale bool
}

// refLines splits text at the client's line breaks: where each line starts
// and where its text ends.
func refLines(text string) (starts, ends []int) {
	starts = []int{0}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == '\n' || c == '\r' {
			ends = append(ends, i)
			if c == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return starts, append(ends, len(text))
}

// refOffset is the byte offset of p in text, or false when p is invalid.
func refOffset(text string, p protocol.Position) (int, bool) {
	starts, ends := refLines(text)
	if int(p.Line) == len(starts) && p.Character == 0 {
		return len(text), true
	}
	if int(p.Line) >= len(starts) {
		return 0, false
	}
	l := text[starts[p.Line]:ends[p.Line]]
	units := 0
	for i, r := range l {
		if units == int(p.Character) {
			return starts[p.Line] + i, true
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		if units > int(p.Character) {
			return 0, false // inside a surrogate pair
		}
	}
	return ends[p.Line], true // at or past the end of the line
}

// apply mirrors file.applyChanges: changes before the last full-text change
// are moot; a stale document takes only a batch with a full-text change;
// a batch with an invalid change changes nothing and makes it stale.
func (d *refDoc) apply(cs []contentChange) bool {
	start, full := 0, false
	for i, c := range cs {
		if c.Range == nil {
			start, full = i, true
		}
	}
	if d.stale && !full {
		return false
	}
	text := d.text
	for _, c := range cs[start:] {
		if c.Range == nil {
			text = c.Text
			continue
		}
		st, en := c.Range.Start, c.Range.End
		a, ok1 := refOffset(text, st)
		b, ok2 := refOffset(text, en)
		if !ok1 || !ok2 || en.Line < st.Line || (en.Line == st.Line && en.Character < st.Character) {
			d.stale = true
			return false
		}
		text = text[:a] + c.Text + text[b:]
	}
	d.text, d.stale = text, false
	return true
}

// fuzzPieces are what edits insert: line breaks, JSON punctuation,
// non-ASCII and astral characters.
var fuzzPieces = []string{"", "\n", "{", "}", `"`, "a", "é", "🙏", "\r\n", `{"role":"user","content":"x"}`, "ß🎉\n", "\\u00e9",
	"\r", `{"role":"user",` + "\r" + `"content":"x"}`}

// decodeOps turns fuzz bytes into didChange batches.
func decodeOps(ops []byte, text func() string) [][]contentChange {
	var batches [][]contentChange
	next := func() int {
		if len(ops) == 0 {
			return 0
		}
		b := ops[0]
		ops = ops[1:]
		return int(b)
	}
	for len(ops) > 0 {
		n := 1 + next()%3
		var batch []contentChange
		for range n {
			kind := next()
			piece := fuzzPieces[next()%len(fuzzPieces)]
			if kind%11 == 0 {
				batch = append(batch, contentChange{Text: piece + `{"role":"user","content":"🙏"}`})
				continue
			}
			starts, _ := refLines(text())
			lines := len(starts)
			// Mostly valid positions, sometimes one past the end.
			pos := func() protocol.Position {
				l := next() % (lines + 1)
				return protocol.Position{Line: uint32(l), Character: uint32(next() % 8)}
			}
			s, e := pos(), pos()
			if kind%3 != 0 && (e.Line < s.Line || (e.Line == s.Line && e.Character < s.Character)) {
				s, e = e, s
			}
			batch = append(batch, contentChange{Range: &protocol.Range{Start: s, End: e}, Text: piece})
		}
		batches = append(batches, batch)
	}
	return batches
}

// FuzzDidChange sends random didChange batches (encoded to JSON and decoded
// as the server decodes them) through the server's document handling; the
// document's text must always equal the reference model's.
func FuzzDidChange(f *testing.F) {
	f.Add(`{"role":"user","content":"hi"}`, []byte{0, 1, 1, 0, 3, 0, 2})
	f.Add("é🙏\n{}\n", []byte{2, 5, 2, 0, 1, 0, 3, 7, 7, 1, 1, 1, 2, 3})
	f.Add("", []byte{0, 11, 4, 0, 0, 0, 0})
	f.Add("a\nb\nc", []byte{1, 1, 0, 9, 9, 0, 0, 2, 6, 3, 2, 1, 1})
	f.Add("🙏🙏\n🙏", []byte{0, 2, 1, 0, 1, 0, 1, 0, 2, 8, 1, 0, 3, 1, 0, 22, 7})
	f.Add("{\"role\":\"user\",\r\"content\":\"x\"}\r\n{}\r", []byte{0, 1, 12, 1, 7, 2, 4, 1, 13, 3, 1, 0, 2, 2, 9})
	f.Fuzz(func(t *testing.T, text string, ops []byte) {
		if !utf8.ValidString(text) {
			// The reference decodes with Go's rules; the engine decodes
			// invalid UTF-8 as node does (maximal subparts). Valid text is
			// where the two must agree.
			t.Skip()
		}
		// Every batch costs O(text); long inputs would only slow the fuzzer.
		if len(ops) > 600 || len(text) > 4096 {
			t.Skip()
		}
		ref := &refDoc{text: text}
		fl := &file{uri: "file:///f.jsonl", doc: analysis.NewDocument(text, analysis.Options{Budget: 100})}
		version := int32(1)
		for _, batch := range decodeOps(ops, func() string { return ref.text }) {
			version++
			raw, err := json.Marshal(map[string]any{
				"textDocument":   map[string]any{"uri": fl.uri, "version": version},
				"contentChanges": batch,
			})
			if err != nil {
				t.Fatal(err)
			}
			p, err := transport.DecodeDidChange(raw)
			if err != nil {
				t.Fatal(err)
			}
			wantOK := ref.apply(batch)
			err = fl.applyChanges(p.TextDocument.Version, p.ContentChanges)
			if (err == nil) != wantOK {
				t.Fatalf("batch %s: server error %v, reference ok %v", raw, err, wantOK)
			}
			if err != nil && !errors.Is(err, errStale) && !errors.Is(err, analysis.ErrInvalidPosition) {
				t.Fatalf("batch %s: unexpected error %v", raw, err)
			}
			if got := fl.doc.Text(); got != ref.text {
				t.Fatalf("after %s:\nserver    %q\nreference %q", raw, got, ref.text)
			}
			if !fl.inSync() != ref.stale {
				t.Fatalf("after %s: in sync %v, reference stale %v", raw, fl.inSync(), ref.stale)
			}
			if fl.version != version {
				t.Fatalf("version %d, want %d", fl.version, version)
			}
			if n := fl.doc.LineCount(); n != strings.Count(ref.text, "\n")+1 {
				t.Fatalf("LineCount %d for %q", n, ref.text)
			}
			if starts, _ := refLines(ref.text); fl.doc.EditorLineCount() != len(starts) {
				t.Fatalf("EditorLineCount %d for %q", fl.doc.EditorLineCount(), ref.text)
			}
		}
		// The analysis is the analysis of the text.
		want := analysis.Analyze([]byte(ref.text), analysis.Options{Budget: 100})
		got := fl.doc.Report()
		if got.TotalChars != want.TotalChars || len(got.Findings) != len(want.Findings) || len(got.Units) != len(want.Units) {
			t.Fatalf("report differs from Analyze on %q", ref.text)
		}
	})
}

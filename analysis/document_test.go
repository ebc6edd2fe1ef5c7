package analysis

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/sessionls/sessionls/analysis/line"
)

// clientLines splits text as an LSP client does, at "\r\n", "\n" and a
// lone "\r": the byte offsets where each line starts and where its text
// ends (before its line break).
func clientLines(text string) (starts, ends []int) {
	starts = append(starts, 0)
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			ends = append(ends, i)
			starts = append(starts, i+1)
		case '\r':
			ends = append(ends, i)
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return starts, append(ends, len(text))
}

// clientOffset is the byte offset of p in valid UTF-8 text, counted the
// slow, obvious way: the client's lines, a character past a line's end
// taken as its end.
func clientOffset(text string, p Position) int {
	starts, ends := clientLines(text)
	if p.Line == len(starts) {
		return len(text)
	}
	u := utf16.Encode([]rune(text[starts[p.Line]:ends[p.Line]]))
	n := min(p.Character, len(u))
	return starts[p.Line] + len(string(utf16.Decode(u[:n])))
}

// editUTF16 applies a ranged edit to valid UTF-8 text by clientOffset.
func editUTF16(text string, r Range, repl string) string {
	s, e := clientOffset(text, r.Start), clientOffset(text, r.End)
	return text[:s] + repl + text[e:]
}

// randPos picks a position on a character boundary of valid UTF-8 text,
// on one of the client's lines; now and then past the end of the line.
func randPos(rng *rand.Rand, text string) Position {
	starts, ends := clientLines(text)
	ln := rng.IntN(len(starts))
	u := utf16.Encode([]rune(text[starts[ln]:ends[ln]]))
	if rng.IntN(10) == 0 {
		return Position{Line: ln, Character: len(u) + 1 + rng.IntN(3)}
	}
	var cuts []int
	for i := 0; i <= len(u); i++ {
		if i == len(u) || !utf16.IsSurrogate(rune(u[i])) || (u[i] >= 0xD800 && u[i] < 0xDC00) {
			cuts = append(cuts, i)
		}
	}
	return Position{Line: ln, Character: cuts[rng.IntN(len(cuts))]}
}

// checkClientLines checks the document's mapping between runtime and
// client positions against clientLines on its text, at every column of
// every line.
func checkClientLines(t *testing.T, d *Document) {
	t.Helper()
	text := d.Text()
	starts, ends := clientLines(text)
	if got := d.EditorLineCount(); got != len(starts) {
		t.Fatalf("EditorLineCount = %d, want %d, for %q", got, len(starts), text)
	}
	// columns lists the UTF-16 column of each character boundary of s,
	// with its byte offset.
	columns := func(s string) (cols, offs []int) {
		col := 0
		for i := 0; i < len(s); {
			cols, offs = append(cols, col), append(offs, i)
			w, n := line.Char16(s[i:])
			col += n
			i += w
		}
		return append(cols, col), append(offs, len(s))
	}
	clientLineOf := func(off int) int { return sort.SearchInts(starts, off+1) - 1 }
	lineStart := 0
	for i := range d.LineCount() {
		l := d.Line(i)
		cols, offs := columns(l)
		for k, col := range cols {
			if k == len(cols)-1 && strings.HasSuffix(l, "\r") {
				continue // past a final '\r': stays on the line, checked below
			}
			off := lineStart + offs[k]
			cl := clientLineOf(off)
			want := Position{Line: cl, Character: width16(text[starts[cl]:off])}
			if got := d.EditorPosition(i, col); got != want {
				t.Fatalf("EditorPosition(%d, %d) = %v, want %v, in %q", i, col, got, want, text)
			}
		}
		if end := d.EditorPosition(i, cols[len(cols)-1]+2); end.Line != clientLineOf(lineStart+max(len(l)-1, 0)) {
			t.Fatalf("EditorPosition(%d, past the end) = %v, in %q", i, end, text)
		}
		lineStart += len(l) + 1
	}
	for cl := range starts {
		st := starts[cl]
		wantLine := strings.Count(text[:st], "\n")
		base := width16(text[strings.LastIndexByte(text[:st], '\n')+1 : st])
		w := width16(text[st:ends[cl]])
		// A character past the end is the end when a lone '\r' ends the
		// line inside its runtime line; past a runtime line's end it is kept.
		e := ends[cl]
		clamp := e < len(text)-1 && text[e] == '\r' && text[e+1] != '\n'
		for c := range w + 3 {
			wantCol := base + c
			if clamp {
				wantCol = base + min(c, w)
			}
			gl, gc, ok := d.RuntimePosition(Position{Line: cl, Character: c})
			if !ok || gl != wantLine || gc != wantCol {
				t.Fatalf("RuntimePosition(%d:%d) = %d:%d %v, want %d:%d, in %q", cl, c, gl, gc, ok, wantLine, wantCol, text)
			}
		}
	}
	if _, _, ok := d.RuntimePosition(Position{Line: len(starts)}); ok {
		t.Fatalf("RuntimePosition past the last line is ok, in %q", text)
	}
}

var insertions = []string{
	"", "x", "\n", "\n\n", "😀", "é", `{"role":"user","content":"ok"}`, "}", "{", "\r\n",
	"\n" + `{"role":"tool","content":"r","toolCallId":"a","isError":false}` + "\n",
	`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":null}]}`,
	`"toolCallId":"b"`, "世界\n🎉",
	"\r", `{"role":"user",` + "\r" + `"content":"x"}`, "a\rb\r",
}

func TestDocumentRandomEdits(t *testing.T) {
	parsers := []struct {
		name  string
		parse func([]byte) line.Result
	}{{"fake", fakeParse}, {"line.Parse", line.Parse}}
	for _, p := range parsers {
		patched := 0
		for seed := uint64(1); seed <= 30; seed++ {
			rng := rand.New(rand.NewPCG(seed, 99))
			e := newEngine()
			e.parse = p.parse
			text := strings.ReplaceAll(genText(seed, 12), "long", "lóng 😀")
			opts := Options{Budget: int64(200 + rng.IntN(800))}
			d := newDocument(e, text, opts)
			for step := 0; step < 40; step++ {
				var changes []Change
				for range 1 + rng.IntN(3) {
					a, b := randPos(rng, text), randPos(rng, text)
					if b.Line < a.Line || (b.Line == a.Line && b.Character < a.Character) {
						a, b = b, a
					}
					repl := insertions[rng.IntN(len(insertions))]
					if rng.IntN(2) == 0 {
						// Typing: a character in or out at one place.
						b = a
						repl = []string{"x", "é", "😀", ""}[rng.IntN(4)]
						if repl == "" {
							b = randPos(rng, text)
							if b.Line != a.Line || b.Character < a.Character || b.Character > a.Character+2 {
								b = a
							}
						}
					}
					changes = append(changes, Change{Range: &Range{a, b}, Text: repl})
					text = editUTF16(text, Range{a, b}, repl)
				}
				if rng.IntN(20) == 0 {
					text = genText(seed+uint64(step)*100, 8)
					changes = append(changes, Change{Text: text})
				}
				if err := d.Apply(changes); err != nil {
					t.Fatalf("%s seed %d step %d: %v", p.name, seed, step, err)
				}
				if got := d.Text(); got != text {
					t.Fatalf("%s seed %d step %d: text\n%q\nwant\n%q", p.name, seed, step, got, text)
				}
				want := newDocument(e, text, opts).Report()
				if got := d.Report(); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s seed %d step %d: report after edits differs from a fresh document's", p.name, seed, step)
				}
				if want := e.analyze([]byte(text), opts); !reflect.DeepEqual(d.Report(), want) {
					t.Fatalf("%s seed %d step %d: document report differs from Analyze's", p.name, seed, step)
				}
				checkClientLines(t, d)
			}
			patched += d.patched
		}
		if patched == 0 {
			t.Errorf("%s: no report was patched; the fast path went untested", p.name)
		}
	}
}

func TestDocumentPatchedReport(t *testing.T) {
	lines := []string{jU(), jA("a", "b"), jT("a"), jT("b"), `{"role":"user","content":"typing here"}`, "{", "[1,", jU()}
	text := strings.Join(lines, "\n") + "\n"
	type edit struct {
		name  string
		r     Range
		text  string
		patch bool
	}
	col := strings.Index(lines[4], "here")
	tests := []edit{
		{"type into content", Range{Position{4, col}, Position{4, col}}, "x", true},
		{"type an astral character", Range{Position{4, col}, Position{4, col}}, "😀", true},
		{"delete from content", Range{Position{4, col}, Position{4, col + 2}}, "", true},
		{"content of a tool before its id shifts the id's span", Range{Position{2, 30}, Position{2, 31}}, "zzzz", false},
		{"before a call id shifts its span", Range{Position{1, 30}, Position{1, 30}}, "x", false},
		{"break the JSON", Range{Position{4, 0}, Position{4, 1}}, "", false},
		{"type on a broken line", Range{Position{5, 1}, Position{5, 1}}, "x", true},
		{"fix a broken line", Range{Position{5, 0}, Position{5, 1}}, jU(), false},
		{"break a broken line differently", Range{Position{5, 0}, Position{5, 1}}, `{"role":"system","content":""}`, true},
		{"type on the first broken line", Range{Position{6, 0}, Position{6, 0}}, "zz", true},
		{"add a line", Range{Position{4, col}, Position{4, col}}, "\\n", true},
		{"split a line", Range{Position{0, 5}, Position{0, 5}}, "\n", false},
	}
	loads := strings.Join(lines[:5], "\n") + "\n" // the first five lines load
	for _, tt := range tests {
		for _, text := range []string{text, loads} {
			if tt.r.End.Line >= strings.Count(text, "\n") {
				continue
			}
			opts := Options{Budget: int64(len(text) / 2)} // cuts inside
			t.Run(tt.name, func(t *testing.T) {
				d := NewDocument(text, opts)
				d.Report()
				if err := d.Apply([]Change{{Range: &tt.r, Text: tt.text}}); err != nil {
					t.Fatal(err)
				}
				got := d.Report()
				if (d.patched == 1) != tt.patch {
					t.Fatalf("patched = %d, want patched %v", d.patched, tt.patch)
				}
				if want := Analyze([]byte(d.Text()), opts); !reflect.DeepEqual(got, want) {
					t.Fatalf("report differs from Analyze's:\ngot  %+v\nwant %+v", got, want)
				}
				if text == loads && got.Cutoff == nil && got.Loads() {
					t.Fatalf("no cutoff: %v", got.CutoffErr)
				}
			})
		}
	}
}

func TestDocumentBadEdits(t *testing.T) {
	text := jU() + "\n" + `{"role":"user","content":"😀"}` + "\n"
	d := NewDocument(text, Options{Budget: 1000})
	before := d.Report()
	ok := Change{Range: &Range{Position{0, 0}, Position{0, 1}}, Text: "["}
	tests := []struct {
		name    string
		changes []Change
	}{
		{"line past the end", []Change{{Range: &Range{Position{5, 0}, Position{5, 0}}, Text: "x"}}},
		{"line count with a character", []Change{{Range: &Range{Position{3, 1}, Position{3, 1}}, Text: "x"}}},
		{"negative line", []Change{{Range: &Range{Position{-1, 0}, Position{0, 0}}, Text: "x"}}},
		{"negative character", []Change{{Range: &Range{Position{0, -1}, Position{0, 0}}, Text: "x"}}},
		{"inside a surrogate pair", []Change{{Range: &Range{Position{1, 27}, Position{1, 27}}, Text: "x"}}},
		{"end before start", []Change{{Range: &Range{Position{1, 3}, Position{0, 5}}, Text: "x"}}},
		{"end before start on a line", []Change{{Range: &Range{Position{0, 5}, Position{0, 3}}, Text: "x"}}},
		{"a good change, then a bad one: both undone", []Change{ok, {Range: &Range{Position{9, 0}, Position{9, 0}}}}},
		{"good, full replacement, bad", []Change{ok, {Text: "zzz"}, ok, {Range: &Range{Position{1, 1}, Position{1, 1}}}}},
		{"lone CR, good, bad", []Change{{Range: &Range{Position{0, 1}, Position{0, 1}}, Text: "\r"}, {Range: &Range{Position{4, 1}, Position{4, 1}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := d.Apply(tt.changes)
			if !errors.Is(err, ErrInvalidPosition) {
				t.Fatalf("err = %v, want ErrInvalidPosition", err)
			}
			if d.Text() != text || !reflect.DeepEqual(d.Report(), before) || d.EditorLineCount() != 3 {
				t.Fatalf("a failed Apply changed the document: %q", d.Text())
			}
		})
	}
}

func TestDocumentPositions(t *testing.T) {
	// Each edit inserts "|" at a position of line 0 and checks the result.
	tests := []struct {
		name          string
		before, after string // line 0 is before+after; the edit lands between
		char          int
	}{
		{"start", "", "abc", 0},
		{"end", "abc", "", 3},
		{"after an astral character", "😀", "x", 2},
		{"after two-byte and three-byte", "é世", "x", 2},
		{"after a lone continuation byte (one U+FFFD)", "\x80", "x", 1},
		{"a truncated 3-byte sequence is one U+FFFD", "\xe4\xb8", "x", 1},
		{"a truncated 4-byte sequence is one U+FFFD", "\xf0\x9f\x98", "x", 1},
		{"an encoded surrogate is three U+FFFD", "\xed\xa0\x80", "x", 3},
		{"overlong is two U+FFFD", "\xc0\xaf", "x", 2},
		{"CRLF: the end of the line is before the CR", "ab", "\r", 2},
		{"past the end of a line: its end", "abc", "", 9},
		{"past the end of a CRLF line: before the CR", "ab", "\r", 3},
		{"past the end of a line a lone CR ends: before the CR", "ab", "\rcd", 7},
		{"past the end of a surrogate pair", "😀", "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDocument(tt.before+tt.after+"\nnext", Options{})
			if err := d.Apply([]Change{{Range: &Range{Position{0, tt.char}, Position{0, tt.char}}, Text: "|"}}); err != nil {
				t.Fatal(err)
			}
			if got, want := d.Line(0), tt.before+"|"+tt.after; got != want {
				t.Fatalf("line = %q, want %q", got, want)
			}
		})
	}
	// The end of the text as {LineCount, 0}.
	d := NewDocument("a\nb", Options{})
	if err := d.Apply([]Change{{Range: &Range{Position{1, 0}, Position{2, 0}}, Text: "c"}}); err != nil {
		t.Fatal(err)
	}
	if d.Text() != "a\nc" {
		t.Fatalf("text = %q", d.Text())
	}
}

// TestDocumentLoneCR: a lone '\r' is JSON whitespace, so the runtime reads
// one line where an LSP client shows two; positions are the client's.
func TestDocumentLoneCR(t *testing.T) {
	first := `{"role":"user",` // 15 columns, then the lone '\r'
	text := first + "\r" + `"content":"x"}` + "\n" + `{"role":"user","content":"y"}` + "\r\n" + jU()
	d := NewDocument(text, Options{})
	if d.LineCount() != 3 || d.EditorLineCount() != 4 {
		t.Fatalf("LineCount %d, EditorLineCount %d; want 3 and 4", d.LineCount(), d.EditorLineCount())
	}
	if !d.Report().Loads() || len(d.Report().Messages) != 3 {
		t.Fatalf("the runtime reads three messages: %+v", d.Report())
	}
	for _, c := range []struct {
		line, col int
		want      Position
	}{
		{0, 0, Position{0, 0}},
		{0, 15, Position{0, 15}}, // before the '\r'
		{0, 16, Position{1, 0}},  // after it
		{0, 20, Position{1, 4}},
		{1, 0, Position{2, 0}},
		{1, 30, Position{2, 30}}, // past the end of a CRLF line: kept
		{2, 3, Position{3, 3}},
	} {
		if got := d.EditorPosition(c.line, c.col); got != c.want {
			t.Errorf("EditorPosition(%d, %d) = %v, want %v", c.line, c.col, got, c.want)
		}
	}
	for _, c := range []struct {
		p         Position
		line, col int
		ok        bool
	}{
		{Position{1, 3}, 0, 19, true},
		{Position{0, 99}, 0, 15, true}, // past the end of the first part: its end
		{Position{3, 99}, 2, 99, true}, // past the end of a runtime line: kept
		{Position{4, 0}, 0, 0, false},
		{Position{-1, 0}, 0, 0, false},
	} {
		l, col, ok := d.RuntimePosition(c.p)
		if ok != c.ok || (ok && (l != c.line || col != c.col)) {
			t.Errorf("RuntimePosition(%v) = %d, %d, %v; want %d, %d, %v", c.p, l, col, ok, c.line, c.col, c.ok)
		}
	}
	apply := func(r Range, s string) {
		t.Helper()
		if err := d.Apply([]Change{{Range: &r, Text: s}}); err != nil {
			t.Fatal(err)
		}
	}
	// Typing after the lone '\r', on the client's line 1.
	apply(Range{Position{1, 12}, Position{1, 12}}, "yz")
	if want := first + "\r" + `"content":"xyz"}`; d.Line(0) != want {
		t.Fatalf("line 0 = %q, want %q", d.Line(0), want)
	}
	// Line 2 of the client is the runtime's line 1.
	apply(Range{Position{2, 26}, Position{2, 27}}, "Y")
	if want := `{"role":"user","content":"Y"}` + "\r"; d.Line(1) != want {
		t.Fatalf("line 1 = %q, want %q", d.Line(1), want)
	}
	// Deleting the client's line break joins the client's lines.
	apply(Range{Position{0, 15}, Position{1, 0}}, "")
	if d.EditorLineCount() != 3 || d.Line(0) != first+`"content":"xyz"}` {
		t.Fatalf("after deleting the lone CR: %d lines, %q", d.EditorLineCount(), d.Line(0))
	}
	// Two lone '\r's in one runtime line, and one ending the text.
	apply(Range{Position{0, 1}, Position{0, 1}}, "\r\r")
	apply(Range{Position{4, 99}, Position{4, 99}}, "\r")
	if d.EditorLineCount() != 6 || !strings.HasSuffix(d.Text(), "\r") {
		t.Fatalf("EditorLineCount %d for %q", d.EditorLineCount(), d.Text())
	}
	if l, col, ok := d.RuntimePosition(Position{5, 0}); !ok || l != 2 || col != len(jU())+1 {
		t.Fatalf("RuntimePosition after the final CR = %d, %d, %v", l, col, ok)
	}
	checkClientLines(t, d)
	// The end of the text is {EditorLineCount, 0}.
	apply(Range{Position{4, 0}, Position{6, 0}}, "")
	if d.LineCount() != 3 || d.EditorLineCount() != 5 || d.Line(2) != "" {
		t.Fatalf("after deleting the last lines: %q", d.Text())
	}
	checkClientLines(t, d)
}

func TestDocumentBasics(t *testing.T) {
	text := jU() + "\n\n{\n"
	d := NewDocument(text, Options{})
	if d.LineCount() != 4 || d.Line(0) != jU() || d.Line(3) != "" || d.Line(4) != "" || d.Line(-1) != "" {
		t.Fatalf("LineCount=%d lines %q %q", d.LineCount(), d.Line(0), d.Line(3))
	}
	if r := d.LineResult(1); r.Verdict != line.Valid || r.Role != line.RoleNone {
		t.Fatalf("empty line result = %+v", r)
	}
	if r := d.LineResult(2); r.Verdict != line.InvalidJSON {
		t.Fatalf("line 2 result = %+v", r)
	}
	if r := d.LineResult(99); r.Verdict != line.Valid || r.Role != line.RoleNone {
		t.Fatalf("out of range result = %+v", r)
	}
	rep := d.Report()
	if rep != d.Report() {
		t.Fatal("Report is recomputed without an edit")
	}
	if rep.FirstInvalidLine != 3 || rep.Lines != 3 {
		t.Fatalf("FirstInvalidLine=%d Lines=%d", rep.FirstInvalidLine, rep.Lines)
	}
	// Full replacement.
	if err := d.Apply([]Change{{Text: jU()}}); err != nil {
		t.Fatal(err)
	}
	if rep2 := d.Report(); rep2 == rep || !rep2.Loads() || rep2.Lines != 1 || d.LineCount() != 1 {
		t.Fatalf("after full replacement: Loads=%v Lines=%d", rep2.Loads(), rep2.Lines)
	}
	// SetOptions recomputes.
	d.SetOptions(Options{Budget: 1})
	if d.Report().CutoffErr == nil {
		t.Fatal("budget 1 gave no cutoff error")
	}
	// Empty document.
	d = NewDocument("", Options{})
	if d.LineCount() != 1 || d.Report().Lines != 0 || d.Text() != "" {
		t.Fatalf("empty document: LineCount=%d Lines=%d", d.LineCount(), d.Report().Lines)
	}
}

func TestReportHelpers(t *testing.T) {
	text := strings.Join([]string{jU(), "", jA("a"), jU(), jT("a"), "{", jU()}, "\n")
	r := Analyze([]byte(text), Options{Budget: 10_000})
	for _, c := range []struct {
		ln, idx int
		ok      bool
	}{{1, 0, true}, {2, 0, false}, {3, 1, true}, {5, 3, true}, {6, 0, false}, {7, 4, true}, {8, 0, false}, {0, 0, false}} {
		idx, ok := r.MessageAtLine(c.ln)
		if ok != c.ok || (ok && idx != c.idx) {
			t.Errorf("MessageAtLine(%d) = %d, %v; want %d, %v", c.ln, idx, ok, c.idx, c.ok)
		}
	}
	if r.LineOfMessage(3) != 5 || r.LineOfMessage(9) != 0 {
		t.Errorf("LineOfMessage wrong")
	}
	wantUnit := []int{0, 1, 1, 1, 2}
	for i, w := range wantUnit {
		if got := r.UnitOfMessage(i); got != w {
			t.Errorf("UnitOfMessage(%d) = %d, want %d", i, got, w)
		}
	}
	if r.UnitOfMessage(5) != -1 || r.UnitOfMessage(-1) != -1 {
		t.Errorf("UnitOfMessage out of range")
	}
	if r.Kept(0) {
		t.Error("a file that does not load has no kept messages")
	}
	r = Analyze([]byte(strings.ReplaceAll(text, "{\n", "")), Options{Budget: int64(len(jA("a"))+len(jU())+len(jT("a"))+len(jU())) + 4})
	if r.Cutoff == nil || r.Kept(0) || !r.Kept(1) || !r.Kept(4) || r.Kept(5) {
		t.Errorf("Kept: cutoff %+v", r.Cutoff)
	}
}

func FuzzDocumentEdits(f *testing.F) {
	f.Add(jU()+"\n"+jA("a")+"\n"+jT("a")+"\n", []byte{0, 5, 1, 3, 2})
	f.Add("😀\n\xe4\xb8\n{", []byte{1, 1, 0, 2, 9, 4})
	f.Add("", []byte{0, 0, 0, 0, 6})
	f.Add("\r\n\r\n", []byte{1, 0, 1, 1, 1})
	f.Add("{\r}\n\r\r\n{}\r", []byte{1, 0, 2, 1, 14, 3, 2, 3, 9, 12})
	f.Fuzz(func(t *testing.T, text string, ops []byte) {
		d := NewDocument(text, Options{Budget: 500})
		for len(ops) >= 5 {
			op := ops[:5]
			ops = ops[5:]
			r := Range{
				Start: Position{int(op[0] % 8), int(op[1] % 40)},
				End:   Position{int(op[2] % 8), int(op[3] % 40)},
			}
			before := d.Text()
			err := d.Apply([]Change{{Range: &r, Text: insertions[int(op[4])%len(insertions)]}})
			if err != nil {
				if !errors.Is(err, ErrInvalidPosition) {
					t.Fatalf("error %v does not wrap ErrInvalidPosition", err)
				}
				if d.Text() != before {
					t.Fatal("a failed Apply changed the text")
				}
			}
			want := Analyze([]byte(d.Text()), Options{Budget: 500})
			if got := d.Report(); !reflect.DeepEqual(got, want) {
				t.Fatalf("report after %v differs from Analyze on the text %q", r, d.Text())
			}
			checkClientLines(t, d)
		}
	})
}

func ExampleDocument() {
	d := NewDocument(`{"role":"user","content":"hi"}`+"\n", Options{})
	_ = d.Apply([]Change{{Range: &Range{Position{0, 26}, Position{0, 28}}, Text: "hello"}})
	fmt.Println(d.Line(0), d.Report().Loads())
	// Output: {"role":"user","content":"hello"} true
}

func TestNewDocumentParallel(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		text := genText(seed, 400)
		seqE, parE := newEngine(), newEngine()
		seqE.parallelMin = 1 << 40
		parE.parallelMin, parE.workers = 0, 3
		a, b := newDocument(seqE, text, Options{Budget: 3000}), newDocument(parE, text, Options{Budget: 3000})
		if !slices.Equal(a.lines, b.lines) || !reflect.DeepEqual(a.results, b.results) || !reflect.DeepEqual(a.Report(), b.Report()) {
			t.Fatalf("seed %d: parallel parse differs from sequential", seed)
		}
	}
}

// TestTextRuns: the runs' lines, one after another, are the text's lines,
// whatever the runs' count and where the newlines fall.
func TestTextRuns(t *testing.T) {
	for _, text := range []string{"", "\n", "\n\n\n", "a", "a\n", "ab\ncd\nef", "ab\ncd\nef\n", strings.Repeat("x\n", 40), strings.Repeat("\n", 17) + "tail", strings.Repeat("long line ", 50) + "\nshort\n"} {
		want := strings.Split(text, "\n")
		for _, n := range []int{1, 2, 3, 7, 64} {
			starts := textRuns(text, n)
			var got []string
			for k := range starts {
				got = append(got, strings.Split(runText(text, starts, k), "\n")...)
			}
			if !slices.Equal(got, want) {
				t.Errorf("textRuns(%q, %d) = %v: lines %q, want %q", text, n, starts, got, want)
			}
		}
	}
}

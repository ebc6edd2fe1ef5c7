package analysis

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/randjsonl"
)

// deepLine is an assistant message whose one call's input nests exactly
// DeepNestingLimit levels deep, so that adding or removing the innermost
// level (at "[0]") takes it past the limit or back.
func deepLine(t *testing.T) string {
	t.Helper()
	for k := DeepNestingLimit - 5; k < DeepNestingLimit+5; k++ {
		l := `{"role":"assistant","content":"","toolCalls":[{"id":"d","name":"n","input":` +
			strings.Repeat("[", k) + "0" + strings.Repeat("]", k) + `}]}`
		if r := line.Parse([]byte(l)); r.Verdict == line.Valid && r.Depth == DeepNestingLimit {
			return l
		}
	}
	t.Fatal("no nesting makes a message exactly DeepNestingLimit deep")
	return ""
}

// incrementalCorpus is the shipped sessions and damage samples, random
// files, and files made to hold every rule's input.
func incrementalCorpus(t *testing.T) []string {
	t.Helper()
	var texts []string
	for _, glob := range []string{"../testdata/sessions/*.jsonl", "../testdata/damage/samples/*.jsonl"} {
		paths, err := filepath.Glob(glob)
		if err != nil || len(paths) == 0 {
			t.Fatalf("no files %s: %v", glob, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if utf8.Valid(b) && len(b) < 1<<20 {
				texts = append(texts, string(b))
			}
		}
	}
	r := rand.New(rand.NewPCG(23, 29))
	for range 40 {
		// Valid UTF-8 only: the test computes the text it expects by the
		// client's UTF-16 positions (randjsonl writes lone surrogates and
		// other bytes; then its lines, which are valid UTF-8).
		b := randjsonl.File(r, 10+r.IntN(30))
		if !utf8.Valid(b) {
			var keep []string
			for _, l := range strings.Split(string(b), "\n") {
				if utf8.ValidString(l) {
					keep = append(keep, l)
				}
			}
			b = []byte(strings.Join(keep, "\n"))
		}
		texts = append(texts, string(b))
	}
	deep := deepLine(t)
	texts = append(texts,
		strings.Join([]string{jU(), deep, jT("d"), jA("a", "a", "b"), jT("a"), jU(), jT("zz"), jA("c"), jU(), deep, jT("d")}, "\n")+"\n",
		damagedText(r, 40, false),
		// Interleaved appends: a record longer than one write with
		// another append landed in it.
		damagedText(r, 10, false)+`{"role":"tool","content":"`+strings.Repeat("a", ChunkSize-26)+jU()+"\n"+
			`aa","toolCallId":"a","isError":false}`+"\n"+damagedText(r, 10, false),
	)
	return texts
}

// posOf is the client's position of byte offset off in valid UTF-8 text.
func posOf(text string, off int) Position {
	starts, _ := clientLines(text)
	ln := 0
	for ln+1 < len(starts) && starts[ln+1] <= off {
		ln++
	}
	return Position{Line: ln, Character: len(utf16.Encode([]rune(text[starts[ln]:off])))}
}

// ruleEdit is an edit aimed at what some rule reads: a character typed or
// deleted (content, costs, JSON validity), an id changed (links), a level
// of nesting added or removed (deep-nesting), now and then a line break.
func ruleEdit(r *rand.Rand, text string) (Range, string) {
	at := func(off, n int) Range { return Range{posOf(text, off), posOf(text, off+n)} }
	switch k := r.IntN(10); {
	case k < 4:
		p := randPos(r, text)
		return Range{p, p}, []string{"x", "1", `"`, "}", "[", ",", "é", " "}[r.IntN(8)]
	case k < 6:
		// One or two characters of a line, deleted.
		off := clientOffset(text, randPos(r, text))
		end := off
		for range 1 + r.IntN(2) {
			if end < len(text) && text[end] != '\n' && text[end] != '\r' {
				_, n := utf8.DecodeRuneInString(text[end:])
				end += n
			}
		}
		return at(off, end-off), ""
	case k < 8:
		keys := []string{`"toolCallId":"`, `"id":"`}
		key := keys[r.IntN(2)]
		if n := strings.Count(text, key); n > 0 {
			off := 0
			for range 1 + r.IntN(n) {
				off += strings.Index(text[off:], key) + len(key)
			}
			return at(off, 0), []string{"a", "b", "d", "q"}[r.IntN(4)]
		}
	case k < 9:
		if i := strings.Index(text, "[[0]]"); i >= 0 && r.IntN(2) == 0 {
			return at(i, 5), "[0]"
		}
		if i := strings.Index(text, "[0]"); i >= 0 {
			return at(i, 3), "[[0]]"
		}
	}
	p := randPos(r, text)
	return Range{p, p}, "\n"
}

// TestIncrementalEveryRule: edits aimed at every rule's input, made to a
// Document one at a time, leave it with the report a fresh analysis of its
// text gives, whether the Document patched its report (from the rules'
// declared scopes, see Scope) or analysed the file again. A rule whose
// declared scope or facts miss what it reads fails here.
func TestIncrementalEveryRule(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 37))
	seen := map[string]bool{}
	patched := 0
	for i, text := range incrementalCorpus(t) {
		for _, limit := range []int{0, 2} {
			opts := Options{Budget: int64(100 + r.IntN(2000)), MaxFindingsPerCode: limit}
			d := NewDocument(text, opts)
			d.Report()
			cur := text
			for step := range 40 {
				rg, repl := ruleEdit(r, cur)
				if err := d.Apply([]Change{{Range: &rg, Text: repl}}); err != nil {
					t.Fatalf("file %d step %d: %v", i, step, err)
				}
				cur = editUTF16(cur, rg, repl)
				if d.Text() != cur {
					t.Fatalf("file %d step %d: the document's text is not the one edited", i, step)
				}
				got, want := d.Report(), NewDocument(cur, opts).Report()
				for _, f := range want.Findings {
					seen[f.Code] = true
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("file %d limit %d step %d: after %q at %v, the report differs from a fresh one's\ngot  %v\nwant %v",
						i, limit, step, repl, rg, codes(got), codes(want))
				}
			}
			patched += d.patched
		}
	}
	if patched == 0 {
		t.Error("no report was patched: the scopes went untested")
	}
	var missing []string
	for _, c := range Codes() {
		r, _, _ := RuleFor(c)
		if !seen[c] && c != CodeFileTooLarge && r.Scope != ScopeDialect { // past 512 MiB of text; not the engine's
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no edit reached a finding of %s", strings.Join(missing, ", "))
	}
	t.Logf("%d reports patched; codes seen: %s", patched, fmt.Sprint(len(seen)))
}

package transport

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/internal/transcript"
)

// inPlacePieces are the bits of the literals TestInPlace builds: every
// escape JSON has (\u in both cases of its digits, pairs, lone surrogates,
// a high surrogate before a \u that is not its pair), non-ASCII text and
// runs long enough for the eight-byte steps.
var inPlacePieces = []string{
	`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `/`, "é", "日本", "😀",
	`\u0041`, `\u00e9`, `\u00E9`, `\u001b`, `\u000a`, `\u002F`, `\u005c`, `\u0022`,
	`\ud83d\ude00`, `\uD83D\uDE00`, `\ud800`, `\udc00x`, `\ud83d\u0041`, `\uDBFF\uDFFF`,
	"abcdefghijklmnopq", "xyz", `\\\\\\`,
}

// randomLiteral is the contents of a string literal of about n bytes.
func randomLiteral(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(inPlacePieces[rng.IntN(len(inPlacePieces))])
	}
	return b.String()
}

// unescapeInStretches checks and unescapes the literal in b (contents
// from 1) a random stretch at a time, as the prescan does while the bytes
// arrive, and stops after the stretch that reaches stopAt (the whole
// literal when stopAt is past it).
func unescapeInStretches(t *testing.T, rng *rand.Rand, b []byte, stopAt int) *inPlace {
	t.Helper()
	in := &inPlace{start: 1, read: 1, wrote: 1}
	for i := 1; ; {
		r := scanStr(b, i, min(len(b), i+1+rng.IntN(40)))
		if r.bad {
			t.Fatalf("scanStr refused the literal at %d", i)
		}
		end, final := r.next, r.quote >= 0
		if final {
			end = r.quote
		}
		if !in.unescape(b, end, final) {
			t.Fatalf("unescape stopped at %d: the log is full (%d bytes)", in.read, in.logSize())
		}
		if final || r.next >= stopAt {
			return in
		}
		i = r.next
	}
}

// TestInPlace: unescaping a literal over itself in stretches gives its
// value, and restore gives back the literal exactly, from wherever the
// unescaping stopped.
func TestInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2))
	for iter := range 2000 {
		lit := randomLiteral(rng, 1+rng.IntN(600))
		b := []byte(`"` + lit + `"`)
		quote := len(b) - 1
		stopAt := len(b)
		if iter%2 == 1 {
			stopAt = 1 + rng.IntN(len(lit)) // the body came in, or the check refused, halfway
		}
		in := unescapeInStretches(t, rng, b, stopAt)
		if stopAt == len(b) {
			if in.read != quote {
				t.Fatalf("literal %d: unescaped up to %d, want %d", iter, in.read, quote)
			}
			want := unquote(nil, []byte(lit), true)
			if got := b[1:in.wrote]; !bytes.Equal(got, want) {
				t.Fatalf("literal %d %q: value %q, want %q", iter, lit, got, want)
			}
		}
		if err := in.restore(b); err != nil {
			t.Fatalf("literal %d %q: restore: %v", iter, lit, err)
		}
		if got := string(b[1:quote]); got != lit {
			t.Fatalf("literal %d: put back %q, want %q", iter, got, lit)
		}
		if in.modified() {
			t.Fatalf("literal %d: modified after restore", iter)
		}
	}
}

// TestInPlaceLogBound: a literal of nothing but \u escapes and \/ stops
// being unescaped once its log reaches the bound; what is left is
// unescaped by the decoder (unquoteRest) to the same value, and restore
// still gives back the literal.
func TestInPlaceLogBound(t *testing.T) {
	lit := strings.Repeat(`\u0041\/\ud83d\ude00`, 40000) // 880,000 bytes
	for _, grow := range []bool{false, true} {
		text := lit
		if grow {
			text += "\xff" // invalid UTF-8 in the rest: a value longer than its literal
		}
		b := []byte(`"` + text + `"`)
		in := &inPlace{start: 1, read: 1, wrote: 1}
		r := scanStr(b, 1, len(b))
		if in.unescape(b, r.quote, true) {
			t.Fatal("unescape did not stop at the log's bound")
		}
		if limit := maxUndoLog(len(b) - 1); in.logSize() > limit {
			t.Fatalf("log of %d bytes, over its bound %d", in.logSize(), limit)
		}
		if in.read <= 1 || in.read >= r.quote {
			t.Fatalf("stopped at %d, want within the literal (1 to %d)", in.read, r.quote)
		}
		saved := *in
		saved.slashes, saved.us, saved.uOrig = append([]uint32(nil), in.slashes...), append([]uEscape(nil), in.us...), append([]byte(nil), in.uOrig...)
		back := bytes.Clone(b)
		if err := saved.restore(back); err != nil {
			t.Fatal(err)
		}
		if i := firstDiff(back, []byte(`"`+text+`"`)); i >= 0 {
			t.Fatalf("put back, the literal differs at byte %d", i)
		}
		got := unquoteRest(b, span{start: 1, end: r.quote, grow: r.grow, escaped: true, pre: true}, in)
		if want := string(unquote(nil, []byte(text), false)); got != want {
			t.Fatalf("grow %v: the value has %d bytes, want %d (first difference at %d)", grow, len(got), len(want), firstDiff([]byte(got), []byte(want)))
		}
	}
}

// BenchmarkPrescan checks the text literal of an 8 MiB transcript's
// didOpen on one core, as the prescan does beside the arrival, and then
// decodes the body: "check" only checks (as before the text was
// unescaped beside the arrival), "unescape" also unescapes the literal over
// itself. The decode after it is timed apart (decode-ns/op): it is what is
// left once the body is in.
//
//	go test -run '^$' -bench Prescan ./lsp/transport
func BenchmarkPrescan(b *testing.B) {
	var text bytes.Buffer
	if _, err := transcript.Write(&text, 8<<20, 1); err != nil {
		b.Fatal(err)
	}
	quoted, err := json.Marshal(text.String())
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(openBody(`{"uri":"file:///s.jsonl","languageId":"jsonl","version":1,"text":` + string(quoted) + `}`))
	start, ok := textStart(body)
	if !ok {
		b.Fatal("no text key")
	}
	work := make([]byte, len(body))
	for _, unescape := range []bool{false, true} {
		name := map[bool]string{false: "check", true: "unescape"}[unescape]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			var decode time.Duration
			for b.Loop() {
				b.StopTimer()
				copy(work, body)
				b.StartTimer()
				var pre *prescanned
				if unescape {
					p := &prescan{buf: work, start: start, wake: make(chan struct{}, 1), ended: make(chan struct{}), done: make(chan struct{})}
					p.filled.Store(int64(len(work)))
					p.run()
					pre = p.checked
				} else {
					pre = &prescanned{start: start, run: scanStr(work, start, len(work))}
				}
				at := time.Now()
				if m, err := decodePrescanned(work, pre); err != nil || m == nil {
					b.Fatalf("the fast path refused a transcript (%v)", err)
				}
				decode += time.Since(at)
			}
			b.ReportMetric(float64(decode.Nanoseconds())/float64(b.N), "decode-ns/op")
		})
	}
}

// FuzzInPlace: any literal the checker accepts whole, in valid UTF-8,
// unescaped over itself in stretches (their ends and where it stops drawn
// from seed) has unquote's value, and is put back byte for byte.
func FuzzInPlace(f *testing.F) {
	for _, p := range inPlacePieces {
		f.Add([]byte(p+"a"+p), uint64(len(p)))
	}
	f.Add([]byte(`\ud83d`), uint64(7))
	f.Fuzz(func(t *testing.T, lit []byte, seed uint64) {
		b := append(append([]byte{'"'}, lit...), '"')
		if r := scanStr(b, 1, len(b)); r.bad || r.quote != len(b)-1 || r.grow > 0 {
			return // not a whole literal in valid UTF-8: never unescaped in place
		}
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		stopAt := len(b)
		if seed%3 == 0 {
			stopAt = 1 + int(seed>>2)%len(b)
		}
		in := unescapeInStretches(t, rng, b, stopAt)
		if in.read == len(b)-1 {
			if want := unquote(nil, lit, true); !bytes.Equal(b[1:in.wrote], want) {
				t.Fatalf("value %q, want %q", b[1:in.wrote], want)
			}
		}
		if err := in.restore(b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b[1:len(b)-1], lit) {
			t.Fatalf("put back %q, want %q", b[1:len(b)-1], lit)
		}
	})
}

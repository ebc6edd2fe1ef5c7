package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// chunkReader hands out its bytes n at a time, as a pipe does.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// readPrescanned reads body, framed, through a stream as a client's pipe
// delivers it, chunk bytes at a time, and returns the body read and its
// text literal as checked (and perhaps unescaped over itself) while it
// arrived (nil when it was not). Put back, the body read is body.
func readPrescanned(t *testing.T, body string, chunk int) ([]byte, *prescanned) {
	t.Helper()
	s := newStream(readOnly{&chunkReader{b: []byte(frameOf(body)), n: chunk}}, zap.NewNop())
	got, _, err := s.readFrame()
	if err != nil {
		t.Fatal(err)
	}
	back := bytes.Clone(got)
	if pre := s.prescanned; pre != nil && pre.in.modified() {
		in := pre.in
		in.slashes, in.us, in.uOrig = slices.Clone(in.slashes), slices.Clone(in.us), slices.Clone(in.uOrig)
		if err := in.restore(back); err != nil {
			t.Fatalf("restore: %v", err)
		}
	}
	if i := firstDiff(back, []byte(body)); i >= 0 {
		t.Fatalf("the body read (put back) differs from the body sent at byte %d of %d", i, len(body))
	}
	return got, s.prescanned
}

// firstDiff is the first index where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// prescanTexts are long texts of every kind of escape, in valid UTF-8 (so
// that they are unescaped while they arrive) and with invalid UTF-8 (so
// that the unescaping stops at it).
func prescanTexts() (valid, invalid string) {
	pieces := []string{`\"`, `\\`, `\n`, `é`, `\u00e9`, `\ud83d\ude00`, `\\\\`, `\/\t`, `\ud800x`, `\u0000\u001F\b\f\r`, `/`, `\uDBFF\uDFFF`}
	var v, bad strings.Builder
	for i := 0; v.Len() < prescanMin; i++ {
		v.WriteString(strings.Repeat("a", i%13))
		v.WriteString(pieces[i%len(pieces)])
		bad.WriteString(strings.Repeat("a", i%13))
		bad.WriteString(pieces[i%len(pieces)])
		if i%9 == 8 {
			bad.WriteString("\xff")
		}
	}
	return v.String(), bad.String()
}

// TestPrescan: a large didOpen's text checked (and unescaped) while the
// body arrives gives what checking it afterwards gives; the decoder uses
// it only for the literal it was taken for, and a body it refuses is put
// back exactly as it came.
func TestPrescan(t *testing.T) {
	valid, invalid := prescanTexts()
	doc := func(text string) string {
		return `{"uri":"file:///big.jsonl","languageId":"jsonl","version":3,"text":"` + text + `"}`
	}
	type tc struct {
		name     string
		body     string
		accepted bool
		inPlace  bool // unescaped (in part) when it is all in before the prescan starts
	}
	var cases []tc
	for _, text := range []struct {
		name  string
		big   string
		valid bool
	}{{"valid UTF-8", valid, true}, {"invalid UTF-8", invalid, false}} {
		big := text.big
		for _, c := range []tc{
			{"a didOpen", openBody(doc(big)), true, text.valid},
			{"whitespace around the key's colon", strings.Replace(openBody(doc(big)), `"text":`, "\"text\" \r\n: \t", 1), true, text.valid},
			{"a full-text didChange", changeBody(`{"textDocument":{"uri":"file:///big.jsonl","version":2},"contentChanges":[{"text":"` + big + `"}]}`), true, text.valid},
			{"an invalid escape in the text", openBody(doc(big[:len(big)/2] + `\x` + big[len(big)/2:])), false, text.valid},
			{"a raw control byte in the text", openBody(doc(big[:len(big)/3] + "\x01" + big[len(big)/3:])), false, text.valid},
			{"another text key first", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"x-ext":{"text":"small"},"textDocument":` + doc(big) + `}}`, true, true}, // the small one is checked
			{"a text key inside a string", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"x-ext":"\"text\":\"","textDocument":` + doc(big) + `}}`, true, text.valid},
			{"a text key that is a value", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"text","languageId":"jsonl","version":3,"text":"` + big + `"}}}`, true, text.valid},
			{"a duplicate key after the text", openBody(`{"uri":"file:///big.jsonl","languageId":"jsonl","version":3,"text":"` + big + `","uri":"x"}`), false, text.valid},
			{"not a didOpen", `{"jsonrpc":"2.0","method":"x/y","params":{"text":"` + big + `"}}`, false, text.valid},
			{"a big unknown member before the text", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"x-ext":{"text":"` + big + `"},"textDocument":` + doc("small") + `}}`, true, text.valid},
			{"an id: a request", `{"jsonrpc":"2.0","id":1,"method":"textDocument/didOpen","params":{"textDocument":` + doc(big) + `}}`, false, text.valid},
		} {
			c.name = text.name + ": " + c.name
			cases = append(cases, c)
		}
	}
	for _, tt := range cases {
		// chunk 0: the whole body is in before the prescan starts, which
		// then checks and unescapes all of it; otherwise it stops where
		// it is when the body is in, and the decoder does the rest.
		for _, chunk := range []int{0, 60 << 10, 4093, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, chunk), func(t *testing.T) {
				var body []byte
				var pre *prescanned
				if chunk == 0 {
					body, pre = prescanWhole(t, tt.body)
				} else {
					body, pre = readPrescanned(t, tt.body, chunk)
				}
				if pre == nil {
					t.Fatal("the text was not checked while it arrived: pre is nil, want non-nil")
				}
				// What it found, with the rest when the body came in first,
				// is what a check of the whole body finds.
				got := pre.run
				if !got.bad && got.quote < 0 {
					got = got.then(scanStr([]byte(tt.body), got.next, len(tt.body)))
				}
				if want := scanStr([]byte(tt.body), pre.start, len(tt.body)); !reflect.DeepEqual(got, want) {
					t.Fatalf("pre.run and the rest = %+v, want %+v", got, want)
				}
				if chunk == 0 {
					if got := pre.in.modified(); got != tt.inPlace {
						t.Fatalf("pre.in.modified() = %v, want %v", got, tt.inPlace)
					}
				}

				wantMsg := decodeFast([]byte(tt.body))
				gotMsg, err := decodePrescanned(body, pre)
				if err != nil {
					t.Fatal(err)
				}
				if got := gotMsg != nil; got != tt.accepted {
					t.Fatalf("gotMsg != nil = %v, want %v", got, tt.accepted)
				}
				if gotMsg == nil {
					if wantMsg != nil {
						t.Fatal("decodeFast accepted the body, decodePrescanned refused it")
					}
					if i := firstDiff(body, []byte(tt.body)); i >= 0 {
						t.Fatalf("a body the fast path refused is not as it came: it differs at byte %d of %d", i, len(tt.body))
					}
					return
				}
				if !reflect.DeepEqual(gotMsg, wantMsg) {
					t.Fatal("the message decoded from the prescanned body differs from decodeFast's")
				}
			})
		}
	}
}

// prescanWhole prescans body as if all of it had arrived before the
// prescan began: it checks, and unescapes, the whole literal.
func prescanWhole(t *testing.T, body string) ([]byte, *prescanned) {
	t.Helper()
	b := []byte(body)
	start, ok := textStart(b[:min(len(b), prescanLead)])
	if !ok {
		t.Fatal("no text key")
	}
	p := &prescan{buf: b, start: start, wake: make(chan struct{}, 1), ended: make(chan struct{}), done: make(chan struct{})}
	p.filled.Store(int64(len(b)))
	p.run()
	return b, p.checked
}

// TestPrescanBounds: small bodies, and bodies with no text key near their
// start, are not checked while they arrive; a body cut short ends the
// check with the reading.
func TestPrescanBounds(t *testing.T) {
	_, pre := readPrescanned(t, openBody(`{"uri":"u","languageId":"l","version":1,"text":"`+strings.Repeat("a", 1<<20)+`"}`), 60<<10)
	if pre != nil {
		t.Fatalf("a 1 MiB body: pre = %+v, want nil", pre)
	}
	_, pre = readPrescanned(t, `{"jsonrpc":"2.0","method":"x/y","params":{"pad":"`+strings.Repeat("a", prescanLead)+`","text":"`+strings.Repeat("a", prescanMin)+`"}}`, 60<<10)
	if pre != nil {
		t.Fatalf("a text key past the first 64 KiB: pre = %+v, want nil", pre)
	}

	body := openBody(`{"uri":"u","languageId":"l","version":1,"text":"` + strings.Repeat(`a\"`, prescanMin) + `"}`)
	s := newStream(readOnly{&chunkReader{b: []byte(frameOf(body)[:len(body)/2]), n: 60 << 10}}, zap.NewNop())
	_, _, err := s.Read(context.Background())
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want an error that is %v", err, io.ErrUnexpectedEOF)
	}
	if s.prescanned != nil {
		t.Fatalf("s.prescanned = %+v, want nil", s.prescanned)
	}
}

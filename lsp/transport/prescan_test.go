package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
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
// delivers it, and returns the body read and its text literal as checked
// while it arrived (nil when it was not).
func readPrescanned(t *testing.T, body string) ([]byte, *prescanned) {
	t.Helper()
	s := newStream(readOnly{&chunkReader{b: []byte(frameOf(body)), n: 60 << 10}}, zap.NewNop())
	got, _, err := s.readFrame()
	if err != nil {
		t.Fatal(err)
	}
	if actual := string(got); actual != body {
		t.Fatalf("string(got) = %q, want %q", actual, body)
	}
	return got, s.prescanned
}

// TestPrescan: a large didOpen's text checked while the body arrives gives
// what checking it afterwards gives, and the decoder uses it only for the
// literal it was taken for.
func TestPrescan(t *testing.T) {
	var text strings.Builder
	for i := 0; text.Len() < prescanMin; i++ {
		text.WriteString(strings.Repeat("a", i%13))
		text.WriteString([]string{`\"`, `\\`, `\n`, `é`, `\u00e9`, `\ud83d\ude00`, `\\\\`, `\/\t`, "\xff"}[i%9])
	}
	big := text.String()
	doc := func(text string) string {
		return `{"uri":"file:///big.jsonl","languageId":"jsonl","version":3,"text":"` + text + `"}`
	}
	for _, tt := range []struct {
		name     string
		body     string
		accepted bool
	}{
		{"a didOpen", openBody(doc(big)), true},
		{"whitespace around the key's colon", strings.Replace(openBody(doc(big)), `"text":`, "\"text\" \r\n: \t", 1), true},
		{"a full-text didChange", changeBody(`{"textDocument":{"uri":"file:///big.jsonl","version":2},"contentChanges":[{"text":"` + big + `"}]}`), true},
		{"an invalid escape in the text", openBody(doc(big[:len(big)/2] + `\x` + big[len(big)/2:])), false},
		{"a raw control byte in the text", openBody(doc(big[:len(big)/3] + "\x01" + big[len(big)/3:])), false},
		{"another text key first", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"x-ext":{"text":"small"},"textDocument":` + doc(big) + `}}`, true},
		{"a text key inside a string", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"x-ext":"\"text\":\"","textDocument":` + doc(big) + `}}`, true},
		{"a text key that is a value", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"text","languageId":"jsonl","version":3,"text":"` + big + `"}}}`, true},
		{"a duplicate key after the text", openBody(`{"uri":"file:///big.jsonl","languageId":"jsonl","version":3,"text":"` + big + `","uri":"x"}`), false},
		{"not a didOpen", `{"jsonrpc":"2.0","method":"x/y","params":{"text":"` + big + `"}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, pre := readPrescanned(t, tt.body)
			if pre == nil {
				t.Fatal("the text was not checked while it arrived: pre is nil, want non-nil")
			}
			// What it found is what a check of the whole body finds.
			want := scanStr(body, pre.start, len(body))
			if !reflect.DeepEqual(pre.run, want) {
				t.Fatalf("pre.run = %+v, want %+v", pre.run, want)
			}

			general := bytes.Clone(body)
			wantMsg := decodeFast(general)
			gotMsg := decodeFastScanned(body, pre)
			if got := gotMsg != nil; got != tt.accepted {
				t.Fatalf("gotMsg != nil = %v, want %v", got, tt.accepted)
			}
			if gotMsg == nil {
				if wantMsg != nil {
					t.Fatalf("wantMsg = %+v, want nil", wantMsg)
				}
				if got := string(body); got != tt.body {
					t.Fatalf("a body the fast path refused was modified: string(body) = %q, want %q", got, tt.body)
				}
				return
			}
			if !reflect.DeepEqual(gotMsg, wantMsg) {
				t.Fatalf("gotMsg = %+v, want %+v", gotMsg, wantMsg)
			}
		})
	}
}

// TestPrescanBounds: small bodies, and bodies with no text key near their
// start, are not checked while they arrive; a body cut short ends the
// check with the reading.
func TestPrescanBounds(t *testing.T) {
	_, pre := readPrescanned(t, openBody(`{"uri":"u","languageId":"l","version":1,"text":"`+strings.Repeat("a", 1<<20)+`"}`))
	if pre != nil {
		t.Fatalf("a 1 MiB body: pre = %+v, want nil", pre)
	}
	_, pre = readPrescanned(t, `{"jsonrpc":"2.0","method":"x/y","params":{"pad":"`+strings.Repeat("a", prescanLead)+`","text":"`+strings.Repeat("a", prescanMin)+`"}}`)
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

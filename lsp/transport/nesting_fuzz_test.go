package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// bufferRWC is a stream's connection that records what is written and
// reads nothing.
type bufferRWC struct{ out bytes.Buffer }

func (b *bufferRWC) Read([]byte) (int, error)    { return 0, io.EOF }
func (b *bufferRWC) Write(p []byte) (int, error) { return b.out.Write(p) }
func (b *bufferRWC) Close() error                { return nil }

// nestedMessage is a request whose params nest depth levels, opened by
// shape's bytes in turn ('[' for an array, anything else an object),
// closed when closed is set, then tail.
func nestedMessage(depth int, shape []byte, closed bool, tail []byte) []byte {
	if len(shape) == 0 {
		shape = []byte("[")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":`)
	closers := make([]byte, 0, depth)
	for k := range depth {
		if shape[k%len(shape)] == '[' {
			b.WriteByte('[')
			closers = append(closers, ']')
		} else {
			b.WriteString(`{"k":`)
			closers = append(closers, '}')
		}
	}
	b.WriteString(`"x"`)
	if closed {
		for k := len(closers) - 1; k >= 0; k-- {
			b.WriteByte(closers[k])
		}
		b.WriteByte('}')
	}
	b.Write(tail)
	return b.Bytes()
}

// maxDepth is body's deepest nesting, read with encoding/json's tokenizer
// (iterative); ok is false when body is not one JSON value.
func maxDepth(body []byte) (depth int, ok bool) {
	if !json.Valid(body) {
		return 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	d := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return depth, true
		}
		if err != nil {
			return 0, false
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			d++
			depth = max(depth, d)
		case json.Delim(']'), json.Delim('}'):
			d--
		}
	}
}

// FuzzJSONRPCNesting (issue 16): however deep a message nests, and
// whatever follows it, the stream answers it -32700 before any recursive
// decoder sees it when it nests deeper than MaxNesting or is not exactly
// one JSON value, and decodes it otherwise. A message of millions of
// levels used to overflow the decoder's stack: a fatal error that killed
// the server.
func FuzzJSONRPCNesting(f *testing.F) {
	f.Add(uint32(10), []byte("[{"), true, []byte(""))
	f.Add(uint32(MaxNesting-1), []byte("["), true, []byte(""))
	f.Add(uint32(MaxNesting), []byte("{"), true, []byte(" \r\n"))
	f.Add(uint32(4<<20), []byte("["), false, []byte(""))
	f.Add(uint32(3), []byte("[{{"), true, []byte("garbage"))
	f.Add(uint32(3), []byte("["), true, []byte(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`))
	f.Add(uint32(2), []byte("{"), true, []byte("}"))
	f.Add(uint32(20000), []byte("[{"), true, []byte("]"))
	f.Fuzz(func(t *testing.T, depth uint32, shape []byte, closed bool, tail []byte) {
		depth %= 8 << 20
		body := nestedMessage(int(depth), shape, closed, tail)
		want, valid := maxDepth(body)
		rwc := &bufferRWC{}
		s := newStream(rwc, zap.NewNop())
		msg, err := s.decode(bytes.Clone(body))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		out := rwc.out.String()
		parseErr := strings.Contains(out, `"code":-32700`)
		switch {
		case !valid || want > MaxNesting:
			if msg != nil || !parseErr {
				t.Fatalf("depth %d (valid %v): got message %v, answer %q; want -32700", want, valid, msg, out)
			}
			if want > MaxNesting && !strings.Contains(out, "nested deeper than") {
				t.Fatalf("depth %d: the answer does not say why: %q", want, out)
			}
		case parseErr:
			t.Fatalf("a valid message of depth %d answered -32700: %q", want, out)
		case msg == nil && !strings.Contains(out, `"code":-32600`):
			t.Fatalf("a valid message of depth %d neither decoded nor refused: %q", want, out)
		}
	})
}

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// openCatcher is a protocol.Server that keeps the didOpen params it gets
// (ServerHandler calls only DidOpen for a didOpen).
type openCatcher struct {
	protocol.Server
	got *protocol.DidOpenTextDocumentParams
}

func (c *openCatcher) DidOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	c.got = p
	return nil
}

// generalOpen decodes body the general way (jsonrpc2, then
// protocol.ServerHandler), or returns nil when that path refuses it.
func generalOpen(t *testing.T, body []byte) *protocol.DidOpenTextDocumentParams {
	t.Helper()
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil
	}
	n, ok := msg.(*jsonrpc2.Notification)
	if !ok || n.Method() != protocol.MethodTextDocumentDidOpen {
		return nil
	}
	c := &openCatcher{}
	noReply := func(context.Context, any, error) error { return nil }
	_ = protocol.ServerHandler(c, nil)(context.Background(), noReply, n)
	return c.got
}

// checkFastOpen checks decodeFast on body against the general path: when
// it accepts the body, it must decode the same params; when it does not,
// the body must be untouched. It reports whether the fast path accepted.
func checkFastOpen(t *testing.T, body []byte) bool {
	t.Helper()
	orig := bytes.Clone(body)
	accepted := checkFast(t, body, protocol.MethodTextDocumentDidOpen, generalOpen(t, bytes.Clone(body)),
		func(p protocol.DidOpenTextDocumentParams) int { return len(p.TextDocument.Text) })
	if accepted {
		if got := unparsable(orig); got != "" {
			t.Fatalf("the fast path accepted a body the stream answers -32700: %q: unparsable(orig) = %q, want empty", orig, got)
		}
	}
	return accepted
}

// checkFast checks decodeFast on body against want, the general path's
// params for it (nil when that path refuses it): a body the fast path
// refuses is untouched; one it accepts is decoded as want, a message of
// method whose text (textLen) the router's load counts.
func checkFast[P any](t *testing.T, body []byte, method string, want *P, textLen func(P) int) bool {
	t.Helper()
	orig := bytes.Clone(body)
	msg := decodeFast(body)
	if msg == nil {
		if !bytes.Equal(body, orig) {
			t.Fatalf("a body the fast path refused was modified: body = %+v, want %+v", body, orig)
		}
		return false
	}
	var got any
	switch m := msg.(type) {
	case *Open:
		got = m.DidOpen
	case *FullChange:
		got = m.DidChange
	}
	req, ok := msg.(jsonrpc2.Request)
	if !(ok && got != nil) {
		t.Fatalf("decodeFast returned a %T: ok && got != nil is false, want true", msg)
	}
	if got := req.Method(); got != method {
		t.Fatalf("req.Method() = %q, want %q", got, method)
	}
	if want == nil {
		t.Fatalf("the fast path accepted a body the general path refuses: %q: want is nil, want non-nil", orig)
	}
	if !reflect.DeepEqual(got, *want) {
		t.Fatalf("decoding %q: got %+v, want %+v", orig, got, *want)
	}
	if expected, got := textLen(*want), paramsSize(req); got != expected {
		t.Fatalf("the router's load counts the text: paramsSize(req) = %v, want %v", got, expected)
	}
	return true
}

func openBody(textDocument string) string {
	return `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":` + textDocument + `}}`
}

func TestDecodeFastOpen(t *testing.T) {
	doc := func(text string) string {
		return `{"uri":"file:///a.jsonl","languageId":"jsonl","version":7,"text":` + text + `}`
	}
	for _, tc := range []struct {
		name string
		body string
		fast bool // the fast path takes it
	}{
		{"plain", openBody(doc(`"{\"role\":\"user\"}\n"`)), true},
		{"empty text", openBody(doc(`""`)), true},
		{"every escape", openBody(doc(`"\" \\ \/ \b \f \n \r \t \u0000 \u00e9 \u20AC \uffff"`)), true},
		{"surrogate pair", openBody(doc(`"a\ud83d\ude00b"`)), true},
		{"lone high surrogate", openBody(doc(`"a\ud83db"`)), true},
		{"lone low surrogate", openBody(doc(`"a\ude00b"`)), true},
		{"high then high pair", openBody(doc(`"\ud83d\ud83d\ude00"`)), true},
		{"high then escape", openBody(doc(`"\ud83d\n"`)), true},
		{"raw UTF-8", openBody(doc(`"héllo 世界 😀"`)), true},
		{"invalid UTF-8", openBody(doc("\"a\xffb\xe2\x82\\n\xed\xa0\x80c\"")), true},
		{"DEL", openBody(doc("\"a\x7fb\"")), true},
		{"escaped uri", openBody(`{"uri":"file:\/\/\/d\u00e9j\u00e0.jsonl","languageId":"jsonl","version":1,"text":"x"}`), true},
		{"keys reordered", `{"params":{"textDocument":{"text":"x","version":-3,"languageId":"","uri":"u"}},"method":"textDocument/didOpen","jsonrpc":"2.0"}`, true},
		{"whitespace", " {\r\n \"jsonrpc\" : \"2.0\" ,\t\"method\":\"textDocument/didOpen\", \"params\" : { \"textDocument\" : { \"uri\" : \"u\" , \"languageId\" : \"jsonl\" , \"version\" : 0 , \"text\" : \"a\\nb\" } } }\n", true},
		{"max version", openBody(`{"uri":"u","languageId":"l","version":2147483647,"text":""}`), true},
		{"min version", openBody(`{"uri":"u","languageId":"l","version":-2147483648,"text":""}`), true},

		{"version too large", openBody(`{"uri":"u","languageId":"l","version":2147483648,"text":""}`), false},
		{"version with fraction", openBody(`{"uri":"u","languageId":"l","version":1.0,"text":""}`), false},
		{"version with exponent", openBody(`{"uri":"u","languageId":"l","version":1e2,"text":""}`), false},
		{"version leading zero", openBody(`{"uri":"u","languageId":"l","version":01,"text":""}`), false},
		{"version a string", openBody(`{"uri":"u","languageId":"l","version":"1","text":""}`), false},
		{"text null", openBody(`{"uri":"u","languageId":"l","version":1,"text":null}`), false},
		{"no version", openBody(`{"uri":"u","languageId":"l","text":""}`), false},
		// Unknown members are skipped (issue 16: one extra field sent the
		// whole didOpen the general way, at 5× the document's memory).
		{"extra key", openBody(`{"uri":"u","languageId":"l","version":1,"text":"","x":1}`), true},
		{"extra keys everywhere", `{"x":{"a":[1,{"b":"}]"}],"c":null},"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"workDoneToken":"t","textDocument":{"uri":"u","extra":[true,false,-1.5e3],"languageId":"l","version":1,"text":"t"}},"y":"z"}`, true},
		{"extra key first", openBody(`{"x":1,"uri":"u","languageId":"l","version":1,"text":""}`), true},
		{"extra key, invalid value", openBody(`{"uri":"u","languageId":"l","version":1,"text":"","x":[1,]}`), false},
		{"extra key, bad literal", openBody(`{"uri":"u","languageId":"l","version":1,"text":"","x":tru}`), false},
		{"extra key, too deep", openBody(`{"uri":"u","languageId":"l","version":1,"text":"","x":` + strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1) + `}`), false},
		{"extra key, unclosed", openBody(`{"uri":"u","languageId":"l","version":1,"text":"","x":[[1]}`), false},
		{"key in another case, and the key", openBody(`{"uri":"u","languageId":"l","version":1,"text":"a","Text":"b"}`), false},
		{"an ID", `{"jsonrpc":"2.0","ID":1,"method":"textDocument/didOpen","params":{"textDocument":` + doc(`""`) + `}}`, false},
		{"a result", `{"jsonrpc":"2.0","result":1,"method":"textDocument/didOpen","params":{"textDocument":` + doc(`""`) + `}}`, false},
		{"duplicate text", openBody(`{"uri":"u","languageId":"l","version":1,"text":"a","text":"b"}`), false},
		{"key in another case", openBody(`{"URI":"u","languageId":"l","version":1,"text":""}`), false},
		{"escaped key", openBody(`{"\u0075ri":"u","languageId":"l","version":1,"text":""}`), false},
		{"with an id", `{"jsonrpc":"2.0","id":1,"method":"textDocument/didOpen","params":{"textDocument":` + doc(`""`) + `}}`, false},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","method":"textDocument/didOpen","params":{"textDocument":` + doc(`""`) + `}}`, false},
		{"another method", `{"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":` + doc(`""`) + `}}`, false},
		{"bad escape", openBody(doc(`"a\qb"`)), false},
		{"short \\u", openBody(doc(`"a\u12"`)), false},
		{"raw newline", openBody(doc("\"a\nb\"")), false},
		{"unterminated", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"u","languageId":"l","version":1,"text":"abc`, false},
		{"trailing garbage", openBody(doc(`""`)) + "x", false},
		{"trailing comma", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":` + doc(`""`) + `},}`, false},
		{"params an array", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":[1]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkFastOpen(t, []byte(tc.body)); got != tc.fast {
				t.Fatalf("checkFastOpen(t, []byte(tc.body)) = %v, want %v", got, tc.fast)
			}
		})
	}
}

// TestDecodeFastOpenLarge checks large texts, long enough for the
// word-at-a-time scanning, with escapes at every offset modulo eight:
// valid UTF-8 (unescaped in place) and not (unescaped into new memory).
func TestDecodeFastOpenLarge(t *testing.T) {
	for _, odd := range []string{"x", "\xff", `\ud800`} {
		var text strings.Builder
		text.WriteByte('"')
		for i := range 2000 {
			text.WriteString(strings.Repeat("a", i%11))
			text.WriteString([]string{`\"`, `\\`, `\n`, `é`, `\u00e9`, `\ud83d\ude00`, odd, `\/\t`}[i%8])
		}
		text.WriteByte('"')
		body := openBody(`{"uri":"file:///big.jsonl","languageId":"jsonl","version":3,"text":` + text.String() + `}`)
		if !checkFastOpen(t, []byte(body)) {
			t.Fatalf("with %q: checkFastOpen(t, []byte(body)) is false, want true", odd)
		}
	}
}

func FuzzDecodeFastOpen(f *testing.F) {
	f.Add(`{\"role\":\"user\"}\n`, "file:///a.jsonl", "7", "")
	f.Add(`\ud83d\ude00 \ud800 \u0041`, "u", "-1", "")
	f.Add("\xff\xfe é", "\\u0075", "01", "")
	f.Add("x", "u", "1", `{"a":[1,{"b":"}"}]}`)
	f.Add("x", "u", "1", `[1,]`)
	f.Add("x", "u", "1", `"\u12"`)
	f.Fuzz(func(t *testing.T, text, uri, version, extra string) {
		member := ""
		if extra != "" {
			// An unknown member, skipped when it is valid JSON.
			member = `,"x-extra":` + extra
		}
		body := openBody(`{"uri":"` + uri + `","languageId":"jsonl","version":` + version + `,"text":"` + text + `"` + member + `}`)
		checkFastOpen(t, []byte(body))
	})
}

// checkFastChange is checkFastOpen for didChange, against jsonrpc2 and
// DecodeDidChange (the general path).
func checkFastChange(t *testing.T, body []byte) bool {
	t.Helper()
	var want *DidChangeParams
	if msg, err := jsonrpc2.DecodeMessage(bytes.Clone(body)); err == nil {
		if n, ok := msg.(*jsonrpc2.Notification); ok && n.Method() == protocol.MethodTextDocumentDidChange {
			if p, err := DecodeDidChange(n.Params()); err == nil {
				want = &p
			}
		}
	}
	return checkFast(t, body, protocol.MethodTextDocumentDidChange, want,
		func(p DidChangeParams) int { return len(p.ContentChanges[0].Text) })
}

func changeBody(params string) string {
	return `{"jsonrpc":"2.0","method":"textDocument/didChange","params":` + params + `}`
}

func TestDecodeFastChange(t *testing.T) {
	doc := `"textDocument":{"uri":"file:///a.jsonl","version":9}`
	for _, tc := range []struct {
		name string
		body string
		fast bool
	}{
		{"full text", changeBody(`{` + doc + `,"contentChanges":[{"text":"{\"role\":\"user\"}\n\u00e9\ud83d\ude00\ud800"}]}`), true},
		{"empty text", changeBody(`{` + doc + `,"contentChanges":[ { "text" : "" } ]}`), true},
		{"reordered", `{"params":{"contentChanges":[{"text":"x"}],"textDocument":{"version":-1,"uri":"u"}},"jsonrpc":"2.0","method":"textDocument/didChange"}`, true},
		{"invalid UTF-8", changeBody(`{` + doc + `,"contentChanges":[{"text":"a` + "\xff\xe2\x82" + `b"}]}`), true},

		{"ranged", changeBody(`{` + doc + `,"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"x"}]}`), false},
		{"range null", changeBody(`{` + doc + `,"contentChanges":[{"range":null,"text":"x"}]}`), false},
		{"two changes", changeBody(`{` + doc + `,"contentChanges":[{"text":"a"},{"text":"b"}]}`), false},
		{"no changes", changeBody(`{` + doc + `,"contentChanges":[]}`), false},
		{"null version", changeBody(`{"textDocument":{"uri":"u","version":null},"contentChanges":[{"text":"a"}]}`), false},
		{"rangeLength", changeBody(`{` + doc + `,"contentChanges":[{"rangeLength":3,"text":"a"}]}`), false},
		{"extra keys", changeBody(`{"x":1,` + doc[:len(doc)-1] + `,"y":{}},"contentChanges":[{"z":[],"text":"a"}]}`), true},
		{"with an id", `{"jsonrpc":"2.0","id":2,"method":"textDocument/didChange","params":{` + doc + `,"contentChanges":[{"text":"a"}]}}`, false},
		{"bad escape", changeBody(`{` + doc + `,"contentChanges":[{"text":"\x"}]}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkFastChange(t, []byte(tc.body)); got != tc.fast {
				t.Fatalf("checkFastChange(t, []byte(tc.body)) = %v, want %v", got, tc.fast)
			}
		})
	}
}

func FuzzDecodeFastChange(f *testing.F) {
	f.Add(`{\"role\":\"user\"}\n`, "9")
	f.Add("\\ud83d\\ude00 \xff", "-1")
	f.Fuzz(func(t *testing.T, text, version string) {
		body := changeBody(`{"textDocument":{"uri":"file:///a.jsonl","version":` + version + `},"contentChanges":[{"text":"` + text + `"}]}`)
		checkFastChange(t, []byte(body))
	})
}

// BenchmarkDecodeFastOpen decodes the didOpen of an 8 MiB transcript (the
// body is copied afresh, untimed, for each run: it is decoded in place).
//
//	go test -run '^$' -bench DecodeFastOpen ./lsp/transport
func BenchmarkDecodeFastOpen(b *testing.B) {
	var text bytes.Buffer
	_, err := transcript.Write(&text, 8<<20, 1)
	if err != nil {
		b.Fatal(err)
	}
	quoted, err := json.Marshal(text.String())
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(openBody(`{"uri":"file:///s.jsonl","languageId":"jsonl","version":1,"text":` + string(quoted) + `}`))
	work := make([]byte, len(body))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		b.StopTimer()
		copy(work, body)
		b.StartTimer()
		if decodeFast(work) == nil {
			b.Fatal("the fast path refused a transcript")
		}
	}
}

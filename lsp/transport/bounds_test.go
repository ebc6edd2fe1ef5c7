package transport

import (
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/allocs"

	"go.lsp.dev/jsonrpc2"
)

func TestUnparsable(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{}`, ""},
		{`{"a":"]}}{"}  `, ""},
		{`{"a":"\"}"}`, ""},
		{`{"a":"\\"}x`, "1 bytes after"},
		{`{}}`, "1 bytes after"},
		{`{}{}`, "2 bytes after"},
		{`{"a":[}`, "not valid JSON"},
		{`}{`, "not valid JSON"},
		{strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting), ""},
		{strings.Repeat("{\"a\":", MaxNesting+1), "nested deeper than 512 levels (at byte 2560)"},
	} {
		got := unparsable([]byte(tt.body))
		if tt.want == "" {
			if got != "" {
				t.Fatalf("%v: got = %q, want empty", tt.body, got)
			}
		} else {
			if !strings.Contains(got, tt.want) {
				t.Fatalf("%v: got = %q, want it to contain %q", tt.body, got, tt.want)
			}
		}
	}
}

// TestDidOpenExtraFieldInPlace: a didOpen with a field the fast decoder
// does not know (a client's extension, workDoneToken) is still decoded in
// place: the bytes allocated are a few hundred, not the 5× the document
// the general path costs.
func TestDidOpenExtraFieldInPlace(t *testing.T) {
	text := strings.Repeat(`{\"role\":\"user\",\"content\":\"hello\"}\n`, 200_000) // 8 MiB
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.jsonl","languageId":"jsonl","version":1,"text":"` + text + `","x-client":{"k":[1,2]}}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"workDoneToken":"w","textDocument":{"uri":"file:///a.jsonl","languageId":"jsonl","version":1,"text":"` + text + `"}}}`,
	} {
		var msg jsonrpc2.Message
		b := make([]byte, len(body))
		allocated := allocs.Least(func() { msg = decodeFast(b) }, func() { copy(b, body) })
		o, ok := msg.(*Open)
		if !ok {
			t.Fatalf("decoded the general way: %T: ok is false, want true", msg)
		}
		if want, got := len(text)-200_000*9, len(o.DidOpen.TextDocument.Text); got != want {
			t.Fatalf("unescaped: len(o.DidOpen.TextDocument.Text) = %v, want %v", got, want)
		}
		if limit := uint64(64 << 10); allocated >= limit {
			t.Fatalf("bytes allocated decoding a %d-byte didOpen: allocated = %v, want < %v", len(b), allocated, limit)
		}
	}
}

package lsp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 16: every input is bounded. These tests measure counts and bytes,
// never time.

// nested is a hover request whose params are n nested arrays, closed when
// closed is set.
func nested(id, n int, closed bool) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.WriteString(strconv.Itoa(id))
	b.WriteString(`,"method":"textDocument/hover","params":`)
	b.WriteString(strings.Repeat("[", n))
	if closed {
		b.WriteString(strings.Repeat("]", n))
		b.WriteString("}")
	}
	return b.String()
}

// TestNestingBound: a message nested deeper than maxNesting is answered
// -32700 with id null before any decoder sees it (4M levels used to
// overflow the decoder's stack: a fatal error), and the server keeps
// serving; one at the bound is decoded as usual.
func TestNestingBound(t *testing.T) {
	rc, _ := startRawWith(t, serveOptions{})
	initialize(t, rc, map[string]any{})
	for _, tt := range []struct {
		name string
		body string
		code int
		msg  string
	}{
		{"4M levels, unclosed (7 MiB)", nested(1, 4<<20, false), codeParseError, "nested deeper than 512"},
		{"4M levels, closed", nested(1, 4<<20, true), codeParseError, "nested deeper than 512"},
		{"one past the bound", nested(1, maxNesting, true), codeParseError, "nested deeper than 512"},
		{"in a string, not nesting", `{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":"` + strings.Repeat("[", 1<<20) + `"}`, codeInvalidParams, "invalid params"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rc.t = t
			rc.sendRaw(tt.body)
			var res map[string]any
			if tt.code == codeParseError {
				res = rc.response(nil)
			} else {
				res = rc.response(1)
			}
			require.Equal(t, tt.code, errorCode(res), "%v", res)
			require.Contains(t, res["error"].(map[string]any)["message"], tt.msg)
			rc.send(2, "textDocument/hover", hoverParams())
			require.Zero(t, errorCode(rc.response(2)), "the server keeps serving")
		})
	}
	t.Run("at the bound", func(t *testing.T) {
		rc.t = t
		// maxNesting-1 arrays inside the message's object: maxNesting levels.
		rc.sendRaw(nested(10, maxNesting-1, true))
		res := rc.response(10)
		require.Equal(t, codeInvalidParams, errorCode(res), "decoded, and refused as hover params: %v", res)
	})
}

// TestTrailingBytes: a body is one JSON value; bytes after it make it
// unparsable (-32700, id null), and a second object is never run.
func TestTrailingBytes(t *testing.T) {
	rc, _ := startRawWith(t, serveOptions{})
	initialize(t, rc, map[string]any{})
	hover := `{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.jsonl"},"position":{"line":0,"character":0}}}`
	for _, tail := range []string{"}", "garbage", `{"jsonrpc":"2.0","id":4,"method":"shutdown"}`, "]", " \r\n\tx"} {
		rc.sendRaw(hover + tail)
		res := rc.response(nil)
		require.Equal(t, codeParseError, errorCode(res), "%q: %v", tail, res)
		require.Contains(t, res["error"].(map[string]any)["message"], "after the end of the JSON value")
	}
	rc.sendRaw(hover + " \r\n\t")
	require.Zero(t, errorCode(rc.response(3)), "trailing whitespace is JSON")
	// Nothing answered 4: the shutdown in the second object never ran.
	rc.send(5, "textDocument/hover", hoverParams())
	require.Zero(t, errorCode(rc.response(5)), "not shut down")
}

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
		{strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting), ""},
		{strings.Repeat("{\"a\":", maxNesting+1), "nested deeper than 512 levels (at byte 2560)"},
	} {
		got := unparsable([]byte(tt.body))
		if tt.want == "" {
			require.Empty(t, got, tt.body)
		} else {
			require.Contains(t, got, tt.want, tt.body)
		}
	}
}

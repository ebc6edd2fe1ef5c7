package lsp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/internal/allocs"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/lsp/transport"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
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

// TestNestingBound: a message nested deeper than transport.MaxNesting is answered
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
		{"one past the bound", nested(1, transport.MaxNesting, true), codeParseError, "nested deeper than 512"},
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
		// transport.MaxNesting-1 arrays inside the message's object: transport.MaxNesting levels.
		rc.sendRaw(nested(10, transport.MaxNesting-1, true))
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

// TestSetBudgetExact: sessionls.setBudget takes only budgets it holds
// exactly. 9007199254740993 used to become …992 (decoded as a float64),
// and ",,,5" became 5.
func TestSetBudgetExact(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	uri := h.open("clean.jsonl", "jsonl", readSession(t, "clean.jsonl"))
	budget := func() string {
		t.Helper()
		var st struct {
			Budget json.RawMessage `json:"budget"`
		}
		h.call("sessionls/status", map[string]any{"uri": uri}, &st)
		return string(st.Budget)
	}
	set := func(arg string) error {
		return h.callErr("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []json.RawMessage{json.RawMessage(arg)}}, nil)
	}
	require.NoError(t, set("9007199254740992"))
	require.Equal(t, "9007199254740992", budget(), "2^53 is held exactly")
	for _, arg := range []string{"1e3", "1000.000", "10E2", `"1,000"`, `" 1000 "`} {
		require.NoError(t, set("5"))
		require.NoError(t, set(arg), arg)
		require.Equal(t, "1000", budget(), arg)
	}
	for _, tt := range []struct{ arg, msg string }{
		{"9007199254740993", "got 9007199254740993 (more than 9,007,199,254,740,992, the largest whole number a JavaScript number holds exactly)"},
		{"1e400", "got 1e400 (too large)"},
		{"1e999999999999", "got 1e999999999999 (exponent out of range)"},
		{"100000000000000000000000", "(too large)"},
		{`",,,5"`, `got ",,,5" (commas may only separate thousands)`},
		{`"5,"`, "commas may only separate thousands"},
		{`"1,0000"`, "commas may only separate thousands"},
		{"1000.5", "got 1000.5"},
		{"1.0005e3", "got 1.0005e3"},
		{`"9007199254740993"`, "the largest whole number"},
	} {
		before := len(h.client.shownMessages())
		err := set(tt.arg)
		require.ErrorContains(t, err, tt.msg, tt.arg)
		var rpcErr *jsonrpc2.Error
		require.ErrorAs(t, err, &rpcErr)
		require.Equal(t, jsonrpc2.InvalidParams, rpcErr.Code)
		require.Eventually(t, func() bool { return len(h.client.shownMessages()) > before }, wait, time.Millisecond)
		require.Equal(t, "1000", budget(), "the budget stays after %s", tt.arg)
	}
}

// TestDiagnosticsCap: at most maxDiagnostics findings are published per
// document, the most severe first, and one summary says how many more;
// each costs a bounded number of bytes on the wire.
func TestDiagnosticsCap(t *testing.T) {
	h := startHarness(t, harnessOptions{initOptions: map[string]any{"budget": 100}})
	clean := readSession(t, "clean.jsonl")
	// 5,000 blank-but-whitespace lines (5,000 errors), after a valid file.
	text := clean + strings.Repeat("   \n", 5000)
	uri := h.open("many.jsonl", "jsonl", text)
	p := h.client.lastDiagnostics(uri)
	require.Len(t, p.Diagnostics, maxDiagnostics+1, "the cap and the summary")
	codes := map[string]int{}
	for _, d := range p.Diagnostics {
		codes[fmt.Sprint(d.Code)]++
	}
	require.Equal(t, maxDiagnostics, codes[analysis.CodeInvalidJSON], "%v", codes)
	require.Equal(t, 1, codes[codeMoreFindings])
	last := p.Diagnostics[len(p.Diagnostics)-1]
	require.Equal(t, codeMoreFindings, last.Code)
	require.Equal(t, "4,000 findings more not shown (the first on line 1008): sessionls publishes at most 1,000 diagnostics per file (run `sessionls check` on it for every finding)", last.Message)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.Less(t, len(b), (maxDiagnostics+1)*1024, "bytes published")

	// Under the cap, nothing is summarised.
	uri = h.open("few.jsonl", "jsonl", clean+strings.Repeat("   \n", 10))
	for _, d := range h.client.lastDiagnostics(uri).Diagnostics {
		require.NotEqual(t, codeMoreFindings, d.Code)
	}
}

func TestKeptFindings(t *testing.T) {
	fs := []analysis.Finding{
		{Line: 1, Severity: analysis.SeverityInfo}, {Line: 2, Severity: analysis.SeverityWarning},
		{Line: 3, Severity: analysis.SeverityError}, {Line: 4, Code: analysis.CodeBudgetCutoff, Severity: analysis.SeverityInfo},
		{Line: 5, Severity: analysis.SeverityError}, {Line: 6, Severity: analysis.SeverityWarning},
	}
	kept, left := keptFindings(fs, 0, 4)
	require.Equal(t, 2, left)
	require.Equal(t, []bool{false, true, true, true, true, false}, kept, "cutoff, errors, then the first warning")
	kept, left = keptFindings(fs, 0, 6)
	require.Nil(t, kept)
	require.Zero(t, left)
}

// TestContentPreview: the symbol preview equals decoding the whole line
// and previewing its content, and reads only a bounded prefix of a long
// content (a 100 MB line used to cost 1.2 GB per documentSymbol).
func TestContentPreview(t *testing.T) {
	whole := func(raw string, n int) string {
		var v struct {
			Content string `json:"content"`
		}
		if json.Unmarshal([]byte(raw), &v) != nil {
			return preview("", n)
		}
		return preview(v.Content, n)
	}
	lines := []string{
		`{"role":"user","content":"hello"}`,
		`{"role":"user","content":"  a\n b\t\tc  "}`,
		`{"role":"user","content":"` + strings.Repeat("word ", 30) + `"}`,
		`{"role":"user","content":"` + strings.Repeat("x", 39) + ` y"}`,
		`{"role":"user","content":"` + strings.Repeat("x", 40) + ` "}`,
		`{"role":"user","content":"` + strings.Repeat("x", 40) + `"}`,
		`{"role":"user","content":"` + strings.Repeat("x", 41) + `"}`,
		`{"content":"\u00e9\ud83d\ude4f \ud800 x\"y\\z\/", "role":"user"}`,
		"{\"role\":\"user\",\"content\":\"bad \xff utf8\"}",
		` { "role" : "user" , "meta" : {"content":"no","a":[1,{"b":"}"}]} , "content" : "yes" } `,
		`{"role":"user","content":"first","content":"second"}`,
		`{"role":"user","content":null}`,
		`{"role":"user","content":""}`,
		`{"role":"user","content":"\n\t "}`,
		`{"role":"user"}`,
		`{"role":"user","contents":"no","conten":"no","content":"\u0020\u0020lead"}`,
	}
	for _, l := range lines {
		for _, n := range []int{40, 3, 1} {
			require.Equal(t, whole(l, n), contentPreview(l, n), "%s (%d)", l, n)
		}
	}
	// Bytes allocated for the preview of a 16 MiB content: a few hundred,
	// whatever the size.
	long := `{"role":"user","content":"` + strings.Repeat(`ab\n\"cd `, 2<<20) + `","x":1}`
	var got string
	allocated := allocs.Least(func() { got = contentPreview(long, 40) })
	require.Less(t, allocated, uint64(4<<10), "bytes allocated for one preview of a %d-byte line", len(long))
	require.Equal(t, whole(long, 40), got)
}

package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/allocs"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/lsp/transport"
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
			if got := errorCode(res); got != tt.code {
				t.Fatalf("%v: errorCode(res) = %v, want %v", res, got, tt.code)
			}
			if got, ok := res["error"].(map[string]any)["message"].(string); !ok || !strings.Contains(got, tt.msg) {
				t.Fatalf(`res["error"].(map[string]any)["message"] = %q, want a string containing %q`, got, tt.msg)
			}
			rc.send(2, "textDocument/hover", hoverParams())
			if got := errorCode(rc.response(2)); got != 0 {
				t.Fatalf("the server keeps serving: errorCode(rc.response(2)) = %v, want 0", got)
			}
		})
	}
	t.Run("at the bound", func(t *testing.T) {
		rc.t = t
		// transport.MaxNesting-1 arrays inside the message's object: transport.MaxNesting levels.
		rc.sendRaw(nested(10, transport.MaxNesting-1, true))
		res := rc.response(10)
		if got := errorCode(res); got != codeInvalidParams {
			t.Fatalf("decoded, and refused as hover params: %v: errorCode(res) = %v, want %v", res, got, codeInvalidParams)
		}
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
		if got := errorCode(res); got != codeParseError {
			t.Fatalf("%q: %v: errorCode(res) = %v, want %v", tail, res, got, codeParseError)
		}
		if got, ok := res["error"].(map[string]any)["message"].(string); !ok || !strings.Contains(got, "after the end of the JSON value") {
			t.Fatalf(`res["error"].(map[string]any)["message"] = %q, want a string containing %q`, got, "after the end of the JSON value")
		}
	}
	rc.sendRaw(hover + " \r\n\t")
	if got := errorCode(rc.response(3)); got != 0 {
		t.Fatalf("trailing whitespace is JSON: errorCode(rc.response(3)) = %v, want 0", got)
	}
	// Nothing answered 4: the shutdown in the second object never ran.
	rc.send(5, "textDocument/hover", hoverParams())
	if got := errorCode(rc.response(5)); got != 0 {
		t.Fatalf("not shut down: errorCode(rc.response(5)) = %v, want 0", got)
	}
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
	if err := set("9007199254740992"); err != nil {
		t.Fatalf(`set("9007199254740992"): %v`, err)
	}
	if got := budget(); got != "9007199254740992" {
		t.Fatalf("2^53 is held exactly: budget() = %q, want %q", got, "9007199254740992")
	}
	for _, arg := range []string{"1e3", "1000.000", "10E2", `"1,000"`, `" 1000 "`} {
		if err := set("5"); err != nil {
			t.Fatalf(`set("5"): %v`, err)
		}
		if err := set(arg); err != nil {
			t.Fatalf("%v: set(arg): %v", arg, err)
		}
		if got := budget(); got != "1000" {
			t.Fatalf("%v: budget() = %q, want %q", arg, got, "1000")
		}
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
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Fatalf("%v: err = %v, want an error containing %q", tt.arg, err, tt.msg)
		}
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			t.Fatalf("err = %v, want an error errors.As &rpcErr finds", err)
		}
		if rpcErr.Code != jsonrpc2.InvalidParams {
			t.Fatalf("rpcErr.Code = %v, want %v", rpcErr.Code, jsonrpc2.InvalidParams)
		}
		eventually(t, func() bool { return len(h.client.shownMessages()) > before }, "len(h.client.shownMessages()) > before")
		if got := budget(); got != "1000" {
			t.Fatalf("the budget stays after %s: budget() = %q, want %q", tt.arg, got, "1000")
		}
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
	if want := maxDiagnostics + 1; len(p.Diagnostics) != want {
		t.Fatalf("the cap and the summary: len(p.Diagnostics) = %d, want %d: %+v", len(p.Diagnostics), want, p.Diagnostics)
	}
	codes := map[string]int{}
	for _, d := range p.Diagnostics {
		codes[fmt.Sprint(d.Code)]++
	}
	if codes[analysis.CodeInvalidJSON] != maxDiagnostics {
		t.Fatalf("%v: codes[analysis.CodeInvalidJSON] = %v, want %v", codes, codes[analysis.CodeInvalidJSON], maxDiagnostics)
	}
	if codes[codeMoreFindings] != 1 {
		t.Fatalf("codes[codeMoreFindings] = %v, want %v", codes[codeMoreFindings], 1)
	}
	last := p.Diagnostics[len(p.Diagnostics)-1]
	if !reflect.DeepEqual(last.Code, codeMoreFindings) {
		t.Fatalf("last.Code = %+v, want %q", last.Code, codeMoreFindings)
	}
	if last.Message != "4,000 findings more not shown (the first on line 1008): sessionls publishes at most 1,000 diagnostics per file (run `sessionls check` on it for every finding)" {
		t.Fatalf("last.Message = %q, want %q", last.Message, "4,000 findings more not shown (the first on line 1008): sessionls publishes at most 1,000 diagnostics per file (run `sessionls check` on it for every finding)")
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, limit := len(b), (maxDiagnostics+1)*1024; got >= limit {
		t.Fatalf("bytes published: len(b) = %v, want < %v", got, limit)
	}

	// Under the cap, nothing is summarised.
	uri = h.open("few.jsonl", "jsonl", clean+strings.Repeat("   \n", 10))
	for _, d := range h.client.lastDiagnostics(uri).Diagnostics {
		if reflect.DeepEqual(d.Code, codeMoreFindings) {
			t.Fatalf("d.Code = %+v, want anything else", d.Code)
		}
	}
}

func TestKeptFindings(t *testing.T) {
	fs := []analysis.Finding{
		{Line: 1, Severity: analysis.SeverityInfo}, {Line: 2, Severity: analysis.SeverityWarning},
		{Line: 3, Severity: analysis.SeverityError}, {Line: 4, Code: analysis.CodeBudgetCutoff, Severity: analysis.SeverityInfo},
		{Line: 5, Severity: analysis.SeverityError}, {Line: 6, Severity: analysis.SeverityWarning},
	}
	kept, left := keptFindings(fs, 0, 4)
	if left != 2 {
		t.Fatalf("left = %v, want %v", left, 2)
	}
	if want := ([]bool{false, true, true, true, true, false}); !reflect.DeepEqual(kept, want) {
		t.Fatalf("cutoff, errors, then the first warning: kept = %+v, want %+v", kept, want)
	}
	kept, left = keptFindings(fs, 0, 6)
	if kept != nil {
		t.Fatalf("kept = %+v, want nil", kept)
	}
	if left != 0 {
		t.Fatalf("left = %v, want 0", left)
	}
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
			if want, got := whole(l, n), contentPreview(l, n); got != want {
				t.Fatalf("%s (%d): contentPreview(l, n) = %q, want %q", l, n, got, want)
			}
		}
	}
	// Bytes allocated for the preview of a 16 MiB content: a few hundred,
	// whatever the size.
	long := `{"role":"user","content":"` + strings.Repeat(`ab\n\"cd `, 2<<20) + `","x":1}`
	var got string
	allocated := allocs.Least(func() { got = contentPreview(long, 40) })
	if limit := uint64(4 << 10); allocated >= limit {
		t.Fatalf("bytes allocated for one preview of a %d-byte line: allocated = %v, want < %v", len(long), allocated, limit)
	}
	if want := whole(long, 40); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

package lsp

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"
)

const (
	codeParseError    = -32700
	codeInvalidParams = -32602
)

// startRawWith is startRaw with serveOptions; logs at Warn and above are
// also kept in the returned observer.
func startRawWith(t *testing.T, opts serveOptions) (*rawClient, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.WarnLevel)
	logger := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel), zaptest.WrapOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return zapcore.NewTee(c, core)
	})))
	return startRawServer(t, logger, opts, 1000), logs
}

// sendRaw frames body as it is and writes it.
func (rc *rawClient) sendRaw(body string) {
	rc.t.Helper()
	_, err := fmt.Fprintf(rc.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	if err != nil {
		rc.t.Fatal(err)
	}
}

// serverRequest waits for the server's request of method and returns it.
func (rc *rawClient) serverRequest(method string) map[string]any {
	rc.t.Helper()
	for msg := range rc.msgs {
		if msg["method"] == method {
			return msg
		}
	}
	rc.t.Fatalf("connection closed while waiting for the server's %s", method)
	return nil
}

func initialize(t *testing.T, rc *rawClient, caps map[string]any) {
	t.Helper()
	rc.requireOK("init", "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})
}

func hoverParams() map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": map[string]any{"line": 0, "character": 0}}
}

// hasLog reports whether a log entry's message contains s.
func hasLog(logs *observer.ObservedLogs, s string) bool {
	for _, e := range logs.All() {
		if strings.Contains(e.Message, s) {
			return true
		}
		for _, f := range e.Context {
			if f.Type == zapcore.ErrorType && strings.Contains(fmt.Sprint(f.Interface), s) {
				return true
			}
		}
	}
	return false
}

// TestRepeatedResponse (issue 8.1): a response written several times, or
// to an id the server never used, is dropped; the server keeps serving and
// ends on EOF. jsonrpc2's read loop used to block for good on the third
// copy.
func TestRepeatedResponse(t *testing.T) {
	rc, logs := startRawWith(t, serveOptions{})
	initialize(t, rc, map[string]any{"workspace": map[string]any{"configuration": true}})
	rc.send(nil, "initialized", map[string]any{})
	req := rc.serverRequest("workspace/configuration")
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": []any{nil}})
	if err != nil {
		t.Fatal(err)
	}
	frame := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)
	// Responses to ids that were never used, of both kinds, and a request.
	// Written from another goroutine: a server that stops reading blocks
	// the writer, and the test must fail then, not hang.
	wrote := make(chan error, 1)
	go func() {
		_, err := io.WriteString(rc.w, strings.Repeat(frame, 4)+
			frameOf(`{"jsonrpc":"2.0","id":987654,"result":null}`)+
			frameOf(`{"jsonrpc":"2.0","id":"nope","error":{"code":1,"message":"x"}}`)+
			frameOf(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.jsonl"},"position":{"line":0,"character":0}}}`))
		wrote <- err
	}()
	if got := errorCode(rc.response(2)); got != 0 {
		t.Fatalf("the server must keep serving: errorCode(rc.response(2)) = %v, want 0", got)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("<-wrote: %v", err)
	}
	if !hasLog(logs, "dropping a response to no outstanding request") {
		t.Fatal(`hasLog(logs, "dropping a response to no outstanding request") is false, want true`)
	}
	rc.requireOK(3, "shutdown", nil)
	if err := rc.w.Close(); err != nil {
		t.Fatalf("rc.w.Close(): %v", err)
	}
	if got := rc.exitCode(); got != 0 {
		t.Fatalf("EOF after shutdown: rc.exitCode() = %v, want %v", got, 0)
	}
}

func frameOf(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestFramingErrorEndsConnection (issue 8.3): end to end, a framing error
// ends the connection with a log line that says why.
func TestFramingErrorEndsConnection(t *testing.T) {
	rc, logs := startRawWith(t, serveOptions{})
	initialize(t, rc, map[string]any{})
	_, err := io.WriteString(rc.w, "Content-Type: application/vscode-jsonrpc\r\n\r\n{}")
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.exitCode(); got != 1 {
		t.Fatalf("rc.exitCode() = %v, want %v", got, 1)
	}
	if !hasLog(logs, "header block without Content-Length") {
		t.Fatalf(`log: %v: hasLog(logs, "header block without Content-Length") is false, want true`, logs.All())
	}
}

// TestErrorCodes (issue 8.4).
func TestErrorCodes(t *testing.T) {
	rc, _ := startRawWith(t, serveOptions{})
	initialize(t, rc, map[string]any{})

	t.Run("wrong-typed params", func(t *testing.T) {
		rc.t = t
		rc.send(1, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": "start"})
		res := rc.response(1)
		if got := errorCode(res); got != codeInvalidParams {
			t.Fatalf("%v: errorCode(res) = %v, want %v", res, got, codeInvalidParams)
		}
		msg := res["error"].(map[string]any)["message"].(string)
		if !strings.Contains(msg, "textDocument/hover: invalid params") {
			t.Fatalf("msg = %q, want it to contain %q", msg, "textDocument/hover: invalid params")
		}
		if !strings.Contains(msg, "position") {
			t.Fatalf("msg = %q, want it to contain %q", msg, "position")
		}
		rc.send(2, "textDocument/codeLens", []any{1})
		if got := errorCode(rc.response(2)); got != codeInvalidParams {
			t.Fatalf("errorCode(rc.response(2)) = %v, want %v", got, codeInvalidParams)
		}
	})

	t.Run("string ids the id type cannot carry", func(t *testing.T) {
		rc.t = t
		for _, id := range []string{"", "\x00sessionls-id-1", "\x00sessionls-id-"} {
			rc.send(id, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
			res := rc.response(id)
			if got := errorCode(res); got != 0 {
				t.Fatalf("%v: errorCode(res) = %v, want 0", res, got)
			}
		}
		// 0 and "" are different requests.
		rc.send(0, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
		rc.send("", "textDocument/hover", map[string]any{"position": 1})
		if got := errorCode(rc.response(0)); got != 0 {
			t.Fatalf("errorCode(rc.response(0)) = %v, want 0", got)
		}
		if got := errorCode(rc.response("")); got != codeInvalidParams {
			t.Fatalf(`errorCode(rc.response("")) = %v, want %v`, got, codeInvalidParams)
		}
	})

	t.Run("invalid messages get id null", func(t *testing.T) {
		rc.t = t
		for _, tt := range []struct {
			body string
			code int
			msg  string
		}{
			{`{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover"}`, codeInvalidRequest, "object"},
			{`{"jsonrpc":"2.0","id":[1],"method":"textDocument/hover"}`, codeInvalidRequest, "array"},
			{`{"jsonrpc":"2.0","id":true,"method":"textDocument/hover"}`, codeInvalidRequest, "boolean"},
			{`{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover"}`, codeInvalidRequest, "1.5"},
			{`{"jsonrpc":"2.0","id":4294967296,"method":"textDocument/hover"}`, codeInvalidRequest, "4294967296"},
			{`{"jsonrpc":"1.0","id":7,"method":"textDocument/hover"}`, codeInvalidRequest, `"1.0"`},
			{`{"jsonrpc":"2.0","id":7,"method":7}`, codeInvalidRequest, "method must be a string"},
			{`[{"jsonrpc":"2.0","id":7,"method":"shutdown"}]`, codeInvalidRequest, "batches"},
			{`"hello"`, codeInvalidRequest, "JSON object"},
			{`{"jsonrpc":"2.0"}`, codeInvalidRequest, "needs a method"},
			{`{not json`, codeParseError, "not valid JSON"},
		} {
			rc.sendRaw(tt.body)
			res := rc.response(nil)
			if got := errorCode(res); got != tt.code {
				t.Fatalf("%s: %v: errorCode(res) = %v, want %v", tt.body, res, got, tt.code)
			}
			if _, ok := res["id"]; !ok {
				t.Fatalf("res = %+v, want it to hold the key %q", res, "id")
			}
			if got, ok := res["error"].(map[string]any)["message"].(string); !ok || !strings.Contains(got, tt.msg) {
				t.Fatalf(`%v: res["error"].(map[string]any)["message"] = %q, want a string containing %q`, tt.body, got, tt.msg)
			}
		}
		// A malformed response is not answered: the next reply is to 9.
		rc.sendRaw(`{"jsonrpc":"1.0","id":1,"result":null}`)
		rc.send(9, "textDocument/hover", hoverParams())
		if msg, ok := <-rc.msgs; ok {
			if want := float64(9); !reflect.DeepEqual(msg["id"], want) {
				t.Fatalf(`%v: msg["id"] = %+v, want %v`, msg, msg["id"], want)
			}
		}
	})

	t.Run("notifications sent as requests", func(t *testing.T) {
		rc.t = t
		for i, method := range []string{"textDocument/didOpen", "initialized", "exit", "textDocument/didChange", "$/cancelRequest"} {
			rc.send(100+i, method, map[string]any{})
			res := rc.response(100 + i)
			if got := errorCode(res); got != codeInvalidRequest {
				t.Fatalf("%s: %v: errorCode(res) = %v, want %v", method, res, got, codeInvalidRequest)
			}
			if got, ok := res["error"].(map[string]any)["message"].(string); !ok || !strings.Contains(got, "is a notification") {
				t.Fatalf(`res["error"].(map[string]any)["message"] = %q, want a string containing %q`, got, "is a notification")
			}
		}
		// exit with an id did not stop the server.
		rc.requireOK(200, "textDocument/hover", hoverParams())
	})

	rc.t = t
	rc.shutdownExit(300)
}

// TestCancelEmptyStringID: $/cancelRequest finds a request whose id is "",
// and does not cancel the request with id 0 instead.
func TestCancelEmptyStringID(t *testing.T) {
	hook, holding := blockOn("textDocument/hover")
	rc, _ := startRawWith(t, serveOptions{beforeRun: hook})
	initialize(t, rc, map[string]any{})
	rc.send("", "textDocument/hover", hoverParams())
	<-holding
	rc.send(0, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
	rc.send(nil, "$/cancelRequest", map[string]any{"id": ""})
	if got := errorCode(rc.response("")); got != codeRequestCancelled {
		t.Fatalf(`errorCode(rc.response("")) = %v, want %v`, got, codeRequestCancelled)
	}
	if got := errorCode(rc.response(0)); got != 0 {
		t.Fatalf("errorCode(rc.response(0)) = %v, want 0", got)
	}
}

// TestEOFAnswersPendingCalls: when the input ends, a server call still
// awaiting the client's answer fails at once instead of holding the exit
// until its deadline.
func TestEOFAnswersPendingCalls(t *testing.T) {
	rc, logs := startRawWith(t, serveOptions{drain: 10 * wait})
	initialize(t, rc, map[string]any{"workspace": map[string]any{"configuration": true}})
	rc.send(nil, "initialized", map[string]any{})
	rc.serverRequest("workspace/configuration")
	if err := rc.w.Close(); err != nil {
		t.Fatalf("rc.w.Close(): %v", err)
	}
	if got := rc.exitCode(); got != 1 {
		t.Fatalf("rc.exitCode() = %v, want %v", got, 1)
	}
	if !hasLog(logs, "the connection ended before the client answered") {
		t.Fatalf(`log: %v: hasLog(logs, "the connection ended before the client answered") is false, want true`, logs.All())
	}
}

package lsp

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	codeServerNotInitialized = -32002
	codeInvalidRequest       = -32600
	codeMethodNotFound       = -32601
	codeInternalError        = -32603
	codeRequestCancelled     = -32800
)

func initParams() map[string]any {
	return map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}
}

func TestLifecycle(t *testing.T) {
	rc := startRaw(t, nil)
	hover := map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": map[string]any{"line": 0, "character": 0}}

	rc.send(1, "textDocument/hover", hover)
	if got := errorCode(rc.response(1)); got != codeServerNotInitialized {
		t.Fatalf("request before initialize: errorCode(rc.response(1)) = %v, want %v", got, codeServerNotInitialized)
	}
	rc.send(nil, "textDocument/didOpen", map[string]any{}) // dropped, no reply possible

	rc.send(2, "initialize", initParams())
	init := rc.response(2)
	if got := errorCode(init); got != 0 {
		t.Fatalf("errorCode(init) = %v, want 0", got)
	}
	caps := init["result"].(map[string]any)["capabilities"].(map[string]any)
	if !reflect.DeepEqual(caps["positionEncoding"], "utf-16") {
		t.Fatalf(`caps["positionEncoding"] = %+v, want %q`, caps["positionEncoding"], "utf-16")
	}
	if want, got := float64(2), caps["textDocumentSync"].(map[string]any)["change"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`incremental sync: caps["textDocumentSync"].(map[string]any)["change"] = %+v, want %v`, got, want)
	}
	if want, got := ([]any{"sessionls.setBudget", "sessionls.removeDiskBOM"}), caps["executeCommandProvider"].(map[string]any)["commands"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`caps["executeCommandProvider"].(map[string]any)["commands"] = %+v, want %+v`, got, want)
	}
	for _, p := range []string{"codeLensProvider", "hoverProvider", "definitionProvider", "referencesProvider",
		"documentSymbolProvider", "foldingRangeProvider", "codeActionProvider"} {
		if _, ok := caps[p]; !ok {
			t.Fatalf("caps = %+v, want it to hold the key %q", caps, p)
		}
	}
	rc.send(nil, "initialized", map[string]any{})

	rc.send(3, "initialize", initParams())
	if got := errorCode(rc.response(3)); got != codeInvalidRequest {
		t.Fatalf("second initialize: errorCode(rc.response(3)) = %v, want %v", got, codeInvalidRequest)
	}
	rc.send(4, "textDocument/completion", hover)
	if got := errorCode(rc.response(4)); got != codeMethodNotFound {
		t.Fatalf("unimplemented method: errorCode(rc.response(4)) = %v, want %v", got, codeMethodNotFound)
	}
	rc.send(5, "no/such/method", nil)
	if got := errorCode(rc.response(5)); got != codeMethodNotFound {
		t.Fatalf("unknown method without params: errorCode(rc.response(5)) = %v, want %v", got, codeMethodNotFound)
	}
	rc.send(6, "$/unknown", map[string]any{})
	if got := errorCode(rc.response(6)); got != codeMethodNotFound {
		t.Fatalf("errorCode(rc.response(6)) = %v, want %v", got, codeMethodNotFound)
	}
	rc.send(nil, "$/setTrace", map[string]any{"value": "off"})
	rc.send(nil, "$/unknownNotification", nil)
	rc.send(7, "textDocument/hover", hover)
	res := rc.response(7)
	if got := errorCode(res); got != 0 {
		t.Fatalf("hover on a document that is not open: errorCode(res) = %v, want 0", got)
	}
	if res["result"] != nil {
		t.Fatalf(`res["result"] = %+v, want nil`, res["result"])
	}

	rc.send("s", "shutdown", map[string]any{}) // Emacs sends {} params
	sd := rc.response("s")
	if got := errorCode(sd); got != 0 {
		t.Fatalf("shutdown with {} params: %v: errorCode(sd) = %v, want 0", sd, got)
	}
	if _, ok := sd["result"]; !ok {
		t.Fatalf("sd = %+v, want it to hold the key %q", sd, "result")
	}
	if sd["result"] != nil {
		t.Fatalf(`sd["result"] = %+v, want nil`, sd["result"])
	}
	rc.send(8, "textDocument/hover", hover)
	if got := errorCode(rc.response(8)); got != codeInvalidRequest {
		t.Fatalf("request after shutdown: errorCode(rc.response(8)) = %v, want %v", got, codeInvalidRequest)
	}
	rc.send(nil, "exit", map[string]any{})
	if got := rc.exitCode(); got != 0 {
		t.Fatalf("rc.exitCode() = %v, want %v", got, 0)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name     string
		shutdown bool
		exit     bool
		want     int
	}{
		{"exit after shutdown", true, true, 0},
		{"exit without shutdown", false, true, 1},
		{"EOF after shutdown", true, false, 0},
		{"EOF without shutdown", false, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := startRaw(t, nil)
			rc.requireOK(1, "initialize", initParams())
			rc.send(nil, "initialized", map[string]any{})
			if tt.shutdown {
				rc.requireOK(2, "shutdown", nil)
			}
			if tt.exit {
				rc.send(nil, "exit", nil)
			} else {
				if err := rc.w.Close(); err != nil {
					t.Fatalf("rc.w.Close(): %v", err)
				}
			}
			if got := rc.exitCode(); got != tt.want {
				t.Fatalf("rc.exitCode() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestExitRacesEOF sends exit and closes the stream at once: exit must
// still decide the code.
func TestExitRacesEOF(t *testing.T) {
	for range 20 {
		rc := startRaw(t, nil)
		rc.requireOK(1, "initialize", initParams())
		rc.requireOK(2, "shutdown", nil)
		rc.send(nil, "exit", nil)
		_ = rc.w.Close()
		if got := rc.exitCode(); got != 0 {
			t.Fatalf("rc.exitCode() = %v, want %v", got, 0)
		}
	}
}

// blockOn returns a beforeRun hook that holds method until its request is
// cancelled (or a long timeout passes), and a channel that receives once
// the hook is holding.
func blockOn(method string) (func(context.Context, string), chan struct{}) {
	holding := make(chan struct{}, 10)
	return func(ctx context.Context, m string) {
		if m != method {
			return
		}
		holding <- struct{}{}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}, holding
}

func TestCancel(t *testing.T) {
	for _, tt := range []struct {
		name string
		id   any
	}{
		{"numeric id", 42},
		{"string id", "req-42"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hook, holding := blockOn("textDocument/hover")
			rc := startRaw(t, hook)
			rc.requireOK(1, "initialize", initParams())
			hover := map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": map[string]any{"line": 0, "character": 0}}

			rc.send(tt.id, "textDocument/hover", hover)
			<-holding
			// A request queued behind the held one, cancelled before it runs.
			rc.send(99, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
			rc.send(nil, "$/cancelRequest", map[string]any{"id": 99})
			rc.send(nil, "$/cancelRequest", map[string]any{"id": tt.id})
			start := time.Now()
			if got := errorCode(rc.response(tt.id)); got != codeRequestCancelled {
				t.Fatalf("errorCode(rc.response(tt.id)) = %v, want %v", got, codeRequestCancelled)
			}
			if got, limit := time.Since(start), wait/2; got >= limit {
				t.Fatalf("the cancel did not reach the handler: time.Since(start) = %v, want < %v", got, limit)
			}
			if got := errorCode(rc.response(99)); got != codeRequestCancelled {
				t.Fatalf("errorCode(rc.response(99)) = %v, want %v", got, codeRequestCancelled)
			}

			// Cancelling an id that is not in flight changes nothing.
			rc.send(nil, "$/cancelRequest", map[string]any{"id": 12345})
			rc.send(nil, "$/cancelRequest", map[string]any{"id": "nope"})
			rc.requireOK(3, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
		})
	}
}

func TestPanicRecovered(t *testing.T) {
	hook := func(_ context.Context, method string) {
		if method == "textDocument/hover" {
			panic("injected failure")
		}
	}
	rc := startRaw(t, hook)
	rc.requireOK(1, "initialize", initParams())
	hover := map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": map[string]any{"line": 0, "character": 0}}
	rc.send(2, "textDocument/hover", hover)
	res := rc.response(2)
	if got := errorCode(res); got != codeInternalError {
		t.Fatalf("errorCode(res) = %v, want %v", got, codeInternalError)
	}
	if got, ok := res["error"].(map[string]any)["message"].(string); !ok || !strings.Contains(got, "injected failure") {
		t.Fatalf(`res["error"].(map[string]any)["message"] = %q, want a string containing %q`, got, "injected failure")
	}
	// Still serving.
	rc.requireOK(3, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
	rc.shutdownExit(4)
}

// TestMalformedMessageSkipped: a body that is not JSON-RPC is skipped, and
// the connection keeps working.
func TestMalformedMessageSkipped(t *testing.T) {
	rc := startRaw(t, nil)
	_, err := rc.w.Write([]byte("Content-Length: 9\r\n\r\n{garbage}"))
	if err != nil {
		t.Fatal(err)
	}
	rc.requireOK(1, "initialize", initParams())
}

// TestExitDrainsQueue: a client that sends everything at once still gets
// every reply it asked for before exit.
func TestExitDrainsQueue(t *testing.T) {
	rc := startRaw(t, nil)
	rc.send(1, "initialize", initParams())
	rc.send(nil, "initialized", map[string]any{})
	rc.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///a.jsonl", "languageId": "jsonl", "version": 1, "text": `{"role":"user","content":"hi"}`}})
	rc.send(2, "sessionls/status", map[string]any{"uri": "file:///a.jsonl"})
	rc.send(3, "shutdown", nil)
	rc.send(nil, "exit", nil)
	if got := errorCode(rc.response(1)); got != 0 {
		t.Fatalf("errorCode(rc.response(1)) = %v, want 0", got)
	}
	st := rc.response(2)
	if got := errorCode(st); got != 0 {
		t.Fatalf("errorCode(st) = %v, want 0", got)
	}
	if want, got := float64(1), st["result"].(map[string]any)["messages"]; !reflect.DeepEqual(got, want) {
		t.Fatalf(`st["result"].(map[string]any)["messages"] = %+v, want %v`, got, want)
	}
	if got := errorCode(rc.response(3)); got != 0 {
		t.Fatalf("errorCode(rc.response(3)) = %v, want 0", got)
	}
	if got := rc.exitCode(); got != 0 {
		t.Fatalf("rc.exitCode() = %v, want %v", got, 0)
	}
}

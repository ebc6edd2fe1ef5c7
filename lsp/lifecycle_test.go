package lsp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	require.Equal(t, codeServerNotInitialized, errorCode(rc.response(1)), "request before initialize")
	rc.send(nil, "textDocument/didOpen", map[string]any{}) // dropped, no reply possible

	rc.send(2, "initialize", initParams())
	init := rc.response(2)
	require.Zero(t, errorCode(init))
	caps := init["result"].(map[string]any)["capabilities"].(map[string]any)
	require.Equal(t, "utf-16", caps["positionEncoding"])
	require.Equal(t, float64(2), caps["textDocumentSync"].(map[string]any)["change"], "incremental sync")
	require.Equal(t, []any{"sessionls.setBudget", "sessionls.removeDiskBOM"}, caps["executeCommandProvider"].(map[string]any)["commands"])
	for _, p := range []string{"codeLensProvider", "hoverProvider", "definitionProvider", "referencesProvider",
		"documentSymbolProvider", "foldingRangeProvider", "codeActionProvider"} {
		require.Contains(t, caps, p)
	}
	rc.send(nil, "initialized", map[string]any{})

	rc.send(3, "initialize", initParams())
	require.Equal(t, codeInvalidRequest, errorCode(rc.response(3)), "second initialize")
	rc.send(4, "textDocument/completion", hover)
	require.Equal(t, codeMethodNotFound, errorCode(rc.response(4)), "unimplemented method")
	rc.send(5, "no/such/method", nil)
	require.Equal(t, codeMethodNotFound, errorCode(rc.response(5)), "unknown method without params")
	rc.send(6, "$/unknown", map[string]any{})
	require.Equal(t, codeMethodNotFound, errorCode(rc.response(6)))
	rc.send(nil, "$/setTrace", map[string]any{"value": "off"})
	rc.send(nil, "$/unknownNotification", nil)
	rc.send(7, "textDocument/hover", hover)
	res := rc.response(7)
	require.Zero(t, errorCode(res), "hover on a document that is not open")
	require.Nil(t, res["result"])

	rc.send("s", "shutdown", map[string]any{}) // Emacs sends {} params
	sd := rc.response("s")
	require.Zero(t, errorCode(sd), "shutdown with {} params: %v", sd)
	require.Contains(t, sd, "result")
	require.Nil(t, sd["result"])
	rc.send(8, "textDocument/hover", hover)
	require.Equal(t, codeInvalidRequest, errorCode(rc.response(8)), "request after shutdown")
	rc.send(nil, "exit", map[string]any{})
	require.Equal(t, 0, rc.exitCode())
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
			rc.send(1, "initialize", initParams())
			require.Zero(t, errorCode(rc.response(1)))
			rc.send(nil, "initialized", map[string]any{})
			if tt.shutdown {
				rc.send(2, "shutdown", nil)
				require.Zero(t, errorCode(rc.response(2)))
			}
			if tt.exit {
				rc.send(nil, "exit", nil)
			} else {
				require.NoError(t, rc.w.Close())
			}
			require.Equal(t, tt.want, rc.exitCode())
		})
	}
}

// TestExitRacesEOF sends exit and closes the stream at once: exit must
// still decide the code.
func TestExitRacesEOF(t *testing.T) {
	for range 20 {
		rc := startRaw(t, nil)
		rc.send(1, "initialize", initParams())
		require.Zero(t, errorCode(rc.response(1)))
		rc.send(2, "shutdown", nil)
		require.Zero(t, errorCode(rc.response(2)))
		rc.send(nil, "exit", nil)
		_ = rc.w.Close()
		require.Equal(t, 0, rc.exitCode())
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
			rc.send(1, "initialize", initParams())
			require.Zero(t, errorCode(rc.response(1)))
			hover := map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": map[string]any{"line": 0, "character": 0}}

			rc.send(tt.id, "textDocument/hover", hover)
			<-holding
			// A request queued behind the held one, cancelled before it runs.
			rc.send(99, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
			rc.send(nil, "$/cancelRequest", map[string]any{"id": 99})
			rc.send(nil, "$/cancelRequest", map[string]any{"id": tt.id})
			start := time.Now()
			require.Equal(t, codeRequestCancelled, errorCode(rc.response(tt.id)))
			require.Less(t, time.Since(start), wait/2, "the cancel did not reach the handler")
			require.Equal(t, codeRequestCancelled, errorCode(rc.response(99)))

			// Cancelling an id that is not in flight changes nothing.
			rc.send(nil, "$/cancelRequest", map[string]any{"id": 12345})
			rc.send(nil, "$/cancelRequest", map[string]any{"id": "nope"})
			rc.send(3, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
			require.Zero(t, errorCode(rc.response(3)))
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
	rc.send(1, "initialize", initParams())
	require.Zero(t, errorCode(rc.response(1)))
	hover := map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": map[string]any{"line": 0, "character": 0}}
	rc.send(2, "textDocument/hover", hover)
	res := rc.response(2)
	require.Equal(t, codeInternalError, errorCode(res))
	require.Contains(t, res["error"].(map[string]any)["message"], "injected failure")
	// Still serving.
	rc.send(3, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
	require.Zero(t, errorCode(rc.response(3)))
	rc.send(4, "shutdown", nil)
	require.Zero(t, errorCode(rc.response(4)))
	rc.send(nil, "exit", nil)
	require.Equal(t, 0, rc.exitCode())
}

// TestMalformedMessageSkipped: a body that is not JSON-RPC is skipped, and
// the connection keeps working.
func TestMalformedMessageSkipped(t *testing.T) {
	rc := startRaw(t, nil)
	_, err := rc.w.Write([]byte("Content-Length: 9\r\n\r\n{garbage}"))
	require.NoError(t, err)
	rc.send(1, "initialize", initParams())
	require.Zero(t, errorCode(rc.response(1)))
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
	require.Zero(t, errorCode(rc.response(1)))
	st := rc.response(2)
	require.Zero(t, errorCode(st))
	require.Equal(t, float64(1), st["result"].(map[string]any)["messages"])
	require.Zero(t, errorCode(rc.response(3)))
	require.Equal(t, 0, rc.exitCode())
}

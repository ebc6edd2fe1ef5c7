package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
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
	require.NoError(rc.t, err)
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
	rc.send("init", "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})
	require.Zero(t, errorCode(rc.response("init")))
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
	require.NoError(t, err)
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
	require.Zero(t, errorCode(rc.response(2)), "the server must keep serving")
	require.NoError(t, <-wrote)
	require.True(t, hasLog(logs, "dropping a response to no outstanding request"))
	rc.send(3, "shutdown", nil)
	require.Zero(t, errorCode(rc.response(3)))
	require.NoError(t, rc.w.Close())
	require.Equal(t, 0, rc.exitCode(), "EOF after shutdown")
}

// TestPendingCallsBound: the set of calls awaiting a response is bounded,
// and forgets the oldest first.
func TestPendingCallsBound(t *testing.T) {
	var p pendingCalls
	for i := range maxPendingCalls + 10 {
		p.add(jsonrpc2.NewNumberID(int32(i + 1)))
	}
	require.Len(t, p.ids, maxPendingCalls)
	require.False(t, p.settle(jsonrpc2.NewNumberID(1)), "the oldest is forgotten")
	require.True(t, p.settle(jsonrpc2.NewNumberID(maxPendingCalls+10)))
	require.False(t, p.settle(jsonrpc2.NewNumberID(maxPendingCalls+10)), "answered once only")
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readOnly is an io.ReadWriteCloser that can only be read.
type readOnly struct{ io.Reader }

func (readOnly) Write(p []byte) (int, error) { return len(p), nil }
func (readOnly) Close() error                { return nil }

func frameOf(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestFraming (issue 8.3): the stream's header and body bounds.
func TestFraming(t *testing.T) {
	valid := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	big := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("é", 200_000) + `"}`
	tests := []struct {
		name    string
		input   string
		want    int    // messages read before the error (or EOF)
		wantErr string // "" for a clean EOF
	}{
		{"one message", frameOf(valid), 1, ""},
		{"Content-Type, lower case, LF only", fmt.Sprintf("content-length: %d\n", len(valid)) + "Content-Type: application/vscode-jsonrpc; charset=utf-8\n\n" + valid + frameOf(valid), 2, ""},
		{"blank lines before the headers", "\r\n\r\n" + frameOf(valid), 1, ""},
		{"a body that needs several buffer doublings", frameOf(big) + frameOf(valid), 2, ""},
		{"a header line without its newline", "Content-Length: 52" + strings.Repeat(" ", 1<<20), 0, "a header line longer than 8192 bytes"},
		{"no Content-Length", "Content-Type: x\r\n\r\n" + valid + frameOf(valid), 0, "without Content-Length"},
		{"two Content-Length headers", "Content-Length: 3\r\n" + frameOf(valid), 0, "two Content-Length headers"},
		{"two equal Content-Length headers", fmt.Sprintf("Content-Length: %d\r\n", len(valid)) + frameOf(valid), 0, "two Content-Length headers"},
		{"too many headers", strings.Repeat("X-A: b\r\n", 40) + frameOf(valid), 0, "more than 32 headers"},
		{"a header block too long", strings.Repeat("X-A: "+strings.Repeat("b", 8000)+"\r\n", 9) + frameOf(valid), 0, "a header block longer than 65536 bytes"},
		{"endless blank lines", strings.Repeat("\r\n", 1<<20), 0, "a header block longer than 65536 bytes"},
		{"zero length", "Content-Length: 0\r\n\r\n" + frameOf(valid), 0, "invalid Content-Length"},
		{"negative length", "Content-Length: -5\r\n\r\n" + frameOf(valid), 0, "invalid Content-Length"},
		{"over 2 GiB", "Content-Length: 2147483649\r\n\r\n" + frameOf(valid), 0, "invalid Content-Length"},
		{"a header without a colon", "Content-Length 52\r\n\r\n" + valid, 0, "invalid message header"},
		{"cut in the body", "Content-Length: 52\r\n\r\n{}", 0, "unexpected EOF"},
		{"cut in the headers", frameOf(valid) + "Content-Len", 1, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &countingReader{r: strings.NewReader(tt.input)}
			s := newStream(readOnly{in}, zaptest.NewLogger(t, zaptest.Level(zap.ErrorLevel)))
			got := 0
			var err error
			for {
				var msg jsonrpc2.Message
				msg, _, err = s.Read(context.Background())
				if err != nil {
					break
				}
				require.NotNil(t, msg)
				got++
			}
			require.Equal(t, tt.want, got, "messages before the end (%v)", err)
			if tt.wantErr == "" {
				require.ErrorIs(t, err, io.EOF)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			if !strings.Contains(tt.wantErr, "EOF") {
				require.ErrorIs(t, err, errFraming)
			}
			// A bound stops the reading: the stream does not consume a
			// megabyte of header to find out.
			require.Less(t, in.n, int64(256<<10), "bytes read")
		})
	}
}

// TestBodyMemory (issue 8.3): a declared 2 GiB body of which ten bytes come
// costs what arrived, not what was declared.
func TestBodyMemory(t *testing.T) {
	s := newStream(readOnly{strings.NewReader("Content-Length: 2147483648\r\n\r\n0123456789")}, zap.NewNop())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := s.Read(context.Background())
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "bytes allocated")
}

// TestFramingErrorEndsConnection (issue 8.3): end to end, a framing error
// ends the connection with a log line that says why.
func TestFramingErrorEndsConnection(t *testing.T) {
	rc, logs := startRawWith(t, serveOptions{})
	initialize(t, rc, map[string]any{})
	_, err := io.WriteString(rc.w, "Content-Type: application/vscode-jsonrpc\r\n\r\n{}")
	require.NoError(t, err)
	require.Equal(t, 1, rc.exitCode())
	require.True(t, hasLog(logs, "header block without Content-Length"), "log: %v", logs.All())
}

// TestErrorCodes (issue 8.4).
func TestErrorCodes(t *testing.T) {
	rc, _ := startRawWith(t, serveOptions{})
	initialize(t, rc, map[string]any{})

	t.Run("wrong-typed params", func(t *testing.T) {
		rc.t = t
		rc.send(1, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": "start"})
		res := rc.response(1)
		require.Equal(t, codeInvalidParams, errorCode(res), "%v", res)
		msg := res["error"].(map[string]any)["message"].(string)
		require.Contains(t, msg, "textDocument/hover: invalid params")
		require.Contains(t, msg, "position")
		rc.send(2, "textDocument/codeLens", []any{1})
		require.Equal(t, codeInvalidParams, errorCode(rc.response(2)))
	})

	t.Run("string ids the id type cannot carry", func(t *testing.T) {
		rc.t = t
		for _, id := range []string{"", "\x00sessionls-id-1", "\x00sessionls-id-"} {
			rc.send(id, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
			res := rc.response(id)
			require.Zero(t, errorCode(res), "%v", res)
		}
		// 0 and "" are different requests.
		rc.send(0, "textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}})
		rc.send("", "textDocument/hover", map[string]any{"position": 1})
		require.Zero(t, errorCode(rc.response(0)))
		require.Equal(t, codeInvalidParams, errorCode(rc.response("")))
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
			require.Equal(t, tt.code, errorCode(res), "%s: %v", tt.body, res)
			require.Contains(t, res, "id")
			require.Contains(t, res["error"].(map[string]any)["message"], tt.msg, tt.body)
		}
		// A malformed response is not answered: the next reply is to 9.
		rc.sendRaw(`{"jsonrpc":"1.0","id":1,"result":null}`)
		rc.send(9, "textDocument/hover", hoverParams())
		for msg := range rc.msgs {
			require.Equal(t, float64(9), msg["id"], "%v", msg)
			break
		}
	})

	t.Run("notifications sent as requests", func(t *testing.T) {
		rc.t = t
		for i, method := range []string{"textDocument/didOpen", "initialized", "exit", "textDocument/didChange", "$/cancelRequest"} {
			rc.send(100+i, method, map[string]any{})
			res := rc.response(100 + i)
			require.Equal(t, codeInvalidRequest, errorCode(res), "%s: %v", method, res)
			require.Contains(t, res["error"].(map[string]any)["message"], "is a notification")
		}
		// exit with an id did not stop the server.
		rc.send(200, "textDocument/hover", hoverParams())
		require.Zero(t, errorCode(rc.response(200)))
	})

	rc.t = t
	rc.send(300, "shutdown", nil)
	require.Zero(t, errorCode(rc.response(300)))
	rc.send(nil, "exit", nil)
	require.Equal(t, 0, rc.exitCode())
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
	require.Equal(t, codeRequestCancelled, errorCode(rc.response("")))
	require.Zero(t, errorCode(rc.response(0)))
}

// TestBackpressure (issue 8.5): a client that sends requests and reads no
// reply stops being read once the queue of pending work is full.
func TestBackpressure(t *testing.T) {
	const bound, sent = 8, 100
	type parts struct {
		r  *router
		st *stream
	}
	started := make(chan parts, 1)
	full := make(chan struct{}, 1)
	serverSide, clientSide := net.Pipe()
	logger := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	code := make(chan int, 1)
	served := make(chan struct{})
	readLoop := make(chan (<-chan struct{}), 1)
	go func() {
		defer close(served)
		code <- serveWith(context.Background(), serverSide, logger, serveOptions{
			conn:      func(c jsonrpc2.Conn) { readLoop <- c.Done() },
			maxQueued: bound,
			started:   func(r *router, st *stream) { started <- parts{r, st} },
			onFull: func() {
				select {
				case full <- struct{}{}:
				default:
				}
			},
		})
	}()
	t.Cleanup(func() { _ = clientSide.Close(); _ = serverSide.Close(); waitAll(t, served, <-readLoop) })
	p := <-started
	r, st := p.r, p.st
	in := bufio.NewReader(clientSide)
	frame := func(id any, method string, params any) []byte {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		require.NoError(t, err)
		return []byte(frameOf(string(b)))
	}
	_, err := clientSide.Write(frame(0, "initialize", initParams()))
	require.NoError(t, err)
	res, err := readFrame(in)
	require.NoError(t, err)
	require.Zero(t, errorCode(res))

	written, writerDone := make(chan error, 1), make(chan struct{})
	t.Cleanup(func() { _ = clientSide.Close(); waitAll(t, writerDone) })
	go func() {
		defer close(writerDone)
		for i := 1; i <= sent; i++ {
			if _, err := clientSide.Write(frame(i, "textDocument/hover", hoverParams())); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	select {
	case <-full:
	case err := <-written:
		t.Fatalf("the server read all %d requests while none of their replies was read (%v)", sent, err)
	}
	r.mu.Lock()
	pending := st.requests.Load() - int64(r.finished)
	peak := r.peakJobs
	r.mu.Unlock()
	require.LessOrEqual(t, pending, int64(bound), "requests decoded and not handled")
	require.LessOrEqual(t, peak, bound)

	// Reading the replies lets everything through.
	seen := map[float64]bool{}
	for len(seen) < sent {
		msg, err := readFrame(in)
		require.NoError(t, err)
		require.Zero(t, errorCode(msg))
		seen[msg["id"].(float64)] = true
	}
	require.NoError(t, <-written)
	r.mu.Lock()
	require.LessOrEqual(t, r.peakJobs, bound)
	r.mu.Unlock()
	require.NoError(t, clientSide.Close())
	require.Equal(t, 1, <-code)
}

// TestMappedIDsAreReleased: the table of mapped ids empties as responses
// are written.
func TestMappedIDsAreReleased(t *testing.T) {
	var tab idTable
	a := tab.add("")
	b := tab.add("")
	require.NotEqual(t, a, b)
	got, ok := tab.lookup("")
	require.True(t, ok)
	require.Equal(t, b, got, "a cancel names the latest request with that id")
	name, ok := tab.release(a)
	require.True(t, ok)
	require.Empty(t, name)
	_, ok = tab.lookup("")
	require.True(t, ok)
	_, ok = tab.release(b)
	require.True(t, ok)
	_, ok = tab.lookup("")
	require.False(t, ok)
	require.Empty(t, tab.byID)
	require.Empty(t, tab.byName)
	_, ok = tab.release(a)
	require.False(t, ok)
}

// TestEOFAnswersPendingCalls: when the input ends, a server call still
// awaiting the client's answer fails at once instead of holding the exit
// until its deadline.
func TestEOFAnswersPendingCalls(t *testing.T) {
	rc, logs := startRawWith(t, serveOptions{drain: 10 * wait})
	initialize(t, rc, map[string]any{"workspace": map[string]any{"configuration": true}})
	rc.send(nil, "initialized", map[string]any{})
	rc.serverRequest("workspace/configuration")
	require.NoError(t, rc.w.Close())
	require.Equal(t, 1, rc.exitCode())
	require.True(t, hasLog(logs, "the connection ended before the client answered"), "log: %v", logs.All())
}

package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/internal/lspframe"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

// wait is how long tests wait for something the server must do: only a
// guard against a hang, never a measure. It is generous because a test's
// 25 MB open took 14-19 s under -race -count=3 on a loaded 2-core machine,
// and a guard that trips on a slow machine is a flaky test.
const wait = time.Minute

// eventually stops the test unless cond holds within wait, asking every
// millisecond (first at once): what must happen is described by format
// and args.
func eventually(t testing.TB, cond func() bool, format string, args ...any) {
	t.Helper()
	eventuallyEvery(t, time.Millisecond, cond, format, args...)
}

// eventuallyEvery is eventually asking every tick, for a cond that costs
// the server a request each time it is asked.
func eventuallyEvery(t testing.TB, tick time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after %v: %s", wait, fmt.Sprintf(format, args...))
		}
		time.Sleep(tick)
	}
}

// sameElements reports whether want and got hold the same elements, each as
// many times, in any order.
func sameElements[E comparable](want, got []E) bool {
	if len(want) != len(got) {
		return false
	}
	n := make(map[E]int, len(want))
	for _, w := range want {
		n[w]++
	}
	for _, g := range got {
		if n[g]--; n[g] < 0 {
			return false
		}
	}
	return true
}

// requireLen fails the test unless xs, written name in the test, has n
// elements; the message shows xs.
func requireLen[E any](t testing.TB, name string, xs []E, n int) {
	t.Helper()
	if len(xs) == n {
		return
	}
	if n == 0 {
		t.Fatalf("%s = %+v, want empty", name, xs)
	}
	t.Fatalf("len(%s) = %d, want %d: %+v", name, len(xs), n, xs)
}

// jsonEqual reports whether two JSON texts encode the same value; an error
// says one of them is not JSON.
func jsonEqual(want, got string) (bool, error) {
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return false, fmt.Errorf("want %q is not JSON: %w", want, err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return false, fmt.Errorf("got %q is not JSON: %w", got, err)
	}
	return reflect.DeepEqual(w, g), nil
}

// testdataPath is the repository's testdata/sessions/name.
func testdataPath(t testing.TB, name string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("ok is false, want true")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata", "sessions", name)
}

func readSession(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(testdataPath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testClient is the editor side: it records what the server sends.
type testClient struct {
	mu          sync.Mutex
	diagnostics map[protocol.DocumentURI][]*protocol.PublishDiagnosticsParams
	messages    []protocol.ShowMessageParams
	refreshes   int
	// published, when set, receives every publication (benchmarks).
	published chan *protocol.PublishDiagnosticsParams
	// config answers workspace/configuration (one item: the sessionls section).
	config any
	// registrations are the client/registerCapability requests received.
	registrations []protocol.Registration
}

var _ protocol.Client = (*testClient)(nil)

func newTestClient() *testClient {
	return &testClient{diagnostics: make(map[protocol.DocumentURI][]*protocol.PublishDiagnosticsParams)}
}

func (c *testClient) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.diagnostics[p.URI] = append(c.diagnostics[p.URI], p)
	if c.published != nil {
		c.published <- p
	}
	return nil
}

func (c *testClient) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages = append(c.messages, *p)
	return nil
}

func (c *testClient) Configuration(context.Context, *protocol.ConfigurationParams) ([]any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return []any{c.config}, nil
}

func (c *testClient) Progress(context.Context, *protocol.ProgressParams) error { return nil }
func (c *testClient) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (c *testClient) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }
func (c *testClient) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (c *testClient) Telemetry(context.Context, any) error { return nil }
func (c *testClient) RegisterCapability(_ context.Context, p *protocol.RegistrationParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.registrations = append(c.registrations, p.Registrations...)
	return nil
}
func (c *testClient) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return nil
}
func (c *testClient) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (bool, error) {
	return false, nil
}
func (c *testClient) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return nil, nil
}

// lastDiagnostics returns the latest publication for uri, or nil.
func (c *testClient) lastDiagnostics(uri protocol.DocumentURI) *protocol.PublishDiagnosticsParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.diagnostics[uri]
	if len(ps) == 0 {
		return nil
	}
	return ps[len(ps)-1]
}

func (c *testClient) publications(uri protocol.DocumentURI) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.diagnostics[uri])
}

func (c *testClient) shownMessages() []protocol.ShowMessageParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]protocol.ShowMessageParams(nil), c.messages...)
}

func (c *testClient) refreshCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refreshes
}

// harness is a server running in-process over net.Pipe and a protocol
// client talking to it.
type harness struct {
	t      testing.TB
	ctx    context.Context
	conn   jsonrpc2.Conn
	server protocol.Server
	client *testClient
	code   chan int
	reads  *readTimer
}

// readTimer notes when the client side first receives bytes after arm: the
// moment the server has finished a reply, before this client decodes it.
type readTimer struct {
	net.Conn
	mu    sync.Mutex
	armed bool
	first time.Time
	last  time.Time // of any read
}

func (r *readTimer) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	if n > 0 {
		r.mu.Lock()
		now := time.Now()
		if r.armed {
			r.armed, r.first = false, now
		}
		r.last = now
		r.mu.Unlock()
	}
	return n, err
}

func (r *readTimer) arm() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armed = true
}

// reads returns the times of the first read after arm and of the last read.
func (r *readTimer) reads() (first, last time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first, r.last
}

type harnessOptions struct {
	beforeRun func(context.Context, string)
	// initOptions is sent as initializationOptions; capabilities as the
	// client capabilities (default: configuration + codeLens refresh).
	initOptions  any
	capabilities any
	noInitialize bool
	// dialects replaces dialect.All() in the server.
	dialects []dialect.Dialect
	// maxQueued bounds the server's queue (transport.Options.MaxQueued);
	// onFull is called when reading stops because it is full.
	maxQueued int
	onFull    func()
}

func defaultCapabilities() map[string]any {
	return map[string]any{
		"workspace": map[string]any{
			"configuration": true,
			"codeLens":      map[string]any{"refreshSupport": true},
			"workspaceEdit": map[string]any{"documentChanges": true},
		},
	}
}

func startHarness(t testing.TB, opts harnessOptions) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverSide, clientSide := net.Pipe()
	logger := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	code := make(chan int, 1)
	served := make(chan struct{})
	readLoop := make(chan (<-chan struct{}), 1)
	go func() {
		defer close(served)
		code <- serveWith(ctx, serverSide, logger.Named("server"), serveOptions{
			beforeRun: opts.beforeRun,
			dialects:  opts.dialects,
			maxQueued: opts.maxQueued,
			onFull:    opts.onFull,
			conn:      func(c jsonrpc2.Conn) { readLoop <- c.Done() },
		})
	}()

	tc := newTestClient()
	timer := &readTimer{Conn: clientSide}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(timer))
	extra := func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == methodCodeLensRefresh {
			tc.mu.Lock()
			tc.refreshes++
			tc.mu.Unlock()
			return reply(ctx, nil, nil)
		}
		return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
	}
	// No AsyncHandler: the client handles each message on its read loop, so
	// a notification is recorded before any later response is delivered.
	// The handler never returns an error: jsonrpc2 v0.10.0's conn stores a
	// handler error and a later read error in one atomic.Value, and panics
	// when their types differ.
	clientHandler := protocol.ClientHandler(tc, extra)
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if err := clientHandler(ctx, reply, req); err != nil {
			t.Logf("client handling %s: %v", req.Method(), err)
		}
		return nil
	})
	h := &harness{
		t: t, ctx: ctx, conn: conn, client: tc, code: code, reads: timer,
		server: protocol.ServerDispatcher(conn, logger.Named("client")),
	}
	// The cleanup waits for the client's read loop (whose handler logs to
	// t) and for serve (whose logger is t's) to end: a goroutine that
	// outlives its test and calls t.Logf is a data race (issue 16).
	t.Cleanup(func() {
		cancel()
		_ = conn.Close()
		_ = serverSide.Close()
		waitAll(t, conn.Done(), served, <-readLoop)
	})
	if !opts.noInitialize {
		caps := opts.capabilities
		if caps == nil {
			caps = defaultCapabilities()
		}
		params := map[string]any{"processId": nil, "rootUri": "file:///work", "capabilities": caps}
		if opts.initOptions != nil {
			params["initializationOptions"] = opts.initOptions
		}
		var res map[string]any
		h.call("initialize", params, &res)
		if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
			t.Fatalf(`conn.Notify(ctx, "initialized", map[string]any{}): %v`, err)
		}
	}
	return h
}

// call makes a request and fails the test on an error reply.
func (h *harness) call(method string, params, result any) {
	h.t.Helper()
	if err := h.callErr(method, params, result); err != nil {
		h.t.Fatalf("%v: h.callErr(method, params, result): %v", method, err)
	}
}

func (h *harness) callErr(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(h.ctx, wait)
	defer cancel()
	_, err := h.conn.Call(ctx, method, params, result)
	return err
}

func (h *harness) notify(method string, params any) {
	h.t.Helper()
	if err := h.conn.Notify(h.ctx, method, params); err != nil {
		h.t.Fatalf("h.conn.Notify(h.ctx, method, params): %v", err)
	}
}

func docURI(name string) protocol.DocumentURI { return protocol.DocumentURI("file:///work/" + name) }

// open opens text as name and waits for its first diagnostics.
func (h *harness) open(name, languageID, text string) protocol.DocumentURI {
	h.t.Helper()
	return h.openURI(docURI(name), languageID, text)
}

// openURI opens text as uri and waits for its first diagnostics.
func (h *harness) openURI(uri protocol.DocumentURI, languageID, text string) protocol.DocumentURI {
	h.t.Helper()
	before := h.client.publications(uri)
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": languageID, "version": 1, "text": text,
	}})
	eventually(h.t, func() bool { return h.client.publications(uri) > before }, "no diagnostics for %s: h.client.publications(uri) > before", uri)
	return uri
}

// insert inserts text at line:character (UTF-16) of uri as version with an
// incremental didChange, and waits for the diagnostics that follow.
func (h *harness) insert(uri protocol.DocumentURI, version, line, character int, text string) {
	h.t.Helper()
	n := h.client.publications(uri)
	at := map[string]any{"line": line, "character": character}
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": at, "end": at}, "text": text}},
	})
	eventually(h.t, func() bool { return h.client.publications(uri) > n }, "h.client.publications(uri) > n")
}

// sync makes a round trip, so that every earlier notification was handled.
func (h *harness) sync() {
	h.t.Helper()
	var res []protocol.CodeLens
	h.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": "file:///nothing.jsonl"}}, &res)
}

// rawClient speaks JSON-RPC with hand-made messages (string ids, {}
// params, EOF) to a server run by serve.
type rawClient struct {
	t    *testing.T
	w    io.WriteCloser
	msgs chan map[string]any
	code chan int
}

func startRaw(t *testing.T, beforeRun func(context.Context, string)) *rawClient {
	t.Helper()
	return startRawServer(t, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)), serveOptions{beforeRun: beforeRun}, 100)
}

// startRawServer serves one end of a pipe with logger and opts, and reads
// the frames the server writes on the other end into a rawClient
// (buffering up to n of them).
func startRawServer(t *testing.T, logger *zap.Logger, opts serveOptions, n int) *rawClient {
	t.Helper()
	serverSide, clientSide := net.Pipe()
	rc := &rawClient{t: t, w: clientSide, msgs: make(chan map[string]any, n), code: make(chan int, 1)}
	served, read, stop := make(chan struct{}), make(chan struct{}), make(chan struct{})
	readLoop := make(chan (<-chan struct{}), 1)
	opts.conn = func(c jsonrpc2.Conn) { readLoop <- c.Done() }
	go func() {
		defer close(served)
		rc.code <- serveWith(context.Background(), serverSide, logger, opts)
	}()
	go func() {
		defer close(read)
		defer close(rc.msgs)
		r := bufio.NewReader(clientSide)
		for {
			msg, err := readFrame(r)
			if err != nil {
				return
			}
			select {
			case rc.msgs <- msg:
			case <-stop: // nobody reads any more: the test is over
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		_ = clientSide.Close()
		_ = serverSide.Close()
		waitAll(t, served, read, <-readLoop)
	})
	return rc
}

// waitAll waits, in a test's cleanup, for the goroutines the test started
// to signal done. One that is still running after wait is a bug (a server
// that does not stop once its connection is closed): the test fails, and
// says so, rather than hang.
func waitAll(t testing.TB, done ...<-chan struct{}) {
	t.Helper()
	timeout := time.After(wait)
	for _, d := range done {
		select {
		case <-d:
		case <-timeout:
			t.Errorf("a goroutine this test started still runs %v after its cleanup began", wait)
			return
		}
	}
}

// readFrame reads one message from the server, decoded.
func readFrame(r *bufio.Reader) (map[string]any, error) {
	body, err := lspframe.Read(r)
	if err != nil {
		return nil, err
	}
	var msg map[string]any
	return msg, json.Unmarshal(body, &msg)
}

// send writes one message; id nil makes a notification, params nil omits
// them.
func (rc *rawClient) send(id any, method string, params any) {
	rc.t.Helper()
	_, err := io.WriteString(rc.w, fuzzCall(id, method, params)) // transport_fuzz_test.go
	if err != nil {
		rc.t.Fatal(err)
	}
}

// response waits for the response to id, skipping other messages and
// answering the server's own requests with null.
func (rc *rawClient) response(id any) map[string]any {
	rc.t.Helper()
	want, _ := json.Marshal(id)
	timeout := time.After(wait)
	for {
		select {
		case msg, ok := <-rc.msgs:
			if !ok {
				rc.t.Fatalf("connection closed while waiting for the response to %s: ok is false, want true", want)
			}
			if _, isReq := msg["method"]; isReq {
				if sid, ok := msg["id"]; ok {
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": sid, "result": nil})
					_, _ = fmt.Fprintf(rc.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
				}
				continue
			}
			got, _ := json.Marshal(msg["id"])
			if string(got) == string(want) {
				return msg
			}
		case <-timeout:
			rc.t.Fatalf("no response to id %s", want)
		}
	}
}

// requireOK sends a request and fails unless its response is a success;
// it returns the response.
func (rc *rawClient) requireOK(id any, method string, params any) map[string]any {
	rc.t.Helper()
	rc.send(id, method, params)
	res := rc.response(id)
	if got := errorCode(res); got != 0 {
		rc.t.Fatalf("%s (id %v): errorCode(rc.response(%v)) = %v, want 0: %v", method, id, id, got, res)
	}
	return res
}

// shutdownExit shuts the server down with request id, sends exit, and
// fails unless the server stops with code 0.
func (rc *rawClient) shutdownExit(id any) {
	rc.t.Helper()
	rc.requireOK(id, "shutdown", nil)
	rc.send(nil, "exit", nil)
	if got := rc.exitCode(); got != 0 {
		rc.t.Fatalf("after shutdown and exit: rc.exitCode() = %v, want %v", got, 0)
	}
}

// errorCode is the error code of a response, 0 if it succeeded.
func errorCode(msg map[string]any) int {
	e, ok := msg["error"].(map[string]any)
	if !ok {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

func (rc *rawClient) exitCode() int {
	rc.t.Helper()
	select {
	case c := <-rc.code:
		return c
	case <-time.After(wait):
		rc.t.Fatal("the server did not stop")
	}
	return -1
}

// utf16Len is the length of valid UTF-8 s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

// TestPendingCallsBound: the set of calls awaiting a response is bounded,
// and forgets the oldest first.
func TestPendingCallsBound(t *testing.T) {
	var p pendingCalls
	for i := range maxPendingCalls + 10 {
		p.add(jsonrpc2.NewNumberID(int32(i + 1)))
	}
	if len(p.ids) != maxPendingCalls {
		t.Fatalf("len(p.ids) = %d, want %d: %+v", len(p.ids), maxPendingCalls, p.ids)
	}
	if p.settle(jsonrpc2.NewNumberID(1)) {
		t.Fatal("the oldest is forgotten: p.settle(jsonrpc2.NewNumberID(1)) is true, want false")
	}
	if !p.settle(jsonrpc2.NewNumberID(maxPendingCalls + 10)) {
		t.Fatal("p.settle(jsonrpc2.NewNumberID(maxPendingCalls+10)) is false, want true")
	}
	if p.settle(jsonrpc2.NewNumberID(maxPendingCalls + 10)) {
		t.Fatal("answered once only: p.settle(jsonrpc2.NewNumberID(maxPendingCalls+10)) is true, want false")
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

// readOnly is an io.ReadWriteCloser that can only be read.
type readOnly struct{ io.Reader }

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
				if msg == nil {
					t.Fatal("msg is nil, want non-nil")
				}
				got++
			}
			if got != tt.want {
				t.Fatalf("messages before the end (%v): got %v, want %v", err, got, tt.want)
			}
			if tt.wantErr == "" {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("err = %v, want an error that is %v", err, io.EOF)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want an error containing %q", err, tt.wantErr)
			}
			if !strings.Contains(tt.wantErr, "EOF") {
				if !errors.Is(err, errFraming) {
					t.Fatalf("err = %v, want an error that is %v", err, errFraming)
				}
			}
			// A bound stops the reading: the stream does not consume a
			// megabyte of header to find out.
			if limit := int64(256 << 10); in.n >= limit {
				t.Fatalf("bytes read: in.n = %v, want < %v", in.n, limit)
			}
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
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want an error that is %v", err, io.ErrUnexpectedEOF)
	}
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(16<<20); got >= limit {
		t.Fatalf("bytes allocated: after.TotalAlloc-before.TotalAlloc = %v, want < %v", got, limit)
	}
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
	shutDown := make(chan bool, 1)
	served := make(chan struct{})
	readLoop := make(chan (<-chan struct{}), 1)
	go func() {
		defer close(served)
		shutDown <- Serve(context.Background(), serverSide, logger, newStubServer, Options{
			Conn:      func(c jsonrpc2.Conn) { readLoop <- c.Done() },
			MaxQueued: bound,
			started:   func(r *router, st *stream) { started <- parts{r, st} },
			OnFull: func() {
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
	in := jsonrpc2.NewStream(clientSide)
	readResponse := func() *jsonrpc2.Response {
		t.Helper()
		msg, _, err := in.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res, ok := msg.(*jsonrpc2.Response)
		if !ok {
			t.Fatalf("a %T: ok is false, want true", msg)
		}
		return res
	}
	frame := func(id any, method string, params any) []byte {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			t.Fatal(err)
		}
		return []byte(frameOf(string(b)))
	}
	_, err := clientSide.Write(frame(0, "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := readResponse().Err(); err != nil {
		t.Fatalf("readResponse().Err(): %v", err)
	}

	hover := map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}, "position": map[string]any{"line": 0, "character": 0}}
	written, writerDone := make(chan error, 1), make(chan struct{})
	t.Cleanup(func() { _ = clientSide.Close(); waitAll(t, writerDone) })
	go func() {
		defer close(writerDone)
		for i := 1; i <= sent; i++ {
			if _, err := clientSide.Write(frame(i, "textDocument/hover", hover)); err != nil {
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
	if limit := int64(bound); pending > limit {
		t.Fatalf("requests decoded and not handled: pending = %v, want <= %v", pending, limit)
	}
	if peak > bound {
		t.Fatalf("peak = %v, want <= %v", peak, bound)
	}

	// Reading the replies lets everything through.
	seen := map[jsonrpc2.ID]bool{}
	for len(seen) < sent {
		res := readResponse()
		if err := res.Err(); err != nil {
			t.Fatalf("res.Err(): %v", err)
		}
		seen[res.ID()] = true
	}
	if err := <-written; err != nil {
		t.Fatalf("<-written: %v", err)
	}
	r.mu.Lock()
	if r.peakJobs > bound {
		t.Fatalf("r.peakJobs = %v, want <= %v", r.peakJobs, bound)
	}
	r.mu.Unlock()
	if err := clientSide.Close(); err != nil {
		t.Fatalf("clientSide.Close(): %v", err)
	}
	if <-shutDown {
		t.Fatal("<-shutDown is true, want false")
	}
}

// stubServer serves initialize and hover with null results: what the
// transport tests watch is the router, not a feature.
type stubServer struct{}

func newStubServer(context.Context, jsonrpc2.Conn, func(func()) bool) Server { return stubServer{} }

func (stubServer) Served(method string) bool {
	return method == protocol.MethodInitialize || method == protocol.MethodTextDocumentHover
}

func (stubServer) Handle(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
	return reply(ctx, nil, nil)
}

func (stubServer) Wait() {}

func frameOf(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// waitAll waits, in a test's cleanup, for the goroutines the test started
// to signal done; one still running after a while is a bug.
func waitAll(t testing.TB, done ...<-chan struct{}) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for _, d := range done {
		select {
		case <-d:
		case <-timeout:
			t.Errorf("a goroutine this test started still runs 10s after its cleanup began")
			return
		}
	}
}

// TestMappedIDsAreReleased: the table of mapped ids empties as responses
// are written.
func TestMappedIDsAreReleased(t *testing.T) {
	var tab idTable
	a := tab.add("")
	b := tab.add("")
	if reflect.DeepEqual(b, a) {
		t.Fatalf("b = %+v, want anything else", b)
	}
	got, ok := tab.lookup("")
	if !ok {
		t.Fatal("ok is false, want true")
	}
	if !reflect.DeepEqual(got, b) {
		t.Fatalf("a cancel names the latest request with that id: got %+v, want %+v", got, b)
	}
	name, ok := tab.release(a)
	if !ok {
		t.Fatal("ok is false, want true")
	}
	if name != "" {
		t.Fatalf("name = %q, want empty", name)
	}
	_, ok = tab.lookup("")
	if !ok {
		t.Fatal("ok is false, want true")
	}
	_, ok = tab.release(b)
	if !ok {
		t.Fatal("ok is false, want true")
	}
	_, ok = tab.lookup("")
	if ok {
		t.Fatal("ok is true, want false")
	}
	if len(tab.byID) != 0 {
		t.Fatalf("tab.byID = %+v, want empty", tab.byID)
	}
	if len(tab.byName) != 0 {
		t.Fatalf("tab.byName = %+v, want empty", tab.byName)
	}
	_, ok = tab.release(a)
	if ok {
		t.Fatal("ok is true, want false")
	}
}
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (readOnly) Write(p []byte) (int, error) { return len(p), nil }
func (readOnly) Close() error                { return nil }

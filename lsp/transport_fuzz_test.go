package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/lsp/transport"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// pipes joins a reader and a writer into the server's connection.
type pipes struct {
	*io.PipeReader
	*io.PipeWriter
}

func (p pipes) Close() error { return p.PipeReader.Close() }

// fuzzFrame frames a JSON-RPC body the way a client does.
func fuzzFrame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// fuzzCall frames a message; id nil makes a notification, params nil
// omits them.
func fuzzCall(id any, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return fuzzFrame(string(b))
}

// fuzzQueue is the bound of the router's queue in FuzzTransport.
const fuzzQueue = 4

// transportSeeds are the hostile inputs of issue 8 (and ordinary
// sessions), each a complete client byte stream.
func transportSeeds() []string {
	initialize := fuzzCall(1, "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}})
	// With workspace.configuration the server asks for its settings after
	// initialized and waits for the answer (seconds when none comes).
	initializeConfig := fuzzCall(1, "initialize", map[string]any{"processId": nil, "rootUri": nil,
		"capabilities": map[string]any{"workspace": map[string]any{"configuration": true}}})
	initialized := fuzzCall(nil, "initialized", map[string]any{})
	open := fuzzCall(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///a.jsonl", "languageId": "jsonl", "version": 1, "text": "{\"role\":\"user\",\"content\":\"hi\"}\n{bad\n"}})
	hover := func(id any) string {
		return fuzzCall(id, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"},
			"position": map[string]any{"line": 0, "character": 3}})
	}
	start := initialize + initialized + open
	configAnswer := fuzzFrame(`{"jsonrpc":"2.0","id":1,"result":[{"budget":100}]}`)
	return []string{
		// An ordinary session.
		start + hover(2) + fuzzCall(3, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl"}}) +
			fuzzCall(4, "shutdown", nil) + fuzzCall(nil, "exit", nil),
		// 8.1: the answer to the server's workspace/configuration, four times,
		// and answers to ids never used.
		initializeConfig + initialized + open + strings.Repeat(configAnswer, 4) + fuzzFrame(`{"jsonrpc":"2.0","id":77,"result":null}`) +
			fuzzFrame(`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"no"}}`) + hover(2),
		// 8.3: framing.
		start + "Content-Length: 12" + strings.Repeat("a", 9000),
		start + "Content-Type: application/vscode-jsonrpc\r\n\r\n" + `{"jsonrpc":"2.0","id":5,"method":"shutdown"}` + hover(2),
		start + "Content-Length: 3\r\n" + hover(2),
		start + "Content-Length: 2147483648\r\n\r\n0123456789",
		start + strings.Repeat("X-A: b\r\n", 33) + hover(2),
		start + strings.Repeat("\r\n", 100) + hover(2),
		"content-length: 2\n\n{}" + start,
		// 8.4: error codes.
		start + fuzzCall(2, "textDocument/hover", map[string]any{"position": "start"}),
		start + hover("") + hover(0) + fuzzCall(nil, "$/cancelRequest", map[string]any{"id": ""}),
		start + hover("\x00sessionls-id-1"),
		start + fuzzFrame(`{"jsonrpc":"2.0","id":{},"method":"textDocument/hover"}`) +
			fuzzFrame(`{"jsonrpc":"2.0","id":[],"method":"textDocument/hover"}`) +
			fuzzFrame(`{"jsonrpc":"2.0","id":true,"method":"textDocument/hover"}`) +
			fuzzFrame(`{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover"}`) +
			fuzzFrame(`{"jsonrpc":"2.0","id":null,"method":"textDocument/hover"}`) +
			fuzzFrame(`{"jsonrpc":"1.0","id":9,"method":"textDocument/hover"}`) +
			fuzzFrame(`[{"jsonrpc":"2.0","id":9,"method":"shutdown"}]`) +
			fuzzFrame(`{garbage}`) + hover(2),
		start + fuzzCall(2, "textDocument/didOpen", map[string]any{}) + fuzzCall(3, "initialized", nil) +
			fuzzCall(4, "exit", nil) + fuzzCall(5, "textDocument/didChange", map[string]any{}) + hover(6),
		// 8.5: more requests than the queue holds (fuzzQueue).
		start + strings.Repeat(hover(2), 3*fuzzQueue),
		// Lifecycle edges.
		hover(1) + initialize + initialize + fuzzCall(2, "shutdown", map[string]any{}) + hover(3) + fuzzCall(nil, "exit", nil),
		start + fuzzCall(2, "workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{"x"}}) +
			fuzzCall(nil, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///a.jsonl", "version": 2},
				"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 9, "character": 0},
					"end": map[string]any{"line": 0, "character": 0}}, "text": "x"}}}),
	}
}

// FuzzTransport feeds raw bytes, as a client would send them, through the
// stream, the connection and the router. The server must answer with
// well-formed messages only, must not panic (in a handler either), and
// must stop once its input ends.
func FuzzTransport(f *testing.F) {
	for _, s := range transportSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		core, logs := observer.New(zap.ErrorLevel)
		code := make(chan int, 1)
		go func() {
			// A drain of 50 ms: a server call made after the input ended and
			// not refused in time would hold every run for seconds. A small
			// queue, so that short inputs reach its bound.
			code <- serveWith(context.Background(), pipes{inR, outW}, zap.New(core),
				serveOptions{drain: 50 * time.Millisecond, maxQueued: fuzzQueue})
			_ = outW.Close()
		}()
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			_, _ = inW.Write(input)
			_ = inW.Close()
		}()
		// A server that stopped reading (exit) leaves the writer blocked:
		// closing the reading end ends it, and the run waits for it.
		defer func() { _ = inR.Close(); <-wrote }()
		out := make(chan error, 1)
		go func() { out <- checkOutput(outR) }()

		select {
		case c := <-code:
			if c != exitOK && c != exitNoShut {
				t.Fatalf("exit code %d", c)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the server did not stop after its input ended")
		}
		if err := <-out; err != nil {
			t.Fatal(err)
		}
		for _, e := range logs.All() {
			if strings.Contains(e.Message, "panicked") {
				t.Fatalf("%s: %v", e.Message, e.ContextMap())
			}
		}
		// The whole process (fuzzing engine included) stays under the
		// memory bound; reading a runtime metric does not stop the world.
		// Another test of the package may have left its garbage (the
		// tokens tests' 32 MiB documents): only what a full collection
		// keeps counts against the bound.
		heap := heapBytes()
		if heap > maxFuzzHeap {
			debug.FreeOSMemory()
			heap = heapBytes()
		}
		if heap > maxFuzzHeap {
			t.Fatalf("%d MiB of heap after a %d-byte input", heap>>20, len(input))
		}
	})
}

// maxFuzzHeap is the memory FuzzTransport may use.
const maxFuzzHeap = 256 << 20

// heapBytes is the memory the Go heap holds from the system (objects,
// free and unswept spans included).
func heapBytes() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64() - sample[1].Value.Uint64()
}

// checkOutput reads the server's output to its end: every message must be
// framed as the server frames them and be a JSON-RPC 2.0 request,
// notification or response.
func checkOutput(r io.Reader) error {
	in := bufio.NewReader(r)
	for {
		line, err := in.ReadString('\n')
		if errors.Is(err, io.EOF) && line == "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading a header: %w", err)
		}
		v, ok := strings.CutPrefix(line, "Content-Length: ")
		if !ok {
			return fmt.Errorf("unexpected header %q", line)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(v, "\r\n"))
		if err != nil || n <= 0 {
			return fmt.Errorf("bad Content-Length %q", v)
		}
		if blank, err := in.ReadString('\n'); err != nil || blank != "\r\n" {
			return fmt.Errorf("no blank line after the header: %q %v", blank, err)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			return fmt.Errorf("reading a body: %w", err)
		}
		if err := checkMessage(body); err != nil {
			return fmt.Errorf("%w in %s", err, body)
		}
	}
}

func checkMessage(body []byte) error {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil || dec.More() {
		return fmt.Errorf("not one JSON object (%v)", err)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return errors.New(`"jsonrpc" is not "2.0"`)
	}
	if method, ok := m["method"]; ok {
		var s string
		if json.Unmarshal(method, &s) != nil || s == "" {
			return errors.New("a method that is not a string")
		}
		return nil
	}
	id, ok := m["id"]
	if !ok {
		return errors.New("a response without an id")
	}
	if transport.CheckID(id) != "" && string(id) != "null" {
		return fmt.Errorf("a response id %s that is no JSON-RPC id", id)
	}
	_, hasResult := m["result"]
	rawErr, hasError := m["error"]
	if hasResult == hasError {
		return errors.New("a response needs exactly one of result and error")
	}
	if hasError {
		var e struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(rawErr, &e) != nil || e.Code == nil || e.Message == nil {
			return errors.New("an error without a code and a message")
		}
		if *e.Code == 0 {
			return errors.New("an error with code 0")
		}
	}
	return nil
}

package main

import (
	"bufio"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/lspframe"
)

func TestReadFrameAndParseMessage(t *testing.T) {
	in := string(frame([]byte(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"u","version":3,"diagnostics":[]}}`))) +
		"Content-Type: application/vscode-jsonrpc\r\n" + string(frame([]byte(`{"jsonrpc":"2.0","id":12,"result":[]}`))) +
		string(frame([]byte(`{"jsonrpc":"2.0","id":"r1","method":"workspace/configuration","params":{}}`)))
	r := bufio.NewReader(strings.NewReader(in))

	body, err := lspframe.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	ev, req, err := parseMessage(body)
	if err != nil || req != nil || ev.method != "textDocument/publishDiagnostics" || ev.version != 3 || ev.id != 0 {
		t.Errorf("publishDiagnostics: got %+v, request %s, %v", ev, req, err)
	}

	body, err = lspframe.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	ev, req, err = parseMessage(body)
	if err != nil || req != nil || ev.id != 12 || ev.method != "" {
		t.Errorf("response: got %+v, request %s, %v", ev, req, err)
	}

	body, err = lspframe.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	_, req, err = parseMessage(body)
	if err != nil || string(req) != `"r1"` {
		t.Errorf("server request: got id %s, %v; want \"r1\"", req, err)
	}

	if _, err := lspframe.Read(r); err == nil {
		t.Error("lspframe.Read at the end of the input: no error")
	}
}

func TestParseMessageErrors(t *testing.T) {
	for _, body := range []string{`not json`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, `{"jsonrpc":"2.0","id":"x","result":null}`} {
		if _, _, err := parseMessage([]byte(body)); err == nil {
			t.Errorf("parseMessage(%s): no error", body)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"5M", 5 << 20, true}, {"100M", 100 << 20, true}, {"1G", 1 << 30, true}, {"512K", 512 << 10, true},
		{"1000", 1000, true}, {"", 0, false}, {"0M", 0, false}, {"-1M", 0, false}, {"M", 0, false}, {"5T", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

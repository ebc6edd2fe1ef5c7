package lspframe

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	in := "Content-Length: 2\r\n\r\n{}" +
		"Content-Type: application/vscode-jsonrpc\r\ncontent-length : 5\r\n\r\n[1,2]" +
		"Content-Length: 0\r\n\r\n"
	r := bufio.NewReader(strings.NewReader(in))
	for _, want := range []string{"{}", "[1,2]", ""} {
		body, err := Read(r)
		if err != nil || string(body) != want {
			t.Fatalf("Read(r) = %q, %v, want %q, nil", body, err, want)
		}
	}
	if _, err := Read(r); !errors.Is(err, io.EOF) {
		t.Fatalf("Read(r) at the end: %v, want io.EOF", err)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Content-Type: x\r\n\r\n{}", "a message without Content-Length"},
		{"Content-Length: -1\r\n\r\n", `bad Content-Length " -1"`},
		{"Content-Length: two\r\n\r\n", `bad Content-Length " two"`},
		{"Content-Length: 5\r\n\r\n{}", "unexpected EOF"},
		{"Content-Length: 2\r\n", "EOF"},
	}
	for _, tt := range tests {
		_, err := Read(bufio.NewReader(strings.NewReader(tt.in)))
		if err == nil || err.Error() != tt.want {
			t.Fatalf("Read(%q) = %v, want the error %q", tt.in, err, tt.want)
		}
	}
}

// Package lspframe reads LSP's Content-Length frames for the clients the
// tests and the benchmark drive the server with. The server reads its
// input with its own bounded reader (lsp/transport); these clients trust
// the server they test, and stay independent of its code.
package lspframe

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Read reads one frame and returns its body: header lines up to an empty
// one, of which Content-Length (its name in any case) gives the body's
// length; other headers are skipped.
func Read(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if length < 0 {
				return nil, errors.New("a message without Content-Length")
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			length, err = strconv.Atoi(strings.TrimSpace(value))
			if err != nil || length < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	body := make([]byte, length)
	_, err := io.ReadFull(r, body)
	return body, err
}

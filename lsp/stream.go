package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// maxMessageSize bounds one JSON-RPC body. A didOpen of a very large session
// file is one message, so the bound is generous; it exists so that a corrupt
// Content-Length cannot make the server allocate gigabytes.
const maxMessageSize = 1 << 31

// stream is a Content-Length framed jsonrpc2.Stream like jsonrpc2.NewStream,
// with one difference that matters for robustness: a body that is not a
// valid JSON-RPC message is logged and skipped instead of ending the
// connection (jsonrpc2's stream returns the decode error, and the
// connection's read loop treats every read error as fatal). Framing errors
// (a bad header, EOF) still end the stream: after them the byte stream can
// no longer be trusted.
type stream struct {
	rwc    io.ReadWriteCloser
	in     *bufio.Reader
	logger *zap.Logger

	writeMu sync.Mutex
}

func newStream(rwc io.ReadWriteCloser, logger *zap.Logger) *stream {
	return &stream{rwc: rwc, in: bufio.NewReaderSize(rwc, 64<<10), logger: logger}
}

var _ jsonrpc2.Stream = (*stream)(nil)

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		body, n, err := s.readFrame()
		total += n
		if err != nil {
			return nil, total, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.logger.Error("skipping a message that is not valid JSON-RPC",
				zap.Error(err), zap.Int("bytes", len(body)))
			continue
		}
		return msg, total, nil
	}
}

// readFrame reads the headers and the body of one message.
func (s *stream) readFrame() ([]byte, int64, error) {
	var total int64
	length := int64(-1)
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			if errors.Is(err, io.EOF) && total == 0 {
				return nil, total, io.EOF
			}
			return nil, total, fmt.Errorf("reading a message header: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if length < 0 {
				// A stray blank line before any header: tolerate it.
				continue
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, total, fmt.Errorf("invalid message header %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n <= 0 || n > maxMessageSize {
				return nil, total, fmt.Errorf("invalid Content-Length %q", value)
			}
			length = n
		}
	}
	body := make([]byte, length)
	n, err := io.ReadFull(s.in, body)
	total += int64(n)
	if err != nil {
		return nil, total, fmt.Errorf("reading a %d-byte message body: %w", length, err)
	}
	return body, total, nil
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// jsonrpc2's messages marshal themselves; calling MarshalJSON directly
	// skips json.Marshal's second pass over the output (which costs as
	// much again on a large reply).
	var data []byte
	var err error
	if m, ok := msg.(json.Marshaler); ok {
		data, err = m.MarshalJSON()
	} else {
		data, err = json.Marshal(msg)
	}
	if err != nil {
		return 0, fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	// One Write per message so that a reader never sees a header without
	// its body interleaved with another message.
	buf := make([]byte, 0, len(data)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(data)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, data...)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.rwc.Write(buf)
	if err != nil {
		return int64(n), fmt.Errorf("writing a JSON-RPC message: %w", err)
	}
	return int64(n), nil
}

func (s *stream) Close() error { return s.rwc.Close() }

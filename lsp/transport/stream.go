package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// Bounds of the Content-Length framing. A peer that passes one is not
// speaking LSP, and the byte stream cannot be trusted after it: the stream
// ends with a framing error.
const (
	// maxMessageSize bounds one JSON-RPC body. A didOpen of a very large
	// session file is one message, so the bound is generous; memory for a
	// body is taken as its bytes arrive, never on the word of the header.
	maxMessageSize = 1 << 31
	// maxHeaderLine bounds one header line (LSP sends two short headers).
	maxHeaderLine = 8 << 10
	// maxHeaderBlock and maxHeaders bound the header block of one message,
	// blank lines before it included.
	maxHeaderBlock = 64 << 10
	maxHeaders     = 32
	// firstBodyChunk is the most memory a body gets before its bytes
	// arrive; the buffer then doubles as they do.
	firstBodyChunk = 64 << 10
)

// errFraming marks errors after which the byte stream is out of step.
var errFraming = errors.New("LSP framing error")

// stream is a Content-Length framed jsonrpc2.Stream like jsonrpc2.NewStream,
// hardened against a hostile peer:
//
//   - Framing is bounded (header line, header block, body memory), and a
//     header block without exactly one Content-Length ends the stream.
//   - A body that is not a valid JSON-RPC message does not end the
//     connection (jsonrpc2's stream returns the decode error, and the
//     connection's read loop treats every read error as fatal): it is
//     answered with ParseError or InvalidRequest and id null, as JSON-RPC
//     2.0 requires, or dropped when it is a response.
//   - At most one response per call the server wrote is passed on; others
//     are logged and dropped (see transport_ids.go for why this matters).
//   - Request ids jsonrpc2.ID cannot carry ("") are mapped both ways.
//
// Framing errors and EOF still end the stream.
type stream struct {
	rwc    io.ReadWriteCloser
	in     *bufio.Reader
	logger *zap.Logger

	// gate, when set, is called before each message is read and blocks
	// while the server's queue of pending work is full (backpressure).
	gate func(context.Context) error

	writeMu sync.Mutex
	calls   pendingCalls // outgoing calls awaiting their response
	ids     idTable      // incoming ids mapped to ours

	requests atomic.Int64 // requests and notifications decoded (tests)

	// readErr is the error that ended the input (read loop only). Before
	// it is returned, every call still awaiting its response gets an error
	// response, so that it stops waiting at once instead of at its
	// deadline (which held up exit on EOF by seconds).
	readErr error
	// inputEnded is set with readErr: a call written after it could never
	// be answered, so Write refuses it.
	inputEnded atomic.Bool
	// prescanned is the text literal of the body just read, checked while
	// it arrived (read loop only; prescan.go).
	prescanned *prescanned
}

func newStream(rwc io.ReadWriteCloser, logger *zap.Logger) *stream {
	return &stream{rwc: rwc, in: bufio.NewReaderSize(rwc, 64<<10), logger: logger}
}

var _ jsonrpc2.Stream = (*stream)(nil)

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if s.readErr != nil {
			return s.ended()
		}
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		if s.gate != nil {
			if err := s.gate(ctx); err != nil {
				return nil, total, err
			}
		}
		body, n, err := s.readFrame()
		total += n
		if err != nil {
			if errors.Is(err, errFraming) {
				s.logger.Error("ending the connection: the peer broke LSP's framing", zap.Error(err))
			}
			s.readErr = err
			s.inputEnded.Store(true)
			msg, _, err := s.ended()
			return msg, total, err
		}
		msg, err := s.decode(body)
		if err != nil {
			// Only a failed write of an error reply gets here: the peer is
			// gone.
			return nil, total, err
		}
		if msg != nil {
			return msg, total, nil
		}
	}
}

// ended returns an error response for one call still awaiting its
// response, or, when none is left, the error that ended the input.
func (s *stream) ended() (jsonrpc2.Message, int64, error) {
	id, ok := s.calls.pop()
	if !ok {
		return nil, 0, s.readErr
	}
	resp, err := jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(jsonrpc2.InternalError,
		fmt.Sprintf("the connection ended before the client answered: %v", s.readErr)))
	if err != nil {
		return nil, 0, s.readErr
	}
	return resp, 0, nil
}

// decode turns a body into the message the connection sees, or answers or
// drops it and returns nil.
func (s *stream) decode(body []byte) (jsonrpc2.Message, error) {
	pre := s.prescanned
	s.prescanned = nil
	msg, err := decodePrescanned(body, pre)
	if err != nil {
		s.logger.Error("dropping a message whose text could not be put back as it came", zap.Error(err))
		return nil, nil
	}
	if msg != nil { // a didOpen, decoded in place (fastdecode.go)
		s.requests.Add(1)
		return msg, nil
	}
	// Checked before anything decodes it: jsonrpc2's decoder recurses once
	// per nesting level (millions of '[' overflow the goroutine's stack,
	// a fatal error no recover catches), and it takes the first value of
	// a body and ignores what follows it.
	if why := unparsable(body); why != "" {
		s.logger.Warn("answering a message that is not JSON", zap.String("reason", why), zap.Int("bytes", len(body)))
		return nil, s.writeError(jsonrpc2.ParseError, "parse error: "+why)
	}
	msg, err = jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, s.rejectInvalid(body, err)
	}
	switch m := msg.(type) {
	case *jsonrpc2.Response:
		if !s.calls.settle(m.ID()) {
			s.logger.Warn("dropping a response to no outstanding request (unknown or already answered id)",
				zap.String("id", fmt.Sprintf("%q", m.ID())))
			return nil, nil
		}
		return m, nil
	case *jsonrpc2.Call:
		s.requests.Add(1)
		if m.ID() != (jsonrpc2.ID{}) {
			name, ok := idName(m.ID())
			if !ok || !needsMapping(name) {
				return m, nil
			}
			return s.remap(m, s.ids.add(name))
		}
		// The zero ID is the number 0 or the string "": only the body
		// tells which.
		raw := rawID(body)
		var name string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &name) != nil || !needsMapping(name) {
			return m, nil
		}
		return s.remap(m, s.ids.add(name))
	default:
		s.requests.Add(1)
		return msg, nil
	}
}

// remap returns call with its id replaced by id. It goes through
// DecodeMessage so that the params stay exactly as they came (absent
// params stay absent).
func (s *stream) remap(call *jsonrpc2.Call, id jsonrpc2.ID) (jsonrpc2.Message, error) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding a mapped id: %w", err)
	}
	b.Write(idJSON)
	b.WriteString(`,"method":`)
	method, _ := json.Marshal(call.Method())
	b.Write(method)
	if p := call.Params(); len(p) > 0 {
		b.WriteString(`,"params":`)
		b.Write(p)
	}
	b.WriteByte('}')
	msg, err := jsonrpc2.DecodeMessage(b.Bytes())
	if err != nil {
		// Everything in it was decoded a moment ago.
		return nil, fmt.Errorf("re-encoding a request with a mapped id: %w", err)
	}
	return msg, nil
}

// MaxNesting bounds the nesting of arrays and objects in one message.
// LSP's deepest messages (capabilities, settings) nest a dozen levels;
// the bound keeps every recursive decoder the body meets (jsonrpc2's,
// protocol's, encoding/json's) far from its stack's limit.
const MaxNesting = 512

// unparsable says why body cannot be taken as one JSON value, or returns
// "". It scans the body once, without recursion or allocation, for
// nesting deeper than MaxNesting and for bytes after the first value
// (`{…}}`, `{…}garbage`, `{…}{…}`), then checks the rest of the grammar
// with json.Valid (also iterative).
func unparsable(body []byte) string {
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			if depth > MaxNesting {
				return fmt.Sprintf("arrays and objects nested deeper than %d levels (at byte %d)", MaxNesting, i)
			}
		case ']', '}':
			depth--
			if depth == 0 {
				if rest := bytes.TrimLeft(body[i+1:], " \t\r\n"); len(rest) > 0 {
					return fmt.Sprintf("%d bytes after the end of the JSON value (at byte %d): %s", len(rest), i+1, truncate(rest, 40))
				}
				i = len(body)
			}
		}
	}
	if !json.Valid(body) {
		return "the message is not valid JSON"
	}
	return ""
}

// rejectInvalid answers a body that DecodeMessage refused: -32700 with id
// null when it is not JSON, -32600 with id null when it is JSON but not a
// JSON-RPC 2.0 request or response; a malformed response is logged and
// dropped (answering it would answer an answer). Only a failed write is
// returned.
func (s *stream) rejectInvalid(body []byte, decodeErr error) error {
	if !json.Valid(body) {
		s.logger.Warn("answering a message that is not JSON", zap.Int("bytes", len(body)))
		return s.writeError(jsonrpc2.ParseError, "parse error: the message is not valid JSON")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		reason := "invalid request: a JSON-RPC message must be a JSON object"
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
			reason = "invalid request: JSON-RPC batches are not supported by LSP"
		}
		s.logger.Warn("answering an invalid message", zap.String("reason", reason))
		return s.writeError(jsonrpc2.InvalidRequest, reason)
	}
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasMethod && (hasResult || hasError) {
		s.logger.Warn("dropping a malformed response", zap.Error(decodeErr),
			zap.String("id", truncate(m["id"], 80)))
		return nil
	}
	reason := invalidReason(m, hasMethod, decodeErr)
	s.logger.Warn("answering an invalid request", zap.String("reason", reason))
	return s.writeError(jsonrpc2.InvalidRequest, "invalid request: "+reason)
}

// invalidReason says what is wrong with a JSON object that DecodeMessage
// refused.
func invalidReason(m map[string]json.RawMessage, hasMethod bool, decodeErr error) string {
	if v, ok := m["jsonrpc"]; ok && string(bytes.TrimSpace(v)) != `"2.0"` {
		return fmt.Sprintf(`"jsonrpc" is %s: only "2.0" is supported`, truncate(v, 40))
	}
	if !hasMethod {
		return "a message needs a method (a request) or a result or error (a response)"
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil {
		return "the method must be a string"
	}
	if why := CheckID(m["id"]); why != "" {
		return why
	}
	return decodeErr.Error()
}

// writeError writes an error response with id null.
func (s *stream) writeError(code jsonrpc2.Code, message string) error {
	data, err := json.Marshal(wireResponse{JSONRPC: "2.0", ID: json.RawMessage("null"),
		Error: &jsonrpc2.Error{Code: code, Message: message}})
	if err != nil {
		return fmt.Errorf("encoding an error response: %w", err)
	}
	_, err = s.writeFrame(data)
	return err
}

// wireResponse is a response whose id is given as raw JSON: null, or a
// client's id that jsonrpc2.ID cannot carry.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc2.Error `json:"error,omitempty"`
}

// readFrame reads the headers and the body of one message.
func (s *stream) readFrame() ([]byte, int64, error) {
	var total int64
	length := int64(-1)
	headers := 0
	var line []byte
	for {
		var err error
		line, err = s.readHeaderLine(line[:0], maxHeaderBlock-total)
		total += int64(len(line))
		if err != nil {
			if errors.Is(err, io.EOF) {
				if total == 0 {
					return nil, total, io.EOF // between messages: a clean end
				}
				err = fmt.Errorf("reading a message header: %w", io.ErrUnexpectedEOF)
			}
			return nil, total, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if headers == 0 {
				// A stray blank line before any header: tolerate it (it
				// counts towards the header block's bound).
				continue
			}
			break
		}
		headers++
		if headers > maxHeaders {
			return nil, total, fmt.Errorf("%w: more than %d headers in one message", errFraming, maxHeaders)
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, total, fmt.Errorf("%w: invalid message header %q", errFraming, truncate(line, 80))
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type, or anything else: ignored
		}
		if length >= 0 {
			return nil, total, fmt.Errorf("%w: two Content-Length headers in one message", errFraming)
		}
		v := bytes.TrimSpace(value)
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n <= 0 || n > maxMessageSize {
			return nil, total, fmt.Errorf("%w: invalid Content-Length %q (want 1 to %d)", errFraming, truncate(v, 40), int64(maxMessageSize))
		}
		length = n
	}
	if length < 0 {
		return nil, total, fmt.Errorf("%w: a header block without Content-Length", errFraming)
	}
	body, err := s.readBody(length)
	total += int64(len(body))
	if err != nil {
		return nil, total, err
	}
	return body, total, nil
}

// readHeaderLine appends one line, '\n' included, to line. It fails when
// the line is longer than maxHeaderLine or than room, the bytes left of the
// header block's bound, before reading past either bound.
func (s *stream) readHeaderLine(line []byte, room int64) ([]byte, error) {
	limit := int64(maxHeaderLine)
	if room < limit {
		limit = room
	}
	for {
		c, err := s.in.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if len(line) == 0 {
					return line, io.EOF
				}
				err = io.ErrUnexpectedEOF
			}
			return line, fmt.Errorf("reading a message header: %w", err)
		}
		if int64(len(line)) >= limit {
			if limit < maxHeaderLine {
				return line, fmt.Errorf("%w: a header block longer than %d bytes", errFraming, maxHeaderBlock)
			}
			return line, fmt.Errorf("%w: a header line longer than %d bytes", errFraming, maxHeaderLine)
		}
		line = append(line, c)
		if c == '\n' {
			return line, nil
		}
	}
}

// readBody reads a length-byte body. Its buffer grows as the bytes arrive
// (doubling from firstBodyChunk), so a peer that declares 2 GiB and sends
// ten bytes costs 64 KiB, not 2 GiB. Once the buffer has the body's full
// size, a large didOpen's text is checked as the rest arrives (prescan.go),
// and s.prescanned holds the result.
func (s *stream) readBody(length int64) ([]byte, error) {
	buf := make([]byte, 0, min(length, firstBodyChunk))
	var pre *prescan
	populated := 0 // buf[:populated] is backed by memory (populate)
	for {
		end := cap(buf)
		if pre != nil {
			end = min(end, len(buf)+prescanStep)
		}
		if cap(buf) >= populateMin {
			if populated <= len(buf) {
				// Ahead of the reader, never more than populateStep past the
				// bytes arrived: a peer that declares more than it sends
				// gets no more resident memory than before.
				populated = min(cap(buf), len(buf)+populateStep)
				populate(buf[len(buf):populated])
			}
			end = min(end, populated)
		}
		n, err := io.ReadFull(s.in, buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err != nil {
			if pre != nil {
				pre.end()
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return buf, fmt.Errorf("reading a %d-byte message body (got %d bytes): %w", length, len(buf), err)
		}
		if pre != nil {
			pre.arrived(len(buf))
		}
		if int64(len(buf)) == length {
			if pre != nil {
				s.prescanned = pre.end()
			}
			return buf, nil
		}
		if len(buf) < cap(buf) {
			continue
		}
		grown := make([]byte, len(buf), nextBodyCap(len(buf), cap(buf), length)) // memory.go
		populated = 0
		if cap(grown) >= populateMin {
			populated = min(cap(grown), len(buf)+populateStep)
			populate(grown[:populated])
		}
		copy(grown, buf)
		buf = grown
		if int64(cap(buf)) == length && length >= prescanMin {
			if start, ok := textStart(buf[:min(len(buf), prescanLead)]); ok {
				pre = startPrescan(buf[:cap(buf)], len(buf), start)
			}
		}
	}
}

// prescanStep is how many bytes are read between two looks of the check
// that follows the reading (prescan.go).
const prescanStep = 256 << 10

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var data []byte
	var err error
	switch m := msg.(type) {
	case *jsonrpc2.Response:
		if name, ok := s.ids.release(m.ID()); ok {
			data, err = encodeMapped(name, m)
			break
		}
		data, err = marshalResponse(m) // fastencode.go
	case *jsonrpc2.Call:
		// Recorded before the write: the response may arrive before Write
		// returns.
		s.calls.add(m.ID())
		if s.inputEnded.Load() {
			// Checked after the id is added: either this sees the end of the
			// input, or the read loop sees the id and answers it.
			s.calls.settle(m.ID())
			return 0, fmt.Errorf("not sending %s: the connection's input has ended, no answer can come", m.Method())
		}
		data, err = marshalMessage(msg)
		if err != nil {
			s.calls.settle(m.ID())
		}
	default:
		data, err = marshalMessage(msg)
	}
	if err != nil {
		return 0, fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	n, err := s.writeFrame(data)
	if err != nil {
		if c, ok := msg.(*jsonrpc2.Call); ok {
			s.calls.settle(c.ID())
		}
	}
	return n, err
}

// marshalMessage encodes one of jsonrpc2's messages. They marshal
// themselves; calling MarshalJSON directly skips json.Marshal's second pass
// over the output (which costs as much again on a large reply).
func marshalMessage(msg jsonrpc2.Message) ([]byte, error) {
	if m, ok := msg.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(msg)
}

// encodeMapped encodes resp with the client's string id name in place of
// the id the stream gave the request.
func encodeMapped(name string, resp *jsonrpc2.Response) ([]byte, error) {
	id, err := json.Marshal(name)
	if err != nil {
		return nil, err
	}
	w := wireResponse{JSONRPC: "2.0", ID: id}
	if err := resp.Err(); err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &jsonrpc2.Error{Message: err.Error()}
		}
		w.Error = rpcErr
	} else {
		w.Result = resp.Result()
		if len(w.Result) == 0 {
			w.Result = json.RawMessage("null")
		}
	}
	return json.Marshal(w)
}

// writeFrame writes one framed message in one Write, so that a reader
// never sees a header without its body interleaved with another message.
func (s *stream) writeFrame(data []byte) (int64, error) {
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

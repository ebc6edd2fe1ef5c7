package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// This file holds the stream's bookkeeping of request ids, in both
// directions, for the two places where jsonrpc2 v0.10.0 cannot be trusted
// with them:
//
//   - Outgoing calls. The connection's read loop delivers a response by a
//     blocking send on the waiting call's channel (capacity 1), found in its
//     pending map. A second response to the same id fills the channel, and a
//     third blocks the read loop for good: nothing is read again, not even
//     EOF. The stream therefore passes on at most one response per call it
//     wrote, and drops every other response (see pendingCalls).
//   - Incoming ids. jsonrpc2.ID cannot tell the string id "" from the number
//     0 (both are the zero ID, written back as 0). The stream gives such a
//     request an id of its own and writes the client's id back in the
//     response (see idTable).

// maxPendingCalls bounds the ids of outgoing calls still awaiting their
// response. Every call the server makes has a deadline (the longest is 30 s),
// so the set stays tiny with any client that answers; the bound is for one
// that never does. Past it the oldest id is forgotten: its call has long
// given up, and a late response to it is dropped like any unknown one.
const maxPendingCalls = 1024

// pendingCalls is the set of ids of calls written to the peer and not yet
// answered.
type pendingCalls struct {
	mu   sync.Mutex
	ids  map[jsonrpc2.ID]uint64 // id → the order it was added in
	next uint64
}

func (p *pendingCalls) add(id jsonrpc2.ID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = make(map[jsonrpc2.ID]uint64)
	}
	p.next++
	p.ids[id] = p.next
	if len(p.ids) <= maxPendingCalls {
		return
	}
	oldest, first := jsonrpc2.ID{}, uint64(0)
	for k, n := range p.ids {
		if first == 0 || n < first {
			oldest, first = k, n
		}
	}
	delete(p.ids, oldest)
}

// settle removes id and reports whether it was awaiting a response.
func (p *pendingCalls) settle(id jsonrpc2.ID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.ids[id]
	delete(p.ids, id)
	return ok
}

// pop removes and returns any one id.
func (p *pendingCalls) pop() (jsonrpc2.ID, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.ids {
		delete(p.ids, id)
		return id, true
	}
	return jsonrpc2.ID{}, false
}

// mappedPrefix starts the ids the stream gives to requests whose own id
// jsonrpc2.ID cannot carry. A client's string id that starts with it is
// mapped too, so a client can never name one of ours.
const mappedPrefix = "\x00sessionls-id-"

// needsMapping reports whether the string id name must be mapped: "" (which
// jsonrpc2.ID reads as the number 0) and ids in our own namespace.
func needsMapping(name string) bool {
	return name == "" || strings.HasPrefix(name, mappedPrefix)
}

// idTable maps the ids of requests in flight that needsMapping to the ids
// the server sees. An entry lives from the request's arrival to its
// response, so the table is bounded by the router's queue bound.
type idTable struct {
	mu     sync.Mutex
	seq    uint64
	byID   map[jsonrpc2.ID]string // ours → the client's (a string id)
	byName map[string]jsonrpc2.ID // the client's → ours, for $/cancelRequest
}

// add gives the client's string id name an id of our own.
func (t *idTable) add(name string) jsonrpc2.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = make(map[jsonrpc2.ID]string)
		t.byName = make(map[string]jsonrpc2.ID)
	}
	t.seq++
	id := jsonrpc2.NewStringID(mappedPrefix + strconv.FormatUint(t.seq, 10))
	t.byID[id] = name
	t.byName[name] = id
	return id
}

// release ends the mapping of id (a response to it is being written) and
// returns the client's id.
func (t *idTable) release(id jsonrpc2.ID) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	name, ok := t.byID[id]
	if !ok {
		return "", false
	}
	delete(t.byID, id)
	if t.byName[name] == id {
		delete(t.byName, name)
	}
	return name, true
}

// lookup returns our id for the client's string id name, if it is mapped
// and in flight.
func (t *idTable) lookup(name string) (jsonrpc2.ID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byName[name]
	return id, ok
}

// rawID returns the raw "id" member of a message body that jsonrpc2 has
// already decoded (so it is a JSON object). It costs a second parse of the
// body, which is why it is used only for the rare ids that need a look.
func rawID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil
	}
	return m.ID
}

// CheckID tells why raw is not an id LSP allows (integer | string, where
// integer is a 32-bit signed number written without fraction or
// exponent), or returns "".
func CheckID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return ""
	case 'n':
		return "the id is null: a request's id must be an integer or a string"
	case 't', 'f':
		return "the id is a boolean: it must be an integer or a string"
	case '{':
		return "the id is an object: it must be an integer or a string"
	case '[':
		return "the id is an array: it must be an integer or a string"
	}
	if _, err := strconv.ParseInt(string(raw), 10, 32); err != nil {
		return fmt.Sprintf("the id %s is not an integer from -2^31 to 2^31-1 nor a string", truncate(raw, 40))
	}
	return ""
}

// truncate shortens b for a log line or an error message.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// idName returns the string of a string id; ok is false for a number.
func idName(id jsonrpc2.ID) (name string, ok bool) {
	b, err := id.MarshalJSON()
	if err != nil || len(b) == 0 || b[0] != '"' {
		return "", false
	}
	return name, json.Unmarshal(b, &name) == nil
}

package claude

import (
	"errors"
	"unsafe"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/jsonscan"
)

// entry is what the dialect keeps of one record (a line JSON.parse
// accepts): the few members the conversation's structure and the API's
// rules need, with where they are, and the cost of the API message it
// holds. Nothing in it refers to the line's memory.
type entry struct {
	ln     int   // physical line, 1-based
	offset int64 // the line's first byte in the file
	size   int   // the line's bytes, without its '\n'

	typ, subtype string
	uuid         string
	uuidAt       line.Span
	hasUUID      bool
	parent       string // "" with hasParent false: null or absent (a root)
	parentAt     line.Span
	hasParent    bool
	sidechain    bool
	compact      bool // isCompactSummary
	boundary     bool // type system, subtype compact_boundary
	trigger      string
	preTokens    int64

	// The API message: type user or assistant with a message object.
	api     bool
	role    string
	msgID   string // an assistant response's message.id
	model   string
	usage   *usage
	str     bool // content is a string
	blocks  []block
	cost    int64 // UTF-16 length of JSON.stringify({role, content})
	tokens  int64
	tokErr  error
	content span // the content value, in line bytes (for fixes)

	// bad says why the record is not what Claude Code writes ("" when it
	// is), at badAt.
	bad   string
	badAt line.Span
}

// block is one content block of a message.
type block struct {
	typ     string
	id      string // tool_use id, or tool_result tool_use_id
	idAt    line.Span
	hasID   bool
	name    string
	isError bool
	at      span  // the block's bytes in the line
	cost    int64 // UTF-16 length of JSON.stringify(block)
}

type usage struct {
	input, cacheCreation, cacheRead, output int64
}

// Block types that answer or make calls.
const (
	toolUse    = "tool_use"
	toolResult = "tool_result"
)

// decode reads one line that JSON.parse accepts. count, when set, counts
// the tokens of a text. scratch is a buffer decode may use and grow (nil:
// its own).
func decode(l []byte, count func(string) (int, error), scratch *[]byte) *entry {
	e := &entry{size: len(l)}
	at := jsonscan.SkipWS(l, 0)
	if at >= len(l) || l[at] != '{' {
		e.bad, e.badAt = "the record is not a JSON object", spanOf(l, span{at, len(l)})
		return e
	}
	if scratch == nil {
		scratch = new([]byte)
	}
	arena := make(object, 0, 48)
	top := objectIn(l, at, &arena)
	e.typ, _, _ = top.str(l, "type")
	e.subtype, _, _ = top.str(l, "subtype")
	var sp span
	if e.uuid, sp, e.hasUUID = top.str(l, "uuid"); e.hasUUID {
		e.uuidAt = spanOf(l, sp)
	}
	if e.parent, sp, e.hasParent = top.str(l, "parentUuid"); e.hasParent {
		e.parentAt = spanOf(l, sp)
	}
	e.sidechain = top.isTrue(l, "isSidechain")
	e.compact = top.isTrue(l, "isCompactSummary")
	if e.typ == "system" && e.subtype == "compact_boundary" {
		e.boundary = true
		if v, ok := top.get("compactMetadata"); ok {
			m := objectIn(l, v.start, &arena)
			e.trigger, _, _ = m.str(l, "trigger")
			e.preTokens = m.number(l, "preTokens")
		}
	}
	if e.typ != "user" && e.typ != "assistant" {
		return e // other types carry no API message; unknown ones are future types
	}
	if !e.hasUUID {
		e.bad, e.badAt = "a "+e.typ+" record without a string uuid", spanOf(l, span{at, skipValue(l, at)})
	}
	mv, ok := top.get("message")
	if !ok || l[mv.start] != '{' {
		e.bad, e.badAt = "a "+e.typ+" record without a message object", spanOf(l, span{at, skipValue(l, at)})
		if ok {
			e.badAt = spanOf(l, mv)
		}
		return e
	}
	msg := objectIn(l, mv.start, &arena)
	e.role, _, _ = msg.str(l, "role")
	if e.role == "" {
		e.role = e.typ
	}
	e.msgID, _, _ = msg.str(l, "id")
	e.model, _, _ = msg.str(l, "model")
	// Claude Code's own notices (an API error, an interruption) are
	// written as assistant records of model "<synthetic>" with zero usage:
	// no response of the model, so no usage to show.
	if u, ok := msg.get("usage"); ok && l[u.start] == '{' && e.model != "<synthetic>" {
		o := objectIn(l, u.start, &arena)
		e.usage = &usage{
			input:         o.number(l, "input_tokens"),
			cacheCreation: o.number(l, "cache_creation_input_tokens"),
			cacheRead:     o.number(l, "cache_read_input_tokens"),
			output:        o.number(l, "output_tokens"),
		}
	}
	cv, ok := msg.get("content")
	switch {
	case !ok:
		e.bad, e.badAt = "message.content is missing", spanOf(l, mv)
		return e
	case l[cv.start] == '"':
		e.str = true
	case l[cv.start] == '[':
		e.blocks = readBlocks(l, cv, e, &arena, scratch)
	default:
		e.bad, e.badAt = "message.content must be a string or an array of content blocks", spanOf(l, cv)
		return e
	}
	e.api = e.role == "user" || e.role == "assistant"
	if !e.api {
		e.bad, e.badAt = "message.role must be \"user\" or \"assistant\"", spanOf(l, mv)
		return e
	}
	e.content = cv
	var w int64
	var text []byte
	var err error
	if e.str || count != nil {
		w, text, err = stringified(l[cv.start:cv.end], count != nil, scratch)
		if err != nil {
			w = int64(cv.end - cv.start) // a hostile value: its bytes, as an estimate
		}
	} else {
		// JSON.stringify of an array: its elements', comma-separated, in
		// brackets (each block was measured once already).
		w = 2 + int64(max(len(e.blocks)-1, 0))
		for _, b := range e.blocks {
			w += b.cost
		}
	}
	head := `{"role":"` + e.role + `","content":`
	e.cost = int64(len(head)) + w + 1
	if count != nil {
		if err != nil {
			e.tokErr = err
		} else {
			n, cerr := count(head + unsafe.String(unsafe.SliceData(text), len(text)) + "}")
			e.tokens, e.tokErr = int64(n), cerr
		}
	}
	return e
}

// readBlocks reads the content blocks of the array at cv.
func readBlocks(l []byte, cv span, e *entry, arena *object, scratch *[]byte) []block {
	var bs []block
	elements(l, cv.start, func(k int, v span) {
		b := block{at: v}
		if l[v.start] != '{' {
			if e.bad == "" {
				e.bad, e.badAt = "a content block must be an object", spanOf(l, v)
			}
			bs = append(bs, b)
			return
		}
		o := objectIn(l, v.start, arena)
		b.typ, _, _ = o.str(l, "type")
		var sp span
		switch b.typ {
		case toolUse:
			b.id, sp, b.hasID = o.str(l, "id")
			b.name, _, _ = o.str(l, "name")
		case toolResult:
			b.id, sp, b.hasID = o.str(l, "tool_use_id")
			b.isError = o.isTrue(l, "is_error")
		case "":
			if e.bad == "" {
				e.bad, e.badAt = "a content block without a string type", spanOf(l, v)
			}
		}
		if b.hasID {
			b.idAt = spanOf(l, sp)
		} else if (b.typ == toolUse || b.typ == toolResult) && e.bad == "" {
			e.bad, e.badAt = "a "+b.typ+" block without its string id", spanOf(l, v)
		}
		if w, _, err := stringified(l[v.start:v.end], false, scratch); err == nil {
			b.cost = w
		} else {
			b.cost = int64(v.end - v.start)
		}
		bs = append(bs, b)
	})
	return bs
}

// The wrapper that makes any JSON value the input of a runtime tool call,
// so that package line measures (and writes) JSON.stringify of the value
// exactly as node does: numbers, key order, escapes, lone surrogates.
const (
	wrapHead = `{"role":"assistant","content":"","toolCalls":[{"id":"","name":"","input":`
	wrapTail = `}]}`
)

var errNotMeasured = errors.New("claude: a content value line could not measure")

// stringified returns the UTF-16 length of JSON.stringify of the JSON value
// v and, with text, the text itself (in memory of its own). The wrapped
// value is built in *scratch.
func stringified(v []byte, text bool, scratch *[]byte) (int64, []byte, error) {
	w := append(append(append((*scratch)[:0], wrapHead...), v...), wrapTail...)
	*scratch = w
	r := line.Parse(w)
	if r.Verdict != line.Valid {
		return 0, nil, errNotMeasured
	}
	n := r.Cost - 1 - int64(len(wrapHead)+len(wrapTail))
	if !text {
		return n, nil, nil
	}
	out, err := line.AppendStringify(nil, w)
	if err != nil {
		return 0, nil, err
	}
	return n, out[len(wrapHead) : len(out)-len(wrapTail)], nil
}

// spanOf is the line.Span of s in l (UTF-16 columns as node decodes l).
func spanOf(l []byte, s span) line.Span {
	s.start, s.end = min(max(s.start, 0), len(l)), min(max(s.end, 0), len(l))
	if s.end < s.start {
		s.end = s.start
	}
	a := line.Width16(l[:s.start])
	return line.Span{Start: s.start, End: s.end, StartCol: a, EndCol: a + line.Width16(l[s.start:s.end])}
}

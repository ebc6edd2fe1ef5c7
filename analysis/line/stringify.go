package line

import (
	"bytes"
	"errors"
	"slices"
	"unicode/utf8"
)

// ErrNotValid is returned by AppendStringify for a line that is not a valid
// session message (Parse would not say Valid).
var ErrNotValid = errors.New("line: not a valid session message")

// ErrTooComplex is returned by AppendStringify when re-ordering the objects
// of a hostile message would cost more than a bounded amount of work (deeply
// nested objects that each carry duplicate or numeric keys).
var ErrTooComplex = errors.New("line: message too complex to write out (deeply nested objects with duplicate or numeric keys)")

// AppendStringify appends to dst exactly what JSON.stringify writes for the
// normalized message of b, a line that Parse judges Valid: the text whose
// UTF-16 length is Result.Cost - 1. It is UTF-8, and always valid UTF-8: a
// lone surrogate is written as the escape \udxxx, as JSON.stringify does.
//
// The message is rebuilt as the runtime holds it: top-level extra members
// dropped, members in the normalized order (role, content, then toolCalls,
// or toolCallId and isError), every string re-escaped, every number printed
// as JavaScript prints it, and in every object of toolCalls the members in
// JavaScript's own-property order: array-index keys ("0" to "4294967294")
// first in ascending order, then the other keys in order of first
// appearance, each with its last value.
//
// Unlike the runtime's JSON.stringify it does not recurse, so any nesting
// depth is written (node throws past a few thousand levels; see
// Result.Depth). For a line that is not valid it returns ErrNotValid (it
// may not notice every invalid line: call it on valid lines only). It
// never panics and does not retain b.
func AppendStringify(dst, b []byte) ([]byte, error) {
	w := stringifier{b: b, out: dst, base: len(dst)}
	if err := w.message(); err != nil {
		return dst, err
	}
	return w.out, nil
}

// stringifier writes one message; out grows as values are transcoded.
type stringifier struct {
	b    []byte
	out  []byte
	base int // len(dst) on entry
	// keys holds the decoded keys of the members of the open objects.
	keys []byte
	objs []openObj
	mems []wmember // members of the open objects, innermost last
	// work counts the bytes copied to re-order objects, bounded by
	// maxReorderWork so a hostile line cannot make the writer quadratic.
	work    int
	scratch []byte
}

// openObj is an object of toolCalls being written.
type openObj struct {
	start    int  // offset in out of its '{'
	memStart int  // its members are mems[memStart:]
	keyStart int  // its keys start at keys[keyStart:]
	reorder  bool // it has a duplicate key, or an array-index key out of place
	sawName  bool // it has a key that is not an array index
	lastIdx  int64
	index    map[string]int
}

// wmember is one member of an open object, as written to out: the text
// out[start:end] is `"key":value`, the value starting at val.
type wmember struct {
	start, val, end int
	keyOff, keyLen  int // the decoded key, in keys
	dup             bool
}

// maxReorderWork bounds the bytes copied while re-ordering objects, as a
// multiple of the line's length (plus a floor for short lines).
const maxReorderWork = 64

func (w *stringifier) skipWS(i int) int {
	for i < len(w.b) && isWS(w.b[i]) {
		i++
	}
	return i
}

// stringEnd returns the offset just past the string literal at b[i] ('"').
func (w *stringifier) stringEnd(i int) (int, error) {
	b := w.b
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, ErrNotValid
}

// valueEnd returns the offset just past the JSON value at b[i], without
// recursion (strings are skipped so that their brackets do not count).
func (w *stringifier) valueEnd(i int) (int, error) {
	b := w.b
	if i >= len(b) {
		return 0, ErrNotValid
	}
	switch b[i] {
	case '"':
		return w.stringEnd(i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := w.stringEnd(i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, ErrNotValid
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isWS(b[j]) {
		j++
	}
	if j == i {
		return 0, ErrNotValid
	}
	return j, nil
}

// decodeLit appends the JS value (WTF-8) of the string literal b[start:end].
func (w *stringifier) decodeLit(dst []byte, start, end int) []byte {
	return appendDecoded(dst, w.b[start+1:end-1])
}

// span is a value's extent in b.
type span struct{ start, end int }

// message writes the normalized message of the top-level object.
func (w *stringifier) message() error {
	b := w.b
	i := w.skipWS(0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotValid
	}
	var role, content, toolCalls, toolCallID, isError span
	i = w.skipWS(i + 1)
	if i < len(b) && b[i] == '}' {
		return ErrNotValid
	}
	var key []byte
	for {
		if i >= len(b) || b[i] != '"' {
			return ErrNotValid
		}
		kend, err := w.stringEnd(i)
		if err != nil {
			return err
		}
		key = w.decodeLit(key[:0], i, kend)
		i = w.skipWS(kend)
		if i >= len(b) || b[i] != ':' {
			return ErrNotValid
		}
		vstart := w.skipWS(i + 1)
		vend, err := w.valueEnd(vstart)
		if err != nil {
			return err
		}
		v := span{vstart, vend}
		switch string(key) {
		case "role":
			role = v
		case "content":
			content = v
		case "toolCalls":
			toolCalls = v
		case "toolCallId":
			toolCallID = v
		case "isError":
			isError = v
		}
		i = w.skipWS(vend)
		if i < len(b) && b[i] == ',' {
			i = w.skipWS(i + 1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			break
		}
		return ErrNotValid
	}
	if !w.isString(role) || !w.isString(content) {
		return ErrNotValid
	}
	r := w.decodeLit(nil, role.start, role.end)
	switch string(r) {
	case "user":
		w.out = append(w.out, `{"role":"user","content":`...)
		w.out = w.appendString(w.out, content)
	case "assistant":
		if toolCalls.end <= toolCalls.start || b[toolCalls.start] != '[' {
			return ErrNotValid
		}
		w.out = append(w.out, `{"role":"assistant","content":`...)
		w.out = w.appendString(w.out, content)
		w.out = append(w.out, `,"toolCalls":`...)
		if err := w.value(toolCalls); err != nil {
			return err
		}
	case "tool":
		if !w.isString(toolCallID) || isError.end <= isError.start {
			return ErrNotValid
		}
		lit := string(b[isError.start:isError.end])
		if lit != "true" && lit != "false" {
			return ErrNotValid
		}
		w.out = append(w.out, `{"role":"tool","content":`...)
		w.out = w.appendString(w.out, content)
		w.out = append(w.out, `,"toolCallId":`...)
		w.out = w.appendString(w.out, toolCallID)
		w.out = append(w.out, `,"isError":`...)
		w.out = append(w.out, lit...)
	default:
		return ErrNotValid
	}
	w.out = append(w.out, '}')
	return nil
}

func (w *stringifier) isString(s span) bool {
	return s.end-s.start >= 2 && w.b[s.start] == '"'
}

// appendString writes the string literal at s the way JSON.stringify
// writes its value.
func (w *stringifier) appendString(dst []byte, s span) []byte {
	return w.appendLiteral(dst, s.start, s.end)
}

// appendLiteral writes the string literal b[start:end] (with its quotes)
// the way JSON.stringify writes its value, copying what it would write
// unchanged: runs of valid UTF-8 (the literal holds no raw control
// character, quote or backslash: Parse checked it) and the escapes \" \\
// \b \f \n \r \t. The rest (\/, \u escapes, invalid UTF-8) is decoded and
// quoted again, as the decoded value would be.
func (w *stringifier) appendLiteral(dst []byte, start, end int) []byte {
	body := w.b[start+1 : end-1]
	dst = append(dst, '"')
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			i = len(body)
		}
		if run := body[:i]; utf8.Valid(run) {
			dst = append(dst, run...)
		} else {
			w.scratch = appendDecoded(w.scratch[:0], run)
			dst = appendQuotedBody(dst, w.scratch)
		}
		body = body[i:]
		if len(body) < 2 {
			break // a literal cannot end in a lone backslash
		}
		switch body[1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			dst = append(dst, body[:2]...)
			body = body[2:]
		case '/':
			dst = append(dst, '/')
			body = body[2:]
		default: // a run of \uXXXX escapes, decoded together so pairs join
			j := 0
			for j+6 <= len(body) && body[j] == '\\' && body[j+1] == 'u' {
				j += 6
			}
			if j == 0 {
				j = len(body) // not a valid literal: decode the rest as it is
			}
			w.scratch = appendDecoded(w.scratch[:0], body[:j])
			dst = appendQuotedBody(dst, w.scratch)
			body = body[j:]
		}
	}
	return append(dst, '"')
}

// appendQuoted writes the JS string s (WTF-8) as JSON.stringify does: `"`
// and `\` escaped, \b \f \n \r \t, other characters below U+0020 as \u00xx,
// lone surrogates as \udxxx (lowercase hex), everything else literal.
func appendQuoted(dst, s []byte) []byte {
	dst = append(dst, '"')
	dst = appendQuotedBody(dst, s)
	return append(dst, '"')
}

// appendQuotedBody is appendQuoted without the quotes.
func appendQuotedBody(dst, s []byte) []byte {
	const hx = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c < 0x20:
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hx[c>>4], hx[c&15])
			i++
			start = i
			continue
		case c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0:
			// A lone surrogate, held as its generalized 3-byte form.
			u := 0xD000 | int(s[i+1]&0x3F)<<6 | int(s[i+2]&0x3F)
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hx[u>>12], hx[u>>8&15], hx[u>>4&15], hx[u&15])
			i += 3
			start = i
			continue
		default:
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		i++
		start = i
	}
	return append(dst, s[start:]...)
}

// containers on the stack: object or array, and whether it has a member yet.
type frame struct {
	obj   bool
	empty bool
}

// value transcodes the JSON value at s (inside toolCalls) to out, with an
// explicit stack instead of recursion.
func (w *stringifier) value(s span) error {
	b := w.b[:s.end]
	var stack []frame
	i := s.start
	limit := maxReorderWork*len(w.b) + 1<<16
	for {
		// A value starts at b[i].
		i = w.skipWS(i)
		if i >= len(b) {
			return ErrNotValid
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			obj := c == '{'
			if obj {
				w.objs = append(w.objs, openObj{start: len(w.out), memStart: len(w.mems), keyStart: len(w.keys), lastIdx: -1})
			}
			w.out = append(w.out, c)
			stack = append(stack, frame{obj: obj, empty: true})
			i = w.skipWS(i + 1)
			if i < len(b) && (obj && b[i] == '}' || !obj && b[i] == ']') {
				// Empty container: closed below.
			} else if obj {
				var err error
				if i, err = w.key(i, &stack[len(stack)-1]); err != nil {
					return err
				}
				continue
			} else {
				stack[len(stack)-1].empty = false
				continue
			}
		case c == '"':
			end, err := w.stringEnd(i)
			if err != nil || end > len(b) {
				return ErrNotValid
			}
			w.out = w.appendLiteral(w.out, i, end)
			i = end
		case c == 't' || c == 'f' || c == 'n':
			lit := "true"
			if c == 'f' {
				lit = "false"
			} else if c == 'n' {
				lit = "null"
			}
			if i+len(lit) > len(b) || string(b[i:i+len(lit)]) != lit {
				return ErrNotValid
			}
			w.out = append(w.out, lit...)
			i += len(lit)
		default:
			j := i
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
				j++
			}
			if j == i {
				return ErrNotValid
			}
			w.out = appendNumber(w.out, b[i:j])
			i = j
		}
		// A value ended (or an empty container is about to close): close
		// containers and move to the next value.
		for {
			if len(stack) == 0 {
				// valueEnd ended the span at the value's last byte.
				if i != len(b) {
					return ErrNotValid
				}
				return nil
			}
			top := &stack[len(stack)-1]
			if top.obj && !top.empty {
				w.mems[len(w.mems)-1].end = len(w.out)
			}
			i = w.skipWS(i)
			if i >= len(b) {
				return ErrNotValid
			}
			if b[i] == ',' && !top.empty {
				w.out = append(w.out, ',')
				i++
				if top.obj {
					var err error
					if i, err = w.key(w.skipWS(i), top); err != nil {
						return err
					}
				}
				break
			}
			if top.obj && b[i] == '}' || !top.obj && b[i] == ']' {
				if top.obj {
					if err := w.closeObject(limit); err != nil {
						return err
					}
				} else {
					w.out = append(w.out, ']')
				}
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return ErrNotValid
		}
	}
}

// key reads the member key at b[i] of the innermost open object, writes
// `"key":` and returns the offset of its value.
func (w *stringifier) key(i int, f *frame) (int, error) {
	b := w.b
	if i >= len(b) || b[i] != '"' {
		return 0, ErrNotValid
	}
	end, err := w.stringEnd(i)
	if err != nil {
		return 0, err
	}
	o := &w.objs[len(w.objs)-1]
	off := len(w.keys)
	w.keys = w.decodeLit(w.keys, i, end)
	k := w.keys[off:]
	m := wmember{start: len(w.out), keyOff: off, keyLen: len(k)}
	// Array-index keys go first, ascending: written as they come, the
	// object needs re-ordering only when one comes after another key or
	// after a larger index.
	if idx, ok := arrayIndex(k); !ok {
		o.sawName = true
	} else if o.sawName || int64(idx) <= o.lastIdx {
		o.reorder = true
	} else {
		o.lastIdx = int64(idx)
	}
	n := len(w.mems) - o.memStart
	switch {
	case o.index != nil:
		if _, ok := o.index[string(k)]; ok {
			m.dup, o.reorder = true, true
		} else {
			o.index[string(k)] = n
		}
	default:
		for j := o.memStart; j < len(w.mems); j++ {
			p := &w.mems[j]
			if string(w.keys[p.keyOff:p.keyOff+p.keyLen]) == string(k) {
				m.dup, o.reorder = true, true
				break
			}
		}
		if n >= indexThreshold {
			o.index = make(map[string]int, 2*n)
			for j := o.memStart; j < len(w.mems); j++ {
				p := &w.mems[j]
				if _, ok := o.index[string(w.keys[p.keyOff:p.keyOff+p.keyLen])]; !ok {
					o.index[string(w.keys[p.keyOff:p.keyOff+p.keyLen])] = j - o.memStart
				}
			}
			if !m.dup {
				o.index[string(k)] = n
			}
		}
	}
	w.out = appendQuoted(w.out, k)
	w.out = append(w.out, ':')
	m.val = len(w.out)
	w.mems = append(w.mems, m)
	f.empty = false
	i = w.skipWS(end)
	if i >= len(b) || b[i] != ':' {
		return 0, ErrNotValid
	}
	return i + 1, nil
}

// closeObject writes the '}' of the innermost open object, first re-ordering
// its members when it has duplicate or array-index keys.
func (w *stringifier) closeObject(limit int) error {
	o := w.objs[len(w.objs)-1]
	mems := w.mems[o.memStart:]
	if o.reorder {
		w.work += len(w.out) - o.start
		if w.work > limit {
			return ErrTooComplex
		}
		// The members to write: one per distinct key, at its first
		// position with its last value.
		type slot struct {
			first, last int // indexes into mems
			index       uint32
			isIndex     bool
		}
		var slots []slot
		pos := make(map[string]int, len(mems))
		for j := range mems {
			k := string(w.keys[mems[j].keyOff : mems[j].keyOff+mems[j].keyLen])
			if p, ok := pos[k]; ok {
				slots[p].last = j
				continue
			}
			pos[k] = len(slots)
			idx, isIdx := arrayIndex([]byte(k))
			slots = append(slots, slot{first: j, last: j, index: idx, isIndex: isIdx})
		}
		slices.SortStableFunc(slots, func(a, b slot) int {
			switch {
			case a.isIndex && b.isIndex:
				if a.index < b.index {
					return -1
				}
				if a.index > b.index {
					return 1
				}
				return 0
			case a.isIndex:
				return -1
			case b.isIndex:
				return 1
			}
			return 0
		})
		text := append(w.scratch[:0], w.out[o.start:]...)
		w.scratch = text
		w.out = append(w.out[:o.start], '{')
		for n, s := range slots {
			if n > 0 {
				w.out = append(w.out, ',')
			}
			f, l := mems[s.first], mems[s.last]
			w.out = append(w.out, text[f.start-o.start:f.val-o.start]...)
			w.out = append(w.out, text[l.val-o.start:l.end-o.start]...)
		}
	}
	w.out = append(w.out, '}')
	w.mems = w.mems[:o.memStart]
	w.keys = w.keys[:o.keyStart]
	w.objs = w.objs[:len(w.objs)-1]
	return nil
}

// arrayIndex reports whether the key k (WTF-8) is an array index, a
// canonical decimal integer from 0 to 2^32-2, which JavaScript orders
// before every other key of an object.
func arrayIndex(k []byte) (uint32, bool) {
	if len(k) == 0 || len(k) > 10 || len(k) > 1 && k[0] == '0' {
		return 0, false
	}
	var v uint64
	for _, c := range k {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if v > 1<<32-2 {
		return 0, false
	}
	return uint32(v), true
}

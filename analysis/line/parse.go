package line

import (
	"encoding/binary"
	"math/bits"
)

// Parse decides what the runtime makes of one line (without its '\n').
// It never panics, never recurses on nesting depth, keeps no state between
// calls (safe for concurrent use) and does not retain b. An empty b, which
// the runtime skips and callers should too, is reported as invalid JSON
// ("empty line").
//
// It is a single pass that validates JSON.parse's grammar with an explicit
// stack (one bit per nesting level outside the kept message), checks the
// record rules of parseSessionMessage, and measures the length of
// JSON.stringify of the normalized message without building it.
func Parse(b []byte) Result {
	var p parser
	p.b = b
	p.run()
	return p.result()
}

// Value kinds, as the record rules see them.
type kind uint8

const (
	kNone kind = iota // member absent
	kString
	kNumber
	kTrue
	kFalse
	kNull
	kObject
	kArray
)

func (k kind) jsType() string {
	switch k {
	case kString:
		return "string"
	case kNumber:
		return "number"
	case kTrue, kFalse:
		return "boolean"
	case kNull:
		return "null"
	case kArray:
		return "array"
	}
	return "object"
}

// Which top-level or toolCalls-element member a key names.
const (
	keyOther uint8 = iota
	keyRole
	keyContent
	keyToolCalls
	keyToolCallID
	keyIsError
	keyID
	keyName
	keyInput
)

// String literal flags.
const (
	fEscape  uint8 = 1 << iota // has a backslash escape
	fInvalid                   // has an invalid UTF-8 sequence (decodes to U+FFFD)
)

// member is what the record rules need about one (last) occurrence of a
// member: the kind of its value, the member span (key through value), and
// for a string the literal span, its stringify cost and flags.
type member struct {
	kind   kind
	flags  uint8
	span   Span // key start .. value end
	lit    Span // the value's string literal, quotes included
	cost   int  // JSON.stringify length of the value (strings only)
	isTrue bool
}

// keyEntry is one distinct key of an object of the kept message, for the
// duplicate-key collapsing JSON.parse does (last value wins).
type keyEntry struct {
	off, n int // the decoded key: b[off:off+n], or arena[^off:^off+n] when off < 0
	cost   int // stringify length of the member ("key":value)
	dup    int // while pending: index of the earlier entry with this key, or -1
}

// objFrame is an open object of the kept message.
type objFrame struct {
	keyStart int            // its entries are keys[keyStart:]
	index    map[string]int // key → entry index, once the object has many keys
}

// jsonError is the first JSON.parse failure.
type jsonError struct {
	reason     string
	start, end int
}

type parser struct {
	b   []byte
	adj int // len(b[:i]) - UTF-16 width of b[:i], accumulated inside strings

	// Nesting: one bit per open container (1 = object), depth = open count.
	low   uint64   // levels 0..63
	bits  []uint64 // levels 64 and deeper, 64 a word
	depth int

	err *jsonError

	// The top-level value.
	top      kind
	topStart int
	topSpan  Span

	// Top-level members (last occurrence wins).
	role, content, toolCalls, toolCallID, isError member
	topKey                                        uint8 // key of the member being parsed
	topKeyStart, topKeyCol                        int

	// The kept toolCalls array: measured while tcActive.
	tcActive    bool
	tcCostStart int
	tcCost      int
	cost        int // running stringify length of everything measured
	maxDepth    int // deepest nesting inside the current toolCalls
	keys        []keyEntry
	objs        []objFrame
	arena       []byte
	scratch     []byte

	// The current toolCalls element and the first failing one.
	elemIdx                  int
	elemStart, elemCol       int
	elemKey                  uint8
	elemKeyStart, elemKeyCol int
	id, name                 member
	hasInput                 bool
	elemErr                  string
	elemErrSpan              Span
	// The valid calls so far: decoded ids and names are appended to names,
	// and turned into strings with one allocation at the end.
	calls []callRef
	names []byte
}

// States of the scanner.
const (
	stValue = iota // expecting a value
	stAfter        // after a value: ',', a close bracket, or the end
	stKey          // expecting a member key
)

func (p *parser) isObj() bool {
	d := p.depth - 1
	if d < 64 {
		return p.low>>uint(d)&1 == 1
	}
	return p.bits[d>>6-1]>>(uint(d)&63)&1 == 1
}

func (p *parser) push(obj bool) {
	d := p.depth
	w := &p.low
	if d >= 64 {
		if d>>6-1 >= len(p.bits) {
			p.bits = append(p.bits, 0)
		}
		w = &p.bits[d>>6-1]
	}
	if obj {
		*w |= 1 << (uint(d) & 63)
	} else {
		*w &^= 1 << (uint(d) & 63)
	}
	p.depth++
	if p.tcActive && p.depth > p.maxDepth {
		p.maxDepth = p.depth
	}
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (p *parser) skipWS(i int) int {
	b := p.b
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

func (p *parser) fail(reason string, start, end int) {
	if p.err == nil {
		p.err = &jsonError{reason: reason, start: start, end: end}
	}
}

// unexpected reports the character at b[i] (or the end of the line).
func (p *parser) unexpected(i int) {
	b := p.b
	switch {
	case i >= len(b):
		p.fail("unexpected end of line", len(b), len(b))
	case b[i] >= 0x80:
		if p.depth == 0 && p.top == kNone && i+3 <= len(b) && b[i] == 0xEF && b[i+1] == 0xBB && b[i+2] == 0xBF {
			p.fail("byte order mark (U+FEFF) before the JSON value", i, i+3)
			return
		}
		p.fail("invalid UTF-8 / non-ASCII character outside a string", i, i+charLen(b, i))
	default:
		p.fail("unexpected character "+describeASCII(b[i]), i, i+1)
	}
}

func describeASCII(c byte) string {
	const hx = "0123456789ABCDEF"
	switch {
	case c == '"':
		return `'"'`
	case c < 0x20 || c == 0x7F:
		return "U+00" + string([]byte{hx[c>>4], hx[c&15]})
	}
	return `"` + string(c) + `"`
}

// run scans the whole line once.
func (p *parser) run() {
	b := p.b
	n := len(b)
	if n == 0 {
		p.fail("empty line", 0, 0)
		return
	}
	i := p.skipWS(0)
	if i == n {
		p.fail("blank line (only whitespace)", 0, n)
		return
	}
	state := stValue
	for {
		switch state {
		case stValue:
			i = p.skipWS(i)
			if i >= n {
				p.unexpected(i)
				return
			}
			c := b[i]
			switch c {
			case '{', '[':
				obj := c == '{'
				p.openValue(i, obj)
				p.push(obj)
				if p.tcActive {
					p.cost++
					if obj && p.depth <= dedupDepth {
						if p.objs == nil {
							p.objs = make([]objFrame, 0, 8)
							p.keys = make([]keyEntry, 0, 16)
						}
						p.objs = append(p.objs, objFrame{keyStart: len(p.keys)})
					}
				}
				i = p.skipWS(i + 1)
				switch {
				case i < n && (b[i] == '}' && obj || b[i] == ']' && !obj):
					i = p.close(i)
					state = stAfter
				case obj:
					state = stKey
				default:
					state = stValue
				}
			case '"':
				adj0 := p.adj
				end, cost, flags := p.scanString(i)
				if p.err != nil {
					return
				}
				p.scalar(kString, i, i-adj0, end, cost, flags)
				i = end
				state = stAfter
			case 't', 'f', 'n':
				lit, k := "true", kTrue
				if c == 'f' {
					lit, k = "false", kFalse
				} else if c == 'n' {
					lit, k = "null", kNull
				}
				for j := 1; j < len(lit); j++ {
					if i+j >= n || b[i+j] != lit[j] {
						p.unexpected(i + j)
						return
					}
				}
				p.scalar(k, i, i-p.adj, i+len(lit), len(lit), 0)
				i += len(lit)
				state = stAfter
			default:
				if c != '-' && (c < '0' || c > '9') {
					p.unexpected(i)
					return
				}
				end := p.scanNumber(i)
				if p.err != nil {
					return
				}
				cost := 0
				if p.tcActive {
					cost = numberCost(b[i:end])
				}
				p.scalar(kNumber, i, i-p.adj, end, cost, 0)
				i = end
				state = stAfter
			}
		case stAfter:
			i = p.skipWS(i)
			if p.depth == 0 {
				if i < n {
					p.fail("unexpected content after the JSON value", i, i+charLen(b, i))
				}
				return
			}
			if i >= n {
				p.unexpected(i)
				return
			}
			c := b[i]
			obj := p.isObj()
			switch {
			case c == ',':
				if p.tcActive {
					p.cost++
				}
				i++
				if obj {
					state = stKey
				} else {
					state = stValue
				}
			case c == '}' && obj, c == ']' && !obj:
				i = p.close(i)
			default:
				p.unexpected(i)
				return
			}
		case stKey:
			i = p.skipWS(i)
			if i >= n || b[i] != '"' {
				p.unexpected(i)
				return
			}
			adj0 := p.adj
			end, cost, flags := p.scanString(i)
			if p.err != nil {
				return
			}
			p.key(i, i-adj0, end, cost, flags)
			i = p.skipWS(end)
			if i >= n || b[i] != ':' {
				p.unexpected(i)
				return
			}
			if p.tcActive {
				p.cost++
			}
			i++
			state = stValue
		}
	}
}

// openValue is called when a container value starts at b[i].
func (p *parser) openValue(i int, obj bool) {
	switch {
	case p.depth == 0:
		p.topStart = i
		p.top = kArray
		if obj {
			p.top = kObject
		}
	case p.depth == 1 && p.top == kObject:
		if p.topKey == keyToolCalls && !obj {
			// A later toolCalls array replaces any earlier one.
			p.tcActive = true
			p.tcCostStart = p.cost
			p.maxDepth = 0
			p.elemIdx = 0
			p.elemErr = ""
			p.calls = p.calls[:0]
			p.names = p.names[:0]
		}
	case p.depth == 2 && p.tcActive:
		p.elemStart, p.elemCol = i, i-p.adj
		if obj {
			p.id, p.name, p.hasInput = member{}, member{}, false
		}
	}
}

// close handles the close bracket at b[i] and returns the next offset.
func (p *parser) close(i int) int {
	obj := p.isObj()
	if p.tcActive {
		p.cost++
		if obj && p.depth <= dedupDepth {
			f := p.objs[len(p.objs)-1]
			p.keys = p.keys[:f.keyStart]
			p.objs = p.objs[:len(p.objs)-1]
		}
	}
	p.depth--
	k := kArray
	if obj {
		k = kObject
	}
	if p.tcActive && p.depth == 1 {
		p.tcActive = false
		p.tcCost = p.cost - p.tcCostStart
	}
	p.valueDone(k, i+1, 0, 0, Span{})
	return i + 1
}

// scalar is called for a string, number or literal at b[start:end];
// startCol is its column, p.adj is already past it.
func (p *parser) scalar(k kind, start, startCol, end, cost int, flags uint8) {
	switch {
	case p.depth == 0:
		p.top = k
		p.topStart = start
	case p.depth == 2 && p.tcActive:
		p.elemStart, p.elemCol = start, startCol
	}
	if p.tcActive {
		p.cost += cost
	}
	var lit Span
	if k == kString {
		lit = mkSpan(start, startCol, end, end-p.adj)
	}
	p.valueDone(k, end, cost, flags, lit)
}

// mkSpan makes a Span from byte offsets and their columns.
func mkSpan(start, startCol, end, endCol int) Span {
	return Span{Start: start, End: end, StartCol: startCol, EndCol: endCol}
}

// valueDone is called when a value of kind k ends at offset end; for a
// string, cost is its stringify length and lit its literal's span.
func (p *parser) valueDone(k kind, end, cost int, flags uint8, lit Span) {
	endCol := end - p.adj
	d := p.depth
	if d == 0 {
		// Only ASCII whitespace precedes the value, so its column is its offset.
		p.topSpan = mkSpan(p.topStart, p.topStart, end, endCol)
		return
	}
	if d == 1 {
		if p.top != kObject {
			return
		}
		m := member{kind: k, flags: flags, span: mkSpan(p.topKeyStart, p.topKeyCol, end, endCol), lit: lit, cost: cost, isTrue: k == kTrue}
		switch p.topKey {
		case keyRole:
			p.role = m
		case keyContent:
			p.content = m
		case keyToolCalls:
			p.toolCalls = m
		case keyToolCallID:
			p.toolCallID = m
		case keyIsError:
			p.isError = m
		}
		return
	}
	if !p.tcActive {
		return
	}
	if d == 2 {
		p.elementDone(k, end, endCol)
		return
	}
	if !p.isObj() {
		return
	}
	if d == 3 {
		switch p.elemKey {
		case keyID:
			p.id = member{kind: k, flags: flags, span: mkSpan(p.elemKeyStart, p.elemKeyCol, end, endCol), lit: lit}
		case keyName:
			p.name = member{kind: k, flags: flags, span: mkSpan(p.elemKeyStart, p.elemKeyCol, end, endCol), lit: lit}
		case keyInput:
			p.hasInput = true
		}
	}
	if d <= dedupDepth {
		p.memberDone()
	}
}

// elementDone checks one toolCalls element, in the order calls() does.
func (p *parser) elementDone(k kind, end, endCol int) {
	idx := p.elemIdx
	p.elemIdx++
	if p.elemErr != "" {
		return
	}
	whole := mkSpan(p.elemStart, p.elemCol, end, endCol)
	at := func(m member) Span {
		if m.kind == kNone {
			return whole
		}
		return m.span
	}
	// The prefix is built only for a failing element: valid ones are the
	// common case and should not allocate.
	prefix := func() string { return "toolCalls[" + itoa(idx) + "]" }
	switch {
	case k != kObject:
		p.elemErr, p.elemErrSpan = prefix()+" must be an object", whole
	case p.id.kind != kString:
		p.elemErr, p.elemErrSpan = prefix()+".id must be a string", at(p.id)
	case p.name.kind != kString:
		p.elemErr, p.elemErrSpan = prefix()+".name must be a string", at(p.name)
	case !p.hasInput:
		p.elemErr, p.elemErrSpan = prefix()+" requires an input member", whole
	default:
		if p.calls == nil {
			p.calls = make([]callRef, 0, 4)
			p.names = make([]byte, 0, 64)
		}
		c := callRef{idSpan: p.id.lit, idStart: len(p.names)}
		p.names = p.appendString(p.names, p.id.lit, p.id.flags)
		c.nameStart = len(p.names)
		p.names = p.appendString(p.names, p.name.lit, p.name.flags)
		c.nameEnd = len(p.names)
		p.calls = append(p.calls, c)
	}
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return string(buf[i:])
}

// callRef is a valid call whose id is names[idStart:nameStart] and whose
// name is names[nameStart:nameEnd].
type callRef struct {
	idSpan                      Span
	idStart, nameStart, nameEnd int
}

// appendString appends the JS value of the string literal at lit as WTF-8.
func (p *parser) appendString(dst []byte, lit Span, flags uint8) []byte {
	body := p.b[lit.Start+1 : lit.End-1]
	if flags == 0 {
		return append(dst, body...)
	}
	return appendDecoded(dst, body)
}

// decode returns the JS value of the string literal at lit, as WTF-8.
func (p *parser) decode(lit Span, flags uint8) string {
	body := p.b[lit.Start+1 : lit.End-1]
	if flags == 0 {
		return string(body)
	}
	return string(appendDecoded(nil, body))
}

// keyBytes returns the decoded key of an entry.
func (p *parser) keyBytes(e *keyEntry) []byte {
	if e.off >= 0 {
		return p.b[e.off : e.off+e.n]
	}
	o := ^e.off
	return p.arena[o : o+e.n]
}

// dedupDepth bounds the nesting depth at which objects of the kept message
// get their duplicate keys collapsed, so that memory stays at one bit per
// level however deep a hostile line nests. Deeper than this, a duplicate key
// would be counted twice; but node's JSON.stringify overflows its stack
// thousands of levels earlier, so the runtime cannot measure such a message
// at all (see Result.Depth).
const dedupDepth = 10000

// indexThreshold is the number of keys after which an object of the kept
// message gets a map, so that duplicate detection stays linear overall.
const indexThreshold = 16

// key is called for a member key, the literal b[start:end].
func (p *parser) key(start, startCol, end, cost int, flags uint8) {
	d := p.depth
	body := p.b[start+1 : end-1]
	if d == 1 {
		if p.top == kObject {
			p.topKey = p.classify(body, flags, true)
			p.topKeyStart, p.topKeyCol = start, startCol
		}
		return
	}
	if !p.tcActive {
		return
	}
	if d > dedupDepth {
		p.cost += cost
		return
	}
	// A member of an object of the kept message: find an earlier member
	// with the same key, whose length the new one will replace.
	e := keyEntry{off: start + 1, n: len(body), cost: p.cost, dup: -1}
	kb := body
	if flags != 0 {
		o := len(p.arena)
		p.arena = appendDecoded(p.arena, body)
		kb = p.arena[o:]
		e.off, e.n = ^o, len(kb)
	}
	f := &p.objs[len(p.objs)-1]
	if f.index != nil {
		if j, ok := f.index[string(kb)]; ok {
			e.dup = j
		}
	} else {
		for j := f.keyStart; j < len(p.keys); j++ {
			if string(p.keyBytes(&p.keys[j])) == string(kb) {
				e.dup = j
				break
			}
		}
	}
	p.keys = append(p.keys, e)
	p.cost += cost
	if d == 3 {
		p.elemKey = p.classify(body, flags, false)
		p.elemKeyStart, p.elemKeyCol = start, startCol
	}
}

// memberDone finishes the member of a kept object whose value just ended.
func (p *parser) memberDone() {
	last := len(p.keys) - 1
	e := &p.keys[last]
	memberCost := p.cost - e.cost
	f := &p.objs[len(p.objs)-1]
	if e.dup >= 0 {
		// JSON.parse keeps one member per key, with the last value.
		prev := &p.keys[e.dup]
		p.cost -= prev.cost + 1 // its member and one comma
		prev.cost = memberCost
		if e.off < 0 {
			p.arena = p.arena[:^e.off]
		}
		p.keys = p.keys[:last]
		return
	}
	e.cost, e.dup = memberCost, -1
	count := len(p.keys) - f.keyStart
	switch {
	case f.index != nil:
		f.index[string(p.keyBytes(e))] = last
	case count > indexThreshold:
		f.index = make(map[string]int, 2*count)
		for j := f.keyStart; j < len(p.keys); j++ {
			f.index[string(p.keyBytes(&p.keys[j]))] = j
		}
	}
}

// classify tells which member a key names (top level or toolCalls element).
func (p *parser) classify(body []byte, flags uint8, top bool) uint8 {
	if flags != 0 {
		p.scratch = appendDecoded(p.scratch[:0], body)
		body = p.scratch
	}
	if top {
		switch string(body) {
		case "role":
			return keyRole
		case "content":
			return keyContent
		case "toolCalls":
			return keyToolCalls
		case "toolCallId":
			return keyToolCallID
		case "isError":
			return keyIsError
		}
		return keyOther
	}
	switch string(body) {
	case "id":
		return keyID
	case "name":
		return keyName
	case "input":
		return keyInput
	}
	return keyOther
}

// scanNumber validates the number literal at b[i] and returns its end.
func (p *parser) scanNumber(i int) int {
	b := p.b
	n := len(b)
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= n:
		p.unexpected(i)
		return i
	case b[i] == '0':
		if i+1 < n && b[i+1] >= '0' && b[i+1] <= '9' {
			p.fail("leading zero in number", i+1, i+2) // the digit after the zero, as V8
			return i
		}
		i++
	case b[i] >= '1' && b[i] <= '9':
		i++
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		p.unexpected(i)
		return i
	}
	if i < n && b[i] == '.' {
		i++
		if i >= n || b[i] < '0' || b[i] > '9' {
			p.unexpected(i)
			return i
		}
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= n || b[i] < '0' || b[i] > '9' {
			p.unexpected(i)
			return i
		}
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special reports, in the high bit of each byte, the bytes of x (eight
// bytes, little-endian) that a string scan must stop at: < 0x20, '"', '\\'
// or >= 0x80. A bit may be falsely set only above a truly set one, so the
// lowest set bit is exact.
func special(x uint64) uint64 {
	ctl := (x - 0x20*lsb) &^ x
	q := x ^ '"'*lsb
	q = (q - lsb) &^ q
	bs := x ^ '\\'*lsb
	bs = (bs - lsb) &^ bs
	return (ctl | q | bs | x) & msb
}

// stop marks the bytes that end a run of plain string characters.
var stop = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80
	}
	return t
}()

// escCost is the length JSON.stringify gives to code unit u.
func escCost(u int) int {
	switch {
	case u == '"' || u == '\\' || u == '\b' || u == '\f' || u == '\n' || u == '\r' || u == '\t':
		return 2
	case u < 0x20 || u >= 0xD800 && u <= 0xDFFF:
		return 6
	}
	return 1
}

// scanString validates the string literal starting with the quote at
// b[start] and returns the offset after its closing quote, the length
// JSON.stringify gives its value, and its flags. It adds the literal's
// UTF-16 width adjustment to p.adj.
func (p *parser) scanString(start int) (end, cost int, flags uint8) {
	b := p.b
	n := len(b)
	i := start + 1
	wadj := 0 // raw bytes minus UTF-16 units of the raw text
	eadj := 0 // raw escape bytes minus their stringified units
	// Short strings (keys, ids, small values) end within a few words, so
	// the byte-wise scanner starts; blocks take over in long strings.
	slowUntil := i + 24
	for {
		// Block mode: 64 bytes at a time, escapes found by bit tricks so
		// that a dense run of \n \t \" costs no mispredicted branches.
		// It hands over to the byte-wise scanner below at anything else.
		if i >= slowUntil && i+64 < n {
			next, st, d, w, f := scanBlocks(b, i)
			eadj += d
			wadj += w
			flags |= f
			i = next
			switch st {
			case blockEnd:
				p.adj += wadj
				return next + 1, next + 1 - start - wadj - eadj, flags
			case blockSlow:
				// The byte-wise scanner reports the error there.
				slowUntil = next + 8
			}
		}
		// Find the next byte that is not a plain character: eight at a
		// time while eight remain, then one at a time.
		if i+8 <= n {
			m := special(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < n && !stop[b[i]] {
				i++
			}
			if i >= n {
				p.fail("unexpected end of line: unterminated string", start, n)
				return n, 0, flags
			}
		}
		c := b[i]
		if c == '\\' {
			flags |= fEscape
			if i+1 >= n {
				p.fail("unexpected end of line: unterminated string", start, n)
				return n, 0, flags
			}
			switch escClass[b[i+1]] {
			case escSame:
				i += 2
				continue
			case escSlash:
				eadj++
				i += 2
				continue
			case escU:
				u, ok := hex4(b, i+2)
				if !ok {
					j := i + 2
					for j < n && j < i+6 && hexVal(b[j]) >= 0 {
						j++
					}
					if j >= n {
						p.fail("unexpected end of line: unterminated string", start, n)
					} else {
						// Like V8, point at the first character that is not hex.
						p.fail(`bad \u escape`, j, j+charLen(b, j))
					}
					return n, 0, flags
				}
				if u >= 0xD800 && u < 0xDC00 && i+12 <= n && b[i+6] == '\\' && b[i+7] == 'u' {
					if w, ok := hex4(b, i+8); ok && w >= 0xDC00 && w <= 0xDFFF {
						eadj += 10 // twelve bytes, one astral character: two units
						i += 12
						continue
					}
				}
				eadj += 6 - escCost(u)
				i += 6
				continue
			}
			p.fail(badEscape(b, i+1), i+1, i+1+charLen(b, i+1)) // the character after the backslash, as V8
			return n, 0, flags
		}
		if c == '"' {
			p.adj += wadj
			return i + 1, i + 1 - start - wadj - eadj, flags
		}
		if c < 0x20 {
			p.fail("control character U+00"+string([]byte{"0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15]})+" in string", i, i+1)
			return n, 0, flags
		}
		// Non-ASCII: decode the run here, the way readFile does.
		end, w, invalid := decodeRun(b, i)
		wadj += w
		if invalid {
			flags |= fInvalid
		}
		i = end
	}
}

// Results of scanBlocks and blockEvents.
const (
	blockEnd  = iota // the closing quote is at next
	blockMore        // continue at next
	blockSlow        // scan from next byte-wise (non-ASCII, control, bad escape)
)

const (
	oddBits = 0xAAAAAAAAAAAAAAAA
	low7    = 0x7F7F7F7F7F7F7F7F
	magic   = 0x0102040810204080 // times the low bit of each byte, gathers them into the top byte
)

// blockMasks returns, bit k for byte k of the 64 bytes, the backslashes and
// the quotes and control characters, and a word whose high bits are set if
// any byte is non-ASCII; when it is not zero, the bits of the non-ASCII
// bytes in the two masks are arbitrary and must be cleared. Unrolled, so every shift is a constant; the masks
// are gathered inverted, which saves a NOT per word.
func blockMasks(blk *[64]byte) (bs, stop, hi uint64) {
	x := binary.LittleEndian.Uint64(blk[0:8])
	nb, ns := wordMasks(x)
	hi = x
	x = binary.LittleEndian.Uint64(blk[8:16])
	b, s := wordMasks(x)
	nb, ns, hi = nb|b<<8, ns|s<<8, hi|x
	x = binary.LittleEndian.Uint64(blk[16:24])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<16, ns|s<<16, hi|x
	x = binary.LittleEndian.Uint64(blk[24:32])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<24, ns|s<<24, hi|x
	x = binary.LittleEndian.Uint64(blk[32:40])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<32, ns|s<<32, hi|x
	x = binary.LittleEndian.Uint64(blk[40:48])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<40, ns|s<<40, hi|x
	x = binary.LittleEndian.Uint64(blk[48:56])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<48, ns|s<<48, hi|x
	x = binary.LittleEndian.Uint64(blk[56:64])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<56, ns|s<<56, hi|x
	return ^nb, ^ns, hi & msb
}

// allMasksGeneric is allMasks in portable Go: blockMasks, and for a block
// with non-ASCII bytes their masks, which also clear the arbitrary bits of
// those bytes.
func allMasksGeneric(blk *[64]byte) (bs, stop, na, leads uint64) {
	bs, stop, hi := blockMasks(blk)
	if hi != 0 {
		na, leads = nonASCIIMasks(blk)
		bs &^= na
		stop &^= na
	}
	return bs, stop, na, leads
}

// wordMasks has bit k set for each byte k of x that is NOT a backslash
// (nb), and for each that is NOT a quote or a control character (ns),
// exactly for the ASCII bytes; the bits of non-ASCII bytes are arbitrary
// (callers clear them when a block has such bytes), which saves two
// operations per word. No carry crosses bytes.
func wordMasks(x uint64) (nb, ns uint64) {
	x7 := x & low7
	// A byte is a backslash when its seven bits are 0x5C: adding 0x7F to
	// the difference sets the high bit otherwise.
	nb = ((x7 ^ '\\'*lsb) + low7) & msb
	// x^2 maps '"' to 0x20 and keeps control characters below 0x20, so
	// one comparison (< 0x21, by adding 0x5F) finds both.
	ns = ((x7 ^ 0x02*lsb) + 0x5F*lsb) & msb
	// magic>>7 gathers the high bits as magic gathers the low ones.
	return nb * (magic >> 7) >> 56, ns * (magic >> 7) >> 56
}

// nonASCIIMasks has bit k set for each byte k of the block that is >= 0x80
// (na), and for each that is >= 0xC0 (leads: not a continuation byte).
// Each word's high bits are packed into one bit column of an 8x8 bit
// matrix (byte j of word k at bit 8j+k), transposed at the end.
func nonASCIIMasks(blk *[64]byte) (na, leads uint64) {
	x := binary.LittleEndian.Uint64(blk[0:8])
	na, leads = x&msb>>7, x&(x<<1)&msb>>7
	x = binary.LittleEndian.Uint64(blk[8:16])
	na, leads = na|x&msb>>6, leads|x&(x<<1)&msb>>6
	x = binary.LittleEndian.Uint64(blk[16:24])
	na, leads = na|x&msb>>5, leads|x&(x<<1)&msb>>5
	x = binary.LittleEndian.Uint64(blk[24:32])
	na, leads = na|x&msb>>4, leads|x&(x<<1)&msb>>4
	x = binary.LittleEndian.Uint64(blk[32:40])
	na, leads = na|x&msb>>3, leads|x&(x<<1)&msb>>3
	x = binary.LittleEndian.Uint64(blk[40:48])
	na, leads = na|x&msb>>2, leads|x&(x<<1)&msb>>2
	x = binary.LittleEndian.Uint64(blk[48:56])
	na, leads = na|x&msb>>1, leads|x&(x<<1)&msb>>1
	x = binary.LittleEndian.Uint64(blk[56:64])
	na, leads = na|x&msb, leads|x&(x<<1)&msb
	return transpose8(na), transpose8(leads)
}

// transpose8 transposes the 8x8 bit matrix whose row j is byte j of x
// (Hacker's Delight, 7-3): bit 8j+k moves to bit 8k+j.
func transpose8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	return x ^ t ^ t<<28
}

// escAdj is, for the byte after an escaping backslash, how much shorter
// JSON.stringify writes the escape than its raw bytes (\/ becomes /), or
// escSlow for the escapes a block leaves to the event loop (\u, errors).
var escAdj = func() (t [256]uint8) {
	for c := range t {
		t[c] = escSlow
	}
	for _, c := range `"\\bfnrt` {
		t[c] = 0
	}
	t['/'] = 1
	return t
}()

// escSumRest adds up escAdj over the escaped bytes (bits of esc) of the
// block after the first four.
func escSumRest(blk *[64]byte, esc uint64) uint {
	var adj uint
	for ; esc != 0; esc &= esc - 1 {
		adj += uint(escAdj[blk[bits.TrailingZeros64(esc)]])
	}
	return adj
}

// escSlow is above any sum of escAdj over the at most 32 escapes of a block.
const escSlow = 64

// scanBlocks scans string bytes 64 at a time from b[i], a character
// boundary outside any escape, while a whole block and the byte after it
// remain. It processes the escapes and non-ASCII characters it meets in
// order and stops at the closing quote (blockEnd), at a byte the byte-wise
// scanner must see (a control character or a bad escape: blockSlow), or
// near the end of b (blockMore). d is the escapes' length adjustment and w
// the non-ASCII text's (raw bytes minus UTF-16 units).
func scanBlocks(b []byte, i int) (next, status, d, w int, flags uint8) {
	for i+64 < len(b) {
		blk := (*[64]byte)(b[i : i+64])
		bsM, stopM, naM, leadM := allMasks(blk)
		// Fast path: which backslashes escape (the start of each odd run,
		// found by subtraction as simdjson does), hence which quote ends
		// the string; the escaped characters are only summed through a
		// table, and valid UTF-8 is measured from its lead bytes without
		// decoding.
		escaper := ((bsM<<1 | oddBits) - bsM ^ oddBits) & bsM
		escaped := escaper << 1
		limit := bits.TrailingZeros64(stopM &^ escaped) // 64 when there is no stop
		if limit == 64 || blk[limit&63] == '"' {
			below := uint64(1)<<uint(limit) - 1 // all ones for 64
			esc := escaped & below
			// escSum, inlined: the escaped characters summed through
			// escAdj, the first four without branches, so that the
			// varying number of escapes per block costs no mispredicted
			// loop exit. Once esc is exhausted, TrailingZeros64 gives 64,
			// which reads the byte after the block; those reads are
			// subtracted. The positions are found before any byte is
			// read because BSF, which TrailingZeros64 compiles to for
			// older CPUs, waits for the old value of its destination
			// register, which could otherwise chain one read to the last.
			blk65 := (*[65]byte)(b[i : i+65])
			e1 := esc & (esc - 1)
			e2 := e1 & (e1 - 1)
			e3 := e2 & (e2 - 1)
			t0 := bits.TrailingZeros64(esc)
			t1 := bits.TrailingZeros64(e1)
			t2 := bits.TrailingZeros64(e2)
			t3 := bits.TrailingZeros64(e3)
			adj := uint(escAdj[blk65[t0]]) + uint(escAdj[blk65[t1]]) + uint(escAdj[blk65[t2]]) + uint(escAdj[blk65[t3]])
			if rest := e3 & (e3 - 1); rest != 0 {
				adj += escSumRest(blk, rest)
			} else {
				adj -= uint(max(0, 4-bits.OnesCount64(esc))) * uint(escAdj[blk65[64]])
			}
			if adj < escSlow {
				if esc != 0 {
					flags |= fEscape
				}
				d += int(adj)
				next := i + 64
				if escaper>>63 == 1 {
					// The last backslash escapes the next block's first
					// byte: start the next block at that backslash.
					next = i + 63
				}
				// Escaped non-ASCII bytes were bad escapes, so every byte
				// of naM below limit starts or continues a character
				// outside escapes.
				if na := naM & below; na != 0 {
					end, dw, invalid := blockUTF8(b, i, na, leadM&below)
					w += dw
					if invalid {
						flags |= fInvalid
					}
					// Only when nothing stops the block can the last
					// character go on into the next one.
					next = max(next, end)
				}
				if limit < 64 {
					return i + limit, blockEnd, d, w, flags
				}
				i = next
				continue
			}
		}
		// Slow path, one event at a time in order.
		next, st, dd, dw, f := blockEvents(b, i, bsM|stopM|naM)
		d += dd
		w += dw
		flags |= f
		if st != blockMore {
			return next, st, d, w, flags
		}
		i = next
	}
	return i, blockMore, d, w, flags
}

// blockUTF8 measures the non-ASCII bytes na of the block at b[i:], whose
// lead bytes are leads, and returns the end of the last character (which
// may lie past the block), their bytes minus UTF-16 units, and whether an
// invalid sequence was decoded as U+FFFD.
func blockUTF8(b []byte, i int, na, leads uint64) (end, w int, invalid bool) {
	// A few characters among ASCII text are measured without branches;
	// runs of text in other scripts go faster through decodeRun, whose
	// branches predict well there.
	if bits.OnesCount64(leads) <= 4 {
		if end, w, ok := utf8Block(b, i, na, leads); ok {
			return end, w, false
		}
	}
	for na != 0 {
		e, dw, inv := decodeRun(b, i+bits.TrailingZeros64(na))
		w += dw
		invalid = invalid || inv
		end = e
		if e-i >= 64 {
			break
		}
		na &^= uint64(1)<<uint(e-i) - 1
	}
	return end, w, invalid
}

// utf8Block measures the non-ASCII bytes na (bits of the block at b[i:])
// when they are all valid UTF-8, whose lead bytes (>= 0xC0) are leads. It
// returns the end of the last character (which may lie past the block),
// the bytes minus UTF-16 units of them all, and ok; ok is false when any
// sequence is invalid, and the caller must decode the slow way. Each lead
// is checked on its own, without a chain of lengths from one character to
// the next, and a count rules out stray continuation bytes: together the
// characters cover as many bytes as there are non-ASCII ones.
func utf8Block(b []byte, i int, na, leads uint64) (end, w int, ok bool) {
	if leads == 0 {
		return 0, 0, false // only continuation bytes
	}
	// The last lead is checked here so the loop need not: a four-byte
	// load at each lead must stay in b.
	last := i + 63 - bits.LeadingZeros64(leads)
	if last+4 > len(b) {
		return 0, 0, false
	}
	var bad uint64
	covered := 0
	for l := leads; l != 0; l &= l - 1 {
		// Nothing here feeds the next iteration's position, which keeps
		// the iterations independent of each other's loads.
		x := binary.LittleEndian.Uint32(b[i+bits.TrailingZeros64(l):])
		info := utf8Lead[byte(x)]
		// The second byte within [lo, lo+span]: both differences >= 0.
		dd := int64(x>>8&0xFF) - int64(info.lo)
		bad |= uint64(dd|(int64(info.span)-dd)) >> 63
		bad |= uint64(x&contMask[info.n&7] ^ contWant[info.n&7])
		w += int(info.w)
		covered += int(info.n)
	}
	end = last + int(utf8Lead[b[last]].n)
	// Bytes of the last character past the block are not in na.
	beyond := max(0, end-(i+64))
	if bad != 0 || covered != bits.OnesCount64(na)+beyond {
		return 0, 0, false
	}
	return end, w, true
}

// blockEvents scans the block b[i:i+64] the slow way, one event (a bit of
// ev: a backslash or another non-plain byte) at a time, for scanBlocks.
func blockEvents(b []byte, i int, ev uint64) (next, status, d, w int, flags uint8) {
	blk := b[i : i+64 : i+64]
	for ev != 0 {
		j := bits.TrailingZeros64(ev)
		pos := i + j
		c := blk[j]
		switch {
		case c == '"':
			return pos, blockEnd, d, w, flags
		case c >= 0x80:
			end, dw, invalid := decodeRun(b, pos)
			w += dw
			if invalid {
				flags |= fInvalid
			}
			if end-i >= 64 {
				return end, blockMore, d, w, flags
			}
			ev &^= uint64(1)<<uint(end-i) - 1
			continue
		case c != '\\':
			return pos, blockSlow, d, w, flags // a control character
		}
		flags |= fEscape
		switch escClass[b[pos+1]] {
		case escSame:
		case escSlash:
			d++
		case escU:
			u, ok := hex4(b, pos+2)
			if !ok {
				return pos, blockSlow, d, w, flags
			}
			after := pos + 6
			if u >= 0xD800 && u < 0xDC00 && pos+12 <= len(b) && b[pos+6] == '\\' && b[pos+7] == 'u' {
				if v, ok := hex4(b, pos+8); ok && v >= 0xDC00 && v <= 0xDFFF {
					d += 10
					after = pos + 12
				} else {
					d += 6 - escCost(u)
				}
			} else {
				d += 6 - escCost(u)
			}
			if after-i >= 64 {
				return after, blockMore, d, w, flags
			}
			ev &^= uint64(1)<<uint(after-i) - 1
			continue
		default:
			return pos, blockSlow, d, w, flags
		}
		if j == 63 {
			return pos + 2, blockMore, d, w, flags
		}
		ev &^= 3 << uint(j)
	}
	return i + 64, blockMore, d, w, flags
}

// leadInfo describes a byte as the start of a valid UTF-8 sequence: its
// length n (0 if it cannot start one), the range [lo, lo+span] of valid
// second bytes, and w, the sequence's bytes minus its UTF-16 units.
type leadInfo struct{ n, lo, span, w uint8 }

var utf8Lead = func() (t [256]leadInfo) {
	for c := 0xC2; c <= 0xF4; c++ {
		switch {
		case c <= 0xDF:
			t[c] = leadInfo{n: 2, lo: 0x80, span: 0x3F, w: 1}
		case c == 0xE0:
			t[c] = leadInfo{n: 3, lo: 0xA0, span: 0x1F, w: 2}
		case c == 0xED: // not the surrogates
			t[c] = leadInfo{n: 3, lo: 0x80, span: 0x1F, w: 2}
		case c <= 0xEF:
			t[c] = leadInfo{n: 3, lo: 0x80, span: 0x3F, w: 2}
		case c == 0xF0:
			t[c] = leadInfo{n: 4, lo: 0x90, span: 0x2F, w: 2}
		case c == 0xF4:
			t[c] = leadInfo{n: 4, lo: 0x80, span: 0x0F, w: 2}
		default:
			t[c] = leadInfo{n: 4, lo: 0x80, span: 0x3F, w: 2}
		}
	}
	return t
}()

// contMask and contWant check, for a sequence of length n loaded as a
// little-endian word, that its third and fourth bytes are continuation
// bytes as needed; for n == 0 they demand a lead byte of 0, never true.
var (
	contMask = [8]uint32{0: 0xFF, 2: 0, 3: 0xC00000, 4: 0xC0C00000}
	contWant = [8]uint32{0: 0, 2: 0, 3: 0x800000, 4: 0x80800000}
)

// decodeRun decodes the run of non-ASCII bytes starting at b[i] the way
// readFile does and returns where it ends, its raw bytes minus its UTF-16
// units, and whether it held an invalid sequence (decoded as U+FFFD).
func decodeRun(b []byte, i int) (end, w int, invalid bool) {
	n := len(b)
	for i < n && b[i] >= 0x80 {
		c := b[i]
		switch {
		case c >= 0xC2 && c <= 0xDF && i+1 < n && b[i+1]&0xC0 == 0x80:
			w++
			i += 2
		case c >= 0xE1 && c <= 0xEF && c != 0xED && i+2 < n && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80:
			w += 2
			i += 3
		case c >= 0xF1 && c <= 0xF3 && i+3 < n && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 && b[i+3]&0xC0 == 0x80,
			c == 0xF0 && i+3 < n && b[i+1] >= 0x90 && b[i+1] <= 0xBF && b[i+2]&0xC0 == 0x80 && b[i+3]&0xC0 == 0x80:
			w += 2 // four bytes, a surrogate pair
			i += 4
		default:
			size, r, valid := decodeAt(b, i)
			if !valid {
				invalid = true
			}
			w += size - units16(r)
			i += size
		}
	}
	return i, w, invalid
}

// Escape classes of the byte after a backslash.
const (
	escBad   = iota
	escSame  // \" \\ \b \f \n \r \t: two bytes in, two units out
	escSlash // \/: two bytes in, one unit out
	escU     // \uXXXX
)

var escClass = func() (t [256]uint8) {
	for _, c := range `"\\bfnrt` {
		t[c] = escSame
	}
	t['/'] = escSlash
	t['u'] = escU
	return t
}()

func badEscape(b []byte, i int) string {
	c := b[i]
	if c >= 0x20 && c < 0x7F {
		return `bad escape "\` + string(c) + `"`
	}
	if c < 0x80 {
		return `bad escape: backslash before U+00` + string([]byte{"0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15]})
	}
	return `bad escape: backslash before a non-ASCII character`
}

// Fixed parts of the normalized messages, as JSON.stringify writes them.
const (
	userHead      = `{"role":"user","content":`
	assistantHead = `{"role":"assistant","content":`
	toolCallsKey  = `,"toolCalls":`
	toolHead      = `{"role":"tool","content":`
	toolCallIDKey = `,"toolCallId":`
	isErrorKey    = `,"isError":`
)

// maxRoleUnits is how much of an unknown role a Reason quotes.
const maxRoleUnits = 40

func (p *parser) result() Result {
	b := p.b
	if p.err != nil {
		e := p.err
		return Result{
			Verdict: InvalidJSON,
			Reason:  e.reason,
			Span:    mkSpan(e.start, col16(b, e.start), e.end, col16(b, e.end)),
			Width16: width16(b),
		}
	}
	r := Result{Verdict: InvalidRecord, Span: p.topSpan, Width16: len(b) - p.adj}
	at := func(m member) Span {
		if m.kind == kNone {
			return p.topSpan
		}
		return m.span
	}
	switch {
	case p.top != kObject:
		r.Reason = "session record must be an object, got " + p.top.jsType()
		return r
	case p.role.kind != kString:
		r.Reason, r.Span = "role must be a string", at(p.role)
		return r
	case p.content.kind != kString:
		r.Reason, r.Span = "content must be a string", at(p.content)
		return r
	}
	role := p.b[p.role.lit.Start+1 : p.role.lit.End-1]
	if p.role.flags != 0 {
		role = appendDecoded(nil, role)
	}
	switch string(role) {
	case "user":
		r.Role = RoleUser
		r.Cost = int64(len(userHead) + p.content.cost + 2)
		r.Depth = 1
	case "assistant":
		switch {
		case p.toolCalls.kind != kArray:
			r.Reason, r.Span = "assistant message requires a toolCalls array", at(p.toolCalls)
			return r
		case p.elemErr != "":
			r.Reason, r.Span = p.elemErr, p.elemErrSpan
			return r
		}
		r.Role = RoleAssistant
		r.Cost = int64(len(assistantHead) + p.content.cost + len(toolCallsKey) + p.tcCost + 2)
		if len(p.calls) > 0 {
			names := string(p.names)
			r.Calls = make([]Call, len(p.calls))
			for k, c := range p.calls {
				r.Calls[k] = Call{ID: names[c.idStart:c.nameStart], IDSpan: c.idSpan, Name: names[c.nameStart:c.nameEnd]}
			}
		}
		r.Depth = p.maxDepth
	case "tool":
		switch {
		case p.toolCallID.kind != kString:
			r.Reason, r.Span = "toolCallId must be a string", at(p.toolCallID)
			return r
		case p.isError.kind != kTrue && p.isError.kind != kFalse:
			r.Reason, r.Span = "isError must be a boolean", at(p.isError)
			return r
		}
		r.Role = RoleTool
		flag := 5
		if p.isError.isTrue {
			flag = 4
		}
		r.Cost = int64(len(toolHead) + p.content.cost + len(toolCallIDKey) + p.toolCallID.cost + len(isErrorKey) + flag + 2)
		r.ToolCallID = p.decode(p.toolCallID.lit, p.toolCallID.flags)
		r.ToolCallIDSpan = p.toolCallID.lit
		r.IsError = p.isError.isTrue
		r.Depth = 1
	default:
		r.Reason, r.Span = "unknown role "+quoteJS(string(role), maxRoleUnits), p.role.span
		return r
	}
	r.Verdict = Valid
	return r
}

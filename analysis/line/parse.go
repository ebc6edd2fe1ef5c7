// The state machine: Parse's one pass over a line, which validates
// JSON.parse's grammar (values, nesting, numbers, literals) and calls the
// record rules (record.go), the key de-duplication (keys.go) and the string
// scanner (strings.go) as values start and end.

package line

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

	// err is the first failure, when failed (held in the parser, not
	// allocated: a file of refused lines is millions of them).
	err    jsonError
	failed bool

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
	if !p.failed {
		p.err, p.failed = jsonError{reason: reason, start: start, end: end}, true
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
		p.fail(unexpectedASCII[b[i]], i, i+1)
	}
}

// unexpectedASCII is the reason for each ASCII byte where it cannot be, made
// once: a file of refused lines allocates none per line.
var unexpectedASCII = func() (r [0x80]string) {
	for c := range r {
		r[c] = "unexpected character " + describeASCII(byte(c))
	}
	return r
}()

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
				if p.failed {
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
				if p.failed {
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
			if p.failed {
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
		var ok bool
		if i, ok = digitRun(b, i+1); !ok {
			p.unexpected(i)
			return i
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		var ok bool
		if i, ok = digitRun(b, i); !ok {
			p.unexpected(i)
			return i
		}
	}
	return i
}

// digitRun returns the end of the run of one or more digits at b[i], and
// false (with i) when b[i] is not a digit.
func digitRun(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] < '0' || b[i] > '9' {
		return i, false
	}
	for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
	}
	return i, true
}

// ParseJSON is JSON.parse's verdict alone, for the session formats whose
// records are not the runtime's messages (analysis.Options.JSONOnly): Valid
// when JSON.parse accepts the line (whatever the value), InvalidJSON (with
// Parse's Reason and Span) when it throws. A valid line's Span covers its
// JSON value; Width16 is set as by Parse; nothing else is.
//
// It makes Parse's one pass (the record rules it also checks cost little
// next to the grammar) and differs from it only in the verdict it reports.
func ParseJSON(b []byte) Result {
	var p parser
	p.b = b
	p.run()
	if p.failed {
		return p.result()
	}
	return Result{Verdict: Valid, Span: p.topSpan, Width16: len(b) - p.adj}
}

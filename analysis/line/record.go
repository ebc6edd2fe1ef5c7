// The record rules: which members parseSessionMessage looks at, the checks
// on each toolCalls element in its order, and the Result of a line, with
// the cost of the normalized message as JSON.stringify writes it.

package line

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
	if p.failed {
		e := &p.err
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

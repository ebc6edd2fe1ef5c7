package line

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds a slow reference implementation written to be obviously
// correct rather than fast: decode the whole line to UTF-16 the way the
// WHATWG decoder does, parse it recursively to a tree (objects keep their
// keys in first-appearance order with the last value), apply
// parseSessionMessage, and stringify the normalized message to UTF-16.

// refDecode is the WHATWG UTF-8 decoder, transcribed from the Encoding
// Standard's algorithm (bytes needed / seen, lower and upper boundary).
func refDecode(b []byte) []uint16 {
	var out []uint16
	var cp rune
	needed, seen := 0, 0
	lower, upper := byte(0x80), byte(0xBF)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if needed == 0 {
			switch {
			case c <= 0x7F:
				out = append(out, uint16(c))
			case c >= 0xC2 && c <= 0xDF:
				needed, cp = 1, rune(c&0x1F)
			case c >= 0xE0 && c <= 0xEF:
				if c == 0xE0 {
					lower = 0xA0
				}
				if c == 0xED {
					upper = 0x9F
				}
				needed, cp = 2, rune(c&0xF)
			case c >= 0xF0 && c <= 0xF4:
				if c == 0xF0 {
					lower = 0x90
				}
				if c == 0xF4 {
					upper = 0x8F
				}
				needed, cp = 3, rune(c&0x7)
			default:
				out = append(out, 0xFFFD)
			}
			continue
		}
		if c < lower || c > upper {
			cp, needed, seen, lower, upper = 0, 0, 0, 0x80, 0xBF
			out = append(out, 0xFFFD)
			i-- // prepend the byte to the stream
			continue
		}
		lower, upper = 0x80, 0xBF
		cp = cp<<6 | rune(c&0x3F)
		seen++
		if seen != needed {
			continue
		}
		if cp >= 0x10000 {
			r1, r2 := utf16.EncodeRune(cp)
			out = append(out, uint16(r1), uint16(r2))
		} else {
			out = append(out, uint16(cp))
		}
		cp, needed, seen = 0, 0, 0
	}
	if needed != 0 {
		out = append(out, 0xFFFD)
	}
	return out
}

type refVal struct {
	k    kind
	s    []uint16
	num  string
	arr  []*refVal
	keys [][]uint16
	vals []*refVal
	// raw is the nesting depth as written, counting values that a later
	// duplicate key discarded (what Result.Depth measures).
	raw int
}

func (v *refVal) get(key string) *refVal {
	k := utf16.Encode([]rune(key))
	for i, kk := range v.keys {
		if equal16(kk, k) {
			return v.vals[i]
		}
	}
	return nil
}

type refParser struct {
	s []uint16
	i int
}

func (p *refParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *refParser) peek() int {
	if p.i < len(p.s) {
		return int(p.s[p.i])
	}
	return -1
}

func (p *refParser) lit(word string) bool {
	for _, c := range []byte(word) {
		if p.peek() != int(c) {
			return false
		}
		p.i++
	}
	return true
}

func isDigit(c int) bool { return c >= '0' && c <= '9' }

// open consumes a container's opening bracket and the whitespace after
// it, and reports whether close (the container is empty) comes next.
func (p *refParser) open(close int) bool {
	p.i++
	p.ws()
	return p.peek() == close
}

// more consumes the whitespace after a member or element, and the comma
// when one follows: another member or element comes next.
func (p *refParser) more() bool {
	p.ws()
	if p.peek() == ',' {
		p.i++
		return true
	}
	return false
}

// end consumes the closing bracket close of v, which is one level deeper
// than its deepest member or element; anything else there is an error.
func (p *refParser) end(v *refVal, close int) *refVal {
	if p.peek() != close {
		return nil
	}
	p.i++
	v.raw++
	return v
}

func (p *refParser) value() *refVal {
	p.ws()
	switch c := p.peek(); {
	case c == '{':
		v := &refVal{k: kObject}
		if p.open('}') {
			return p.end(v, '}')
		}
		for {
			p.ws()
			if p.peek() != '"' {
				return nil
			}
			k := p.str()
			if k == nil {
				return nil
			}
			p.ws()
			if p.peek() != ':' {
				return nil
			}
			p.i++
			val := p.value()
			if val == nil {
				return nil
			}
			v.raw = max(v.raw, val.raw)
			found := false
			for j, kk := range v.keys {
				if equal16(kk, k.s) {
					v.vals[j] = val
					found = true
				}
			}
			if !found {
				v.keys = append(v.keys, k.s)
				v.vals = append(v.vals, val)
			}
			if !p.more() {
				return p.end(v, '}')
			}
		}
	case c == '[':
		v := &refVal{k: kArray}
		if p.open(']') {
			return p.end(v, ']')
		}
		for {
			e := p.value()
			if e == nil {
				return nil
			}
			v.raw = max(v.raw, e.raw)
			v.arr = append(v.arr, e)
			if !p.more() {
				return p.end(v, ']')
			}
		}
	case c == '"':
		return p.str()
	case c == 't':
		if p.lit("true") {
			return &refVal{k: kTrue}
		}
	case c == 'f':
		if p.lit("false") {
			return &refVal{k: kFalse}
		}
	case c == 'n':
		if p.lit("null") {
			return &refVal{k: kNull}
		}
	case c == '-' || isDigit(c):
		start := p.i
		if c == '-' {
			p.i++
		}
		switch {
		case p.peek() == '0':
			p.i++
		case isDigit(p.peek()):
			for isDigit(p.peek()) {
				p.i++
			}
		default:
			return nil
		}
		if p.peek() == '.' {
			p.i++
			if !isDigit(p.peek()) {
				return nil
			}
			for isDigit(p.peek()) {
				p.i++
			}
		}
		if p.peek() == 'e' || p.peek() == 'E' {
			p.i++
			if p.peek() == '+' || p.peek() == '-' {
				p.i++
			}
			if !isDigit(p.peek()) {
				return nil
			}
			for isDigit(p.peek()) {
				p.i++
			}
		}
		var raw []byte
		for _, u := range p.s[start:p.i] {
			raw = append(raw, byte(u))
		}
		return &refVal{k: kNumber, num: string(raw)}
	}
	return nil
}

func equal16(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (p *refParser) str() *refVal {
	p.i++ // opening quote
	v := &refVal{k: kString, s: []uint16{}}
	for {
		c := p.peek()
		switch {
		case c < 0:
			return nil
		case c == '"':
			p.i++
			return v
		case c < 0x20:
			return nil
		case c == '\\':
			p.i++
			e := p.peek()
			p.i++
			switch e {
			case '"', '\\', '/':
				v.s = append(v.s, uint16(e))
			case 'b':
				v.s = append(v.s, 8)
			case 'f':
				v.s = append(v.s, 12)
			case 'n':
				v.s = append(v.s, 10)
			case 'r':
				v.s = append(v.s, 13)
			case 't':
				v.s = append(v.s, 9)
			case 'u':
				if p.i+4 > len(p.s) {
					return nil
				}
				var raw []byte
				for _, u := range p.s[p.i : p.i+4] {
					if u > 0x7F {
						return nil
					}
					raw = append(raw, byte(u))
				}
				u, err := strconv.ParseUint(string(raw), 16, 16)
				if err != nil {
					return nil
				}
				v.s = append(v.s, uint16(u))
				p.i += 4
			default:
				return nil
			}
		default:
			v.s = append(v.s, uint16(c))
			p.i++
		}
	}
}

// refStringify appends JSON.stringify(v) as UTF-16 units.
func refStringify(out []uint16, v *refVal) []uint16 {
	switch v.k {
	case kNull:
		return append(out, utf16.Encode([]rune("null"))...)
	case kTrue:
		return append(out, utf16.Encode([]rune("true"))...)
	case kFalse:
		return append(out, utf16.Encode([]rune("false"))...)
	case kNumber:
		f := refNumber(v.num)
		return append(out, utf16.Encode([]rune(FormatNumber(f)))...)
	case kString:
		return refQuote(out, v.s)
	case kArray:
		out = append(out, '[')
		for i, e := range v.arr {
			if i > 0 {
				out = append(out, ',')
			}
			out = refStringify(out, e)
		}
		return append(out, ']')
	}
	out = append(out, '{')
	for i, k := range v.keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = refQuote(out, k)
		out = append(out, ':')
		out = refStringify(out, v.vals[i])
	}
	return append(out, '}')
}

func refQuote(out []uint16, s []uint16) []uint16 {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		u := s[i]
		switch {
		case u == '"' || u == '\\':
			out = append(out, '\\', u)
		case u == 8:
			out = append(out, '\\', 'b')
		case u == 12:
			out = append(out, '\\', 'f')
		case u == 10:
			out = append(out, '\\', 'n')
		case u == 13:
			out = append(out, '\\', 'r')
		case u == 9:
			out = append(out, '\\', 't')
		case u < 0x20:
			out = append(out, utf16.Encode([]rune("\\u00"+strconv.FormatInt(int64(u)+0x100, 16)[1:]))...)
		case u >= 0xD800 && u < 0xDC00 && i+1 < len(s) && s[i+1] >= 0xDC00 && s[i+1] <= 0xDFFF:
			out = append(out, u, s[i+1])
			i++
		case u >= 0xD800 && u <= 0xDFFF:
			out = append(out, utf16.Encode([]rune("\\u"+strconv.FormatInt(int64(u), 16)))...)
		default:
			out = append(out, u)
		}
	}
	return append(out, '"')
}

// refWTF8 converts UTF-16 to WTF-8 (pairs combined, lone surrogates kept).
func refWTF8(s []uint16) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		u := rune(s[i])
		if u >= 0xD800 && u < 0xDC00 && i+1 < len(s) && s[i+1] >= 0xDC00 && s[i+1] <= 0xDFFF {
			out = utf8.AppendRune(out, utf16.DecodeRune(u, rune(s[i+1])))
			i++
			continue
		}
		if u >= 0xD800 && u <= 0xDFFF {
			out = append(out, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
			continue
		}
		out = utf8.AppendRune(out, u)
	}
	return string(out)
}

// refParse is the reference for Parse (spans are not modelled).
func refParse(b []byte) Result {
	s := refDecode(b)
	r := Result{Width16: len(s)}
	p := &refParser{s: s}
	v := p.value()
	p.ws()
	if v == nil || p.i != len(s) {
		r.Verdict = InvalidJSON
		return r
	}
	r.Verdict = InvalidRecord
	isStr := func(v *refVal) bool { return v != nil && v.k == kString }
	if v.k != kObject {
		r.Reason = "session record must be an object, got " + v.k.jsType()
		return r
	}
	role, content := v.get("role"), v.get("content")
	if !isStr(role) {
		r.Reason = "role must be a string"
		return r
	}
	if !isStr(content) {
		r.Reason = "content must be a string"
		return r
	}
	norm := &refVal{k: kObject}
	add := func(k string, val *refVal) {
		norm.keys = append(norm.keys, utf16.Encode([]rune(k)))
		norm.vals = append(norm.vals, val)
	}
	add("role", role)
	add("content", content)
	switch refWTF8(role.s) {
	case "user":
		r.Role = RoleUser
	case "assistant":
		tc := v.get("toolCalls")
		if tc == nil || tc.k != kArray {
			r.Reason = "assistant message requires a toolCalls array"
			return r
		}
		for i, e := range tc.arr {
			prefix := "toolCalls[" + strconv.Itoa(i) + "]"
			switch {
			case e.k != kObject:
				r.Reason = prefix + " must be an object"
			case !isStr(e.get("id")):
				r.Reason = prefix + ".id must be a string"
			case !isStr(e.get("name")):
				r.Reason = prefix + ".name must be a string"
			case e.get("input") == nil:
				r.Reason = prefix + " requires an input member"
			default:
				r.Calls = append(r.Calls, Call{ID: refWTF8(e.get("id").s), Name: refWTF8(e.get("name").s)})
				continue
			}
			r.Calls = nil
			return r
		}
		add("toolCalls", tc)
		r.Role = RoleAssistant
		r.Depth = 1 + tc.raw
	case "tool":
		id, isErr := v.get("toolCallId"), v.get("isError")
		if !isStr(id) {
			r.Reason = "toolCallId must be a string"
			return r
		}
		if isErr == nil || isErr.k != kTrue && isErr.k != kFalse {
			r.Reason = "isError must be a boolean"
			return r
		}
		add("toolCallId", id)
		add("isError", isErr)
		r.Role = RoleTool
		r.ToolCallID = refWTF8(id.s)
		r.IsError = isErr.k == kTrue
	default:
		r.Reason = "unknown role " + quoteJS(refWTF8(role.s), maxRoleUnits)
		return r
	}
	r.Verdict = Valid
	r.Reason = ""
	r.Cost = int64(len(refStringify(nil, norm)) + 1)
	if r.Depth == 0 {
		r.Depth = 1
	}
	return r
}

// checkAgainstRef compares Parse with the reference on one line.
// checkJSONOnly: ParseJSON is JSON.parse's verdict alone: Parse's when
// JSON.parse throws (reason and span too), Valid otherwise, with the value's
// span and the line's width.
func checkJSONOnly(t *testing.T, b []byte, full Result) {
	t.Helper()
	js := ParseJSON(b)
	if js.Width16 != full.Width16 {
		t.Fatalf("%q: ParseJSON Width16 %d, Parse %d", b, js.Width16, full.Width16)
	}
	if full.Verdict == InvalidJSON {
		if js.Verdict != InvalidJSON || js.Reason != full.Reason || js.Span != full.Span {
			t.Fatalf("%q: ParseJSON %v %q %+v, Parse %v %q %+v", b, js.Verdict, js.Reason, js.Span, full.Verdict, full.Reason, full.Span)
		}
		return
	}
	if js.Verdict != Valid || js.Reason != "" || js.Role != RoleNone || js.Cost != 0 {
		t.Fatalf("%q: ParseJSON %+v on a line JSON.parse accepts", b, js)
	}
	if v := bytes.Trim(b, " \t\r\n"); string(b[js.Span.Start:js.Span.End]) != string(v) {
		t.Fatalf("%q: ParseJSON span %+v covers %q, not the value", b, js.Span, b[js.Span.Start:js.Span.End])
	}
}

func checkAgainstRef(t *testing.T, b []byte) {
	t.Helper()
	got := Parse(b)
	want := refParse(b)
	if got.Verdict != want.Verdict {
		t.Fatalf("%q: verdict %v (%s), reference %v (%s)", b, got.Verdict, got.Reason, want.Verdict, want.Reason)
	}
	if got.Width16 != want.Width16 {
		t.Fatalf("%q: Width16 %d, reference %d", b, got.Width16, want.Width16)
	}
	checkJSONOnly(t, b, got)
	if got.Verdict == InvalidJSON {
		if got.Reason == "" {
			t.Fatalf("%q: invalid JSON without a reason", b)
		}
		return
	}
	if got.Reason != want.Reason || got.Role != want.Role || got.Cost != want.Cost || got.Depth != want.Depth {
		t.Fatalf("%q:\n got reason %q role %v cost %d depth %d\nwant reason %q role %v cost %d depth %d",
			b, got.Reason, got.Role, got.Cost, got.Depth, want.Reason, want.Role, want.Cost, want.Depth)
	}
	if got.ToolCallID != want.ToolCallID || got.IsError != want.IsError {
		t.Fatalf("%q: tool call id %q isError %v, reference %q %v", b, got.ToolCallID, got.IsError, want.ToolCallID, want.IsError)
	}
	if len(got.Calls) != len(want.Calls) {
		t.Fatalf("%q: %d calls, reference %d", b, len(got.Calls), len(want.Calls))
	}
	for i := range got.Calls {
		g, w := got.Calls[i], want.Calls[i]
		if g.ID != w.ID || g.Name != w.Name {
			t.Fatalf("%q: call %d is %q/%q, reference %q/%q", b, i, g.ID, g.Name, w.ID, w.Name)
		}
		if g.IDSpan.Start < 0 || g.IDSpan.End > len(b) || b[g.IDSpan.Start] != '"' || b[g.IDSpan.End-1] != '"' {
			t.Fatalf("%q: call %d id span %+v is not a string literal", b, i, g.IDSpan)
		}
	}
	if got.Verdict == Valid && (got.Span.Start < 0 || got.Span.End > len(b) || got.Span.Start >= got.Span.End) {
		t.Fatalf("%q: value span %+v out of the line", b, got.Span)
	}
}

// seeds are tricky lines for the fuzzer and the agreement test.
var seeds = []string{
	`{"role":"user","content":"` + strings.Repeat(`ab\"\\\n\u00e9`, 12) + `é😀\ud83d\ude00` + strings.Repeat("x", 50) + `"}`,
	`{"role":"user","content":"` + strings.Repeat(`\\`, 33) + `\"` + strings.Repeat("y", 70) + `"}`,
	`{"role":"user","content":"hi"}`,
	`{"role":"user","content":"a\nb\"c\\d\/e\u00e9\ud83d\ude00\ud800\udc00x\udc00"}`,
	`{"role":"tool","content":"ok","toolCallId":"c1","isError":false}`,
	`{"role":"tool","content":"ok","toolCallId":"c\u0031","isError":true,"extra":[1,{"a":2}]}`,
	`{"role":"assistant","content":"","toolCalls":[]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":null}]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":{"a":1,"a":[1e400,-0,0.1,1e21,1e-7,123456789012345678]},"\u0061":2}]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":"a","id":"b","name":"n","input":1,"input":2}]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":{"\ud800":1,"\ud800":22,"é":3,"\u00e9":4}}]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":{"a":1}},3]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":1,"name":"n"}]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":"1","name":null,"input":0}]}`,
	`{"role":"assistant","content":"x","toolCalls":[{"id":"1","name":"n"}]}`,
	`{"role":"assistant","content":"x","toolCalls":{}}`,
	`{"role":"assistant","content":"x","toolCalls":[],"toolCalls":"no"}`,
	`{"role":"assistant","content":"x","toolCalls":[1],"toolCalls":[]}`,
	`{"role":"system","content":"x"}`,
	`{"role":"\u0000\ud800\"","content":"x"}`,
	`{"role":1,"content":"x"}`,
	`{"content":"x"}`,
	`{"role":"user"}`,
	`{"role":"user","content":null}`,
	`{"role":"tool","content":"","isError":true}`,
	`{"role":"tool","content":"","toolCallId":"x","isError":"true"}`,
	`[]`, `null`, `"s"`, `1`, `true`,
	` {"role":"user","content":"x"} `,
	"{\"role\":\"user\",\"content\":\"x\"}\r",
	"\ufeff{\"role\":\"user\",\"content\":\"x\"}",
	"{\"role\":\"user\",\"content\":\"\xe2\x82A\xed\xa0\x80\xc0\x80\xf5\xff\xf0\x90\x80\"}",
	"{\"role\":\"user\",\"content\":\"\x00\"}",
	"{\"role\":\"user\",\"content\":\"x\"}\x00",
	`{"role":"user","content":"x",}`,
	`{"role":"user","content":"\x"}`,
	`{"role":"user","content":"\u12g4"}`,
	`{"role":"user","content":"x"`,
	`[01]`, `[1.]`, `[-]`, `[1e+]`, `[.5]`, `[tru]`, `[nul`, "   ", "\r",
	`[[[[[[[[[[]]]]]]]]]]`,
	`{"role":"assistant","content":"","toolCalls":[{"id":"","name":"","input":{"a":20,"b":-0,"c":-20,"":[""],"":4}}]}`,
	`{"role":"assistant","content":"😀","toolCalls":[{"id":"😀","name":"\ud83d\ude00","input":{"k":{"k":{"k":[[["😀"]]]}}}}]}`,
}

func TestAgreesWithReference(t *testing.T) {
	for _, s := range seeds {
		checkAgainstRef(t, []byte(s))
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstRef(t, b)
	})
}

// TestBlockBoundaries slides tricky string pieces across the 64-byte
// blocks of the string scanner and compares with the reference.
func TestBlockBoundaries(t *testing.T) {
	pieces := []string{
		`\"`, `\\`, `\\\"`, `\\\\"`, `\/`, `\n\t`, `\u00e9`, `\ud83d\ude00`, `\ud800\ud800\udc00`,
		`\ud83d`, `\x`, `\u12`, "é", "😀", "\xe2\x82A", "\xf0\x9f\x98", "\x00", "\t", `"`, `\`,
		// UTF-8 at the edges of validity, for the lead-byte check of
		// utf8Block: valid extremes, overlong forms, surrogates, values
		// above U+10FFFF, stray and missing continuation bytes, and runs
		// long enough for decodeRun.
		"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
		"\xc0\xaf", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\x80", "\xbf\xbf", "é\x80", "\xe2\x82", "a\xc3", "\xc3\xa9\xc3",
		"😀😀😀😀😀", "日本語のテキスト", "é\\n😀\\\"ü", "é\\uü",
		`\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"`,
	}
	for _, piece := range pieces {
		for k := 0; k < 140; k++ {
			content := strings.Repeat("a", k) + piece + strings.Repeat(`b\n`, 30)
			checkAgainstRef(t, []byte(`{"role":"user","content":"`+content+`"}`))
			checkAgainstRef(t, []byte(`{"role":"user","content":"`+content+`","x":"\\"}`))
			checkAgainstRef(t, []byte(`{"role":"tool","toolCallId":"`+content+`","content":"","isError":true}`))
		}
	}
}

// FuzzStringBlocks puts the fuzzer's bytes deep inside a long string, where
// the 64-byte block scanner works, and compares with the reference.
func FuzzStringBlocks(f *testing.F) {
	for _, s := range []string{`\"\\\n`, `\\\\\"`, `\u00e9\ud83d\ude00`, "é😀\xe2\x82A", `\x`, "\x00", `\/\/\/\/`, `"`, `\`} {
		f.Add([]byte(strings.Repeat(s, 20)), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, pad uint8) {
		var sb strings.Builder
		sb.WriteString(`{"role":"user","content":"`)
		sb.WriteString(strings.Repeat("a", 24+int(pad%64)))
		sb.Write(data)
		sb.WriteString(strings.Repeat("b", 70))
		sb.WriteString(`"}`)
		checkAgainstRef(t, []byte(sb.String()))
	})
}

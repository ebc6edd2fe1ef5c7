package transport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The fast path for textDocument/didOpen (issue 12).
//
// The general path decodes a body three times over: jsonrpc2 decodes it
// into a generic message (copying the params), protocol.ServerHandler
// decodes the params again into DidOpenTextDocumentParams (its decoder
// buffers them once more), and the text is unescaped into a fresh buffer
// and then copied into a string. On a 50 MB session that is four copies of
// the document and three passes of a general JSON decoder, most of the
// open time and nearly all of the peak memory.
//
// The text is the only large value, and editors send didOpen in one
// shape. decodeFast reads that shape straight from the frame: it checks
// the whole body first, then unescapes the text in place, inside the body
// itself (unescaping never lengthens valid UTF-8), so the document's text
// is the frame's own memory and no copy of it is made. Anything it does
// not recognise exactly (another key, a duplicate key, an id, a version
// that is not a plain integer, invalid JSON) is left to the general path,
// untouched: the body is only written once it is known to be accepted.
//
// The values it produces are the general path's: strings are unescaped
// as github.com/segmentio/encoding/json (which jsonrpc2 and protocol use)
// does, invalid UTF-8 included: each byte of an invalid sequence becomes
// U+FFFD, a lone surrogate escape becomes U+FFFD.

// Open is a didOpen decoded by decodeFast. It embeds the jsonrpc2
// notification (whose params are null), so that the connection and the
// router treat it as any other notification; the Server's Handle reads
// DidOpen instead of the params.
type Open struct {
	*jsonrpc2.Notification
	DidOpen protocol.DidOpenTextDocumentParams
}

// decodeFast returns body decoded when it is a didOpen notification, or a
// didChange that replaces the whole text, in the shape editors send, or
// nil (leaving body untouched) otherwise.
func decodeFast(body []byte) jsonrpc2.Message { return decodeFastScanned(body, nil) }

// decodePrescanned is decodeFastScanned for a body whose text literal was
// checked, and perhaps unescaped over itself, while it arrived (pre, when
// not nil): when the fast path refuses it, or takes another literal for
// the text, the literal is put back as it came, and the body decoded again
// (then it is refused, or taken, exactly as a body that was never
// touched). A nil message with a nil error: the body is as it came, for
// the general path.
func decodePrescanned(body []byte, pre *prescanned) (jsonrpc2.Message, error) {
	if msg := decodeFastScanned(body, pre); msg != nil || pre == nil || !pre.in.modified() {
		return msg, nil
	}
	if err := pre.in.restore(body); err != nil {
		return nil, err
	}
	return decodeFastScanned(body, pre), nil
}

// decodeFastScanned is decodeFast with the text literal already checked
// while the body arrived (pre, when not nil; prescan.go).
func decodeFastScanned(body []byte, pre *prescanned) jsonrpc2.Message {
	// The cheap test first: every other message goes its usual way.
	var method string
	switch {
	case containsMethod(body, protocol.MethodTextDocumentDidChange):
		method = protocol.MethodTextDocumentDidChange
	case containsMethod(body, protocol.MethodTextDocumentDidOpen):
		method = protocol.MethodTextDocumentDidOpen
	default:
		return nil
	}
	// Made before the body is parsed: once it is accepted, the body is
	// written, and nothing may refuse it any more.
	n, err := jsonrpc2.NewNotification(method, nil)
	if err != nil {
		return nil
	}
	sc := scanner{b: body, pre: pre}
	if method == protocol.MethodTextDocumentDidChange {
		// A full-text change (one change, with no range) is decoded as a
		// didOpen is. Ranged changes are small, and go the general way
		// (DecodeDidChange).
		if p, ok := sc.parseFullChange(); ok {
			return &FullChange{Notification: n, DidChange: p}
		}
		return nil
	}
	if p, ok := sc.parseOpen(); ok {
		return &Open{Notification: n, DidOpen: p}
	}
	return nil
}

// FullChange is a didChange that replaces the whole text, decoded by
// decodeFast as Open is: Handle reads DidChange instead of the params.
type FullChange struct {
	*jsonrpc2.Notification
	DidChange DidChangeParams
}

// paramsSize is the size of req's params, counted in the router's load:
// a message decodeFast decoded has its params out of Params() (which is
// null), and counts its text.
func paramsSize(req jsonrpc2.Request) int {
	switch m := req.(type) {
	case *Open:
		return len(m.DidOpen.TextDocument.Text)
	case *FullChange:
		n := 0
		for _, c := range m.DidChange.ContentChanges {
			n += len(c.Text)
		}
		return n
	}
	return len(req.Params())
}

// parseFullChange is parseOpen for
//
//	{"jsonrpc":"2.0","method":"textDocument/didChange","params":
//	  {"textDocument":{"uri":…,"version":…},"contentChanges":[{"text":…}]}}
func (sc *scanner) parseFullChange() (DidChangeParams, bool) {
	var p DidChangeParams
	var doc textDocument
	var text span
	params := func() bool {
		return sc.object(func(key string) bool {
			switch key {
			case "textDocument":
				return sc.textDocument(&doc, false)
			case "contentChanges":
				if !sc.literal("[") {
					return false
				}
				ok := sc.object(func(key string) bool {
					if key == "text" {
						var ok bool
						text, ok = sc.str()
						return ok
					}
					// "range" (even null) and "rangeLength" are left to
					// the general path.
					return sc.skipUnknown(key, "text", "range", "rangeLength")
				}, 1)
				return ok && sc.literal("]")
			}
			return sc.skipUnknown(key, "textDocument", "contentChanges")
		}, 2)
	}
	if !sc.notification(protocol.MethodTextDocumentDidChange, params) || !doc.hasVersion || !sc.end() || !sc.preRead() {
		return p, false
	}
	// Accepted: from here on the body may be written.
	p.TextDocument.URI = protocol.DocumentURI(unquoteString(sc.b, doc.uri))
	p.TextDocument.Version = doc.version
	p.ContentChanges = []ContentChange{{Text: sc.unquoteInPlace(text)}}
	return p, true
}

// textDocument is a textDocument object's members, as spans of the body
// until it is accepted.
type textDocument struct {
	uri, languageID, text span
	version               int32
	hasVersion            bool
}

// textDocument scans a textDocument object into d: uri and version, and
// with item languageId and text too (a TextDocumentItem), each once.
func (sc *scanner) textDocument(d *textDocument, item bool) bool {
	known, want := []string{"uri", "version"}, 2
	if item {
		known, want = []string{"uri", "languageId", "text", "version"}, 4
	}
	return sc.object(func(key string) bool {
		var ok bool
		switch {
		case key == "uri":
			d.uri, ok = sc.str()
		case key == "version":
			d.version, ok = sc.int32()
			d.hasVersion = ok
		case item && key == "languageId":
			d.languageID, ok = sc.str()
		case item && key == "text":
			d.text, ok = sc.str()
		default:
			ok = sc.skipUnknown(key, known...)
		}
		return ok
	}, want)
}

// notification scans {"jsonrpc":"2.0","method":<method>,"params":…}, its
// keys in any order, each once, params scanned by params.
func (sc *scanner) notification(method string, params func() bool) bool {
	return sc.object(func(key string) bool {
		switch key {
		case "jsonrpc":
			return sc.literal(`"2.0"`)
		case "method":
			return sc.literal(`"` + method + `"`)
		case "params":
			return params()
		}
		// An id makes it a request (refused by the router), a result or
		// an error a response: the general path decides.
		return sc.skipUnknown(key, "jsonrpc", "method", "params", "id", "result", "error")
	}, 3)
}

// containsMethod reports whether body has "method":"<method>" near its
// start or end (where editors put it; this only decides whether to try).
func containsMethod(body []byte, method string) bool {
	want := []byte(`"` + method + `"`)
	const edge = 512
	return bytes.Contains(body[:min(len(body), edge)], want) || bytes.Contains(body[max(0, len(body)-edge):], want)
}

// span is a string literal's contents in the body (without its quotes).
type span struct {
	start, end int
	grow       int  // bytes that unescaping adds (invalid UTF-8 becomes U+FFFD)
	escaped    bool // has escapes or non-ASCII: must be unescaped
	pre        bool // the prescanned literal (scanner.pre)
}

// parseOpen checks that body is exactly
//
//	{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":
//	  {"uri":…,"languageId":…,"version":…,"text":…}}}
//
// with its keys in any order, each once, and whitespace anywhere JSON
// allows it; then decodes it, unescaping the text inside body.
func (sc *scanner) parseOpen() (protocol.DidOpenTextDocumentParams, bool) {
	var p protocol.DidOpenTextDocumentParams
	var doc textDocument
	params := func() bool {
		return sc.object(func(key string) bool {
			if key != "textDocument" {
				return sc.skipUnknown(key, "textDocument")
			}
			return sc.textDocument(&doc, true)
		}, 1)
	}
	if !sc.notification(protocol.MethodTextDocumentDidOpen, params) || !doc.hasVersion || !sc.end() || !sc.preRead() {
		return p, false
	}
	// Accepted: from here on the body may be written.
	p.TextDocument = protocol.TextDocumentItem{
		URI:        protocol.DocumentURI(unquoteString(sc.b, doc.uri)),
		LanguageID: protocol.LanguageIdentifier(unquoteString(sc.b, doc.languageID)),
		Version:    doc.version,
		Text:       sc.unquoteInPlace(doc.text),
	}
	return p, true
}

// scanner checks JSON in b from i on. Every method returns false on
// anything it does not accept, and the caller then gives up.
type scanner struct {
	b []byte
	i int
	// skipped is set by skipUnknown: the member just read was unknown
	// (object does not count it).
	skipped bool
	// pre, when not nil, is a long literal already checked (prescan.go),
	// and perhaps unescaped over itself (inplace.go); usedPre says the
	// parse took it for the literal at its start.
	pre     *prescanned
	usedPre bool
}

// preRead reports whether the parse read the body as it came: it did not
// read a prescanned literal that was unescaped over itself, unless it
// took it whole (usedPre). A parse that read such bytes must be refused,
// and the literal put back before the body is read again
// (decodePrescanned).
func (s *scanner) preRead() bool {
	return s.pre == nil || !s.pre.in.modified() || s.usedPre
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// literal consumes exactly lit (a value written without escapes).
func (s *scanner) literal(lit string) bool {
	s.ws()
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// object consumes an object whose want keys are each given to member
// exactly once, which consumes the value; member skips other keys' values
// with skipUnknown, and they are not counted. Keys are compared as
// written: a key with escapes is not one of ours.
func (s *scanner) object(member func(key string) bool, want int) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	var seen [4]string
	n, members := 0, 0 // known members; all members
	for {
		s.ws()
		if members > 0 {
			if s.i < len(s.b) && s.b[s.i] == '}' {
				s.i++
				return n == want
			}
			if s.i >= len(s.b) || s.b[s.i] != ',' {
				return false
			}
			s.i++
			s.ws()
		}
		k, ok := s.str()
		if !ok || k.escaped {
			return false
		}
		key := string(s.b[k.start:k.end])
		for _, prev := range seen[:n] {
			if prev == key {
				return false // a duplicate: the general path decides
			}
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.skipped = false
		if !member(key) {
			return false
		}
		if s.skipped {
			// An unknown member, skipped: it counts for nothing.
			s.skipped = false
			members++
			continue
		}
		// Members only accept their known keys, all different: a key
		// seen before was caught above, so n stays within want.
		seen[n] = key
		n++
		members++
	}
}

// skipUnknown skips the value of a member whose key is none of known
// (which the decoders protocol uses ignore). A key that differs from one
// of known only in case is not skipped: those decoders match keys
// regardless of case, so the general path must decide which one counts.
func (s *scanner) skipUnknown(key string, known ...string) bool {
	for _, k := range known {
		if strings.EqualFold(key, k) {
			return false
		}
	}
	s.skipped = true
	return s.skip()
}

// skip consumes one JSON value, checked: its end is found by a scan that
// only follows strings and nesting (at most MaxNesting deep), then
// json.Valid checks the value's grammar (iteratively, without decoding).
func (s *scanner) skip() bool {
	s.ws()
	start := s.i
	depth := 0
scan:
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if _, ok := s.str(); !ok {
				return false
			}
			if depth == 0 {
				break scan
			}
			continue
		case '{', '[':
			depth++
			if depth > MaxNesting {
				return false
			}
		case '}', ']':
			if depth == 0 {
				break scan // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				s.i++
				break scan
			}
		case ',':
			if depth == 0 {
				break scan
			}
		}
		s.i++
	}
	return s.i > start && json.Valid(s.b[start:s.i])
}

// int32 consumes a plain integer (no fraction, no exponent, no leading
// zero) that fits an int32.
func (s *scanner) int32() (int32, bool) {
	s.ws()
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	start := s.i
	var v int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + int64(s.b[s.i]-'0')
		if v > math.MaxInt32+1 {
			return 0, false
		}
		s.i++
	}
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) {
		if c := s.b[s.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		return 0, false
	}
	return int32(v), true
}

// str consumes a string literal, checking it as the JSON grammar does:
// escapes are \" \\ \/ \b \f \n \r \t or \u and four hex digits, and no
// byte below 0x20 appears raw. A long literal (a document's text) is
// checked on every core (longstring.go).
func (s *scanner) str() (span, bool) {
	s.ws()
	b := s.b
	if s.i >= len(b) || b[s.i] != '"' {
		return span{}, false
	}
	start := s.i + 1
	var r strRun
	fromPre := s.pre != nil && s.pre.start == start
	if fromPre {
		r = s.pre.run
		s.usedPre = true
		if !r.bad && r.quote < 0 {
			// The body came in before the prescan reached the end: the
			// rest on every core.
			r = r.then(scanSplit(b, r.next, runs(len(b)-r.next)))
		}
	} else {
		// Most literals are short: their first bytes decide.
		r = scanStr(b, start, min(len(b), start+longString))
		if !r.bad && r.quote < 0 {
			r = r.then(scanSplit(b, r.next, runs(len(b)-r.next)))
		}
	}
	if r.bad || r.quote < 0 {
		return span{}, false
	}
	s.i = r.quote + 1
	return span{start: start, end: r.quote, grow: r.grow, escaped: r.escaped, pre: fromPre}, true
}

// strRun is what scanStr found in a run of a string literal's contents.
type strRun struct {
	quote   int  // the index of the closing quote, or -1 when none came before stop
	bad     bool // a byte the grammar refuses came first
	escaped bool // an escape or a non-ASCII byte: the value must be unescaped
	grow    int  // bytes that unescaping adds (invalid UTF-8 becomes U+FFFD)
	next    int  // where the scan stopped, when it reached stop
}

// then is r followed by the run after it.
func (r strRun) then(after strRun) strRun {
	after.escaped = after.escaped || r.escaped
	after.grow += r.grow
	return after
}

// scanStr checks the contents of a string literal from i, a byte the
// literal reaches (not inside an escape or a character), up to its
// closing quote, a byte the grammar refuses, or stop, whichever comes
// first (an escape or a character that begins before stop is read whole).
func scanStr(b []byte, i, stop int) strRun {
	r := strRun{quote: -1}
	for {
		// Plain ASCII runs eight bytes at a time, and the escapes of one
		// character (nearly all of them) without leaving the loop.
	words:
		for i+8 <= stop {
			m := specialBytes(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			// The flagged bytes of the word in turn: a flag may be false
			// (specialBytes), never missing, so each is looked at.
			for word := i; ; {
				k := bits.TrailingZeros64(m) >> 3
				i = word + k
				if b[i] != '\\' || i+1 >= len(b) || simpleEscape(b[i+1]) == 0 {
					break words
				}
				r.escaped = true
				i += 2
				if k+2 >= 8 {
					continue words
				}
				m &= ^uint64(0) << ((k + 2) * 8) // the escape's two bytes are read
				if m == 0 {
					i = word + 8
					continue words
				}
			}
		}
		if i >= stop {
			r.next = i
			return r
		}
		c := b[i]
		switch {
		case c == '"':
			r.quote = i
			return r
		case c == '\\':
			r.escaped = true
			if i+1 >= len(b) {
				r.bad = true
				return r
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(b, i+2); !ok {
					r.bad = true
					return r
				}
				i += 6
			default:
				r.bad = true
				return r
			}
		case c < 0x20:
			r.bad = true
			return r
		case c < utf8.RuneSelf:
			i++
		default:
			r.escaped = true
			ru, size := utf8.DecodeRune(b[i:])
			if ru == utf8.RuneError && size == 1 {
				r.grow += utf8.RuneLen(utf8.RuneError) - 1
			}
			i += size
		}
	}
}

// simpleEscape returns the character that the escape of one character c
// (the character after a backslash) stands for, or 0 when c does not make
// one (\u, and what JSON does not allow).
func simpleEscape(c byte) byte {
	return simpleEscapes[c]
}

// simpleEscapes is simpleEscape as a table, read in the decoder's inner
// loops.
var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// specialBytes has the high bit set in each byte of x that is '"', '\\',
// below 0x20 or not ASCII.
func specialBytes(x uint64) uint64 {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	zero := func(v uint64) uint64 { return (v - ones) & ^v & high }
	quote := zero(x ^ (ones * '"'))
	bslash := zero(x ^ (ones * '\\'))
	ctrl := (x - ones*0x20) & ^x & high // bytes below 0x20 (and some ≥ 0x80, caught anyway)
	return quote | bslash | ctrl | (x & high)
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unquoteString is a small string's value, in fresh memory.
func unquoteString(body []byte, sp span) string {
	if !sp.escaped {
		return string(body[sp.start:sp.end])
	}
	return string(unquote(make([]byte, 0, sp.end-sp.start+sp.grow), body[sp.start:sp.end], sp.grow == 0))
}

// unquoteInPlace is a string's value written over its literal in the
// body, which it must own from then on (the string shares its memory);
// when the value is longer than the literal (invalid UTF-8) it is written
// to fresh memory instead. Of the prescanned literal, it unescapes what
// the prescan left.
func (s *scanner) unquoteInPlace(sp span) string {
	body := s.b
	if sp.pre && s.pre.in.modified() {
		return unquoteRest(body, sp, &s.pre.in)
	}
	lit := body[sp.start:sp.end]
	var out []byte
	switch {
	case !sp.escaped:
		out = lit
	case sp.grow == 0:
		out = lit[:unquoteSplit(lit, runs(len(lit)))] // longstring.go
	default:
		out = unquote(make([]byte, 0, len(lit)+sp.grow), lit, false)
	}
	if len(out) == 0 {
		return ""
	}
	return unsafe.String(&out[0], len(out))
}

// unquoteRest is unquoteInPlace for a literal whose first bytes are
// unescaped already (in).
func unquoteRest(body []byte, sp span, in *inPlace) string {
	rest := body[in.read:sp.end]
	var out []byte
	if sp.grow == 0 {
		n := unquoteSplit(rest, runs(len(rest))) // longstring.go
		end := in.wrote + copy(body[in.wrote:], rest[:n])
		out = body[sp.start:end]
	} else {
		// Invalid UTF-8 in the rest (unescape stops before it): the value
		// is longer than the literal.
		out = make([]byte, 0, in.wrote-sp.start+len(rest)+sp.grow)
		out = append(out, body[sp.start:in.wrote]...)
		out = unquote(out, rest, false)
	}
	if len(out) == 0 {
		return ""
	}
	return unsafe.String(&out[0], len(out))
}

// unquoteOver writes the value of the checked literal b, which has no
// invalid UTF-8, over b itself and returns its length.
func unquoteOver(b []byte) int {
	r, w := 0, 0
	for {
		r, w = unescapeRun(b, r, w, len(b), false)
		if r >= len(b) {
			return w
		}
		// A \u escape (str checked it, so it is whole).
		ru, n := DecodeU(b[r:])
		var enc [utf8.UTFMax]byte
		w += copy(b[w:], enc[:utf8.EncodeRune(enc[:], ru)]) // never longer than the n bytes read
		r += n
	}
}

// unescapeRun writes the value of the checked literal bytes b[r:end] over
// them at w (w ≤ r) up to the first escape it leaves to its caller: a \u,
// and a \/ when slashes is set (inplace.go logs them). It returns where it
// stopped reading (end, or that escape's backslash) and writing. Runs
// without a backslash move eight bytes at a time: a JSON session sent as a
// string has an escape every few bytes (each quote of its lines is \"),
// where a memmove per run costs more than the run.
func unescapeRun(b []byte, r, w, end int, slashes bool) (int, int) {
	const ones = 0x0101010101010101
	const bslash = ones * '\\'
	for {
		for r+8 <= end {
			x := binary.LittleEndian.Uint64(b[r:])
			v := x ^ bslash
			m := (v - ones) & ^v & (ones * 0x80)
			if m == 0 {
				// w ≤ r, so this store only overwrites bytes already read
				// (or bytes with themselves, w = r).
				if w == r || r-w >= 8 {
					binary.LittleEndian.PutUint64(b[w:], x)
				} else {
					copy(b[w:w+8], b[r:r+8])
				}
				r += 8
				w += 8
				continue
			}
			// The bytes before the backslash. A whole-word store is safe
			// when it writes bytes over themselves (w = r) or only bytes
			// already read (r - w ≥ 8, as soon as a few escapes are
			// behind); otherwise it could overwrite the escape before it is
			// read, and the bytes go one by one.
			k := bits.TrailingZeros64(m) >> 3
			if w == r || r-w >= 8 {
				binary.LittleEndian.PutUint64(b[w:], x)
			} else {
				copy(b[w:w+k], b[r:r+k])
			}
			r += k
			w += k
			break
		}
		for r < end && b[r] != '\\' {
			b[w] = b[r]
			r++
			w++
		}
		if r >= end {
			return r, w
		}
		// The escapes of one character (\" \\ \n …: nearly all of them)
		// are written here, and the loop goes on.
		c := b[r+1]
		if c == 'u' || c == '/' && slashes {
			return r, w
		}
		b[w] = simpleEscape(c)
		r += 2
		w++
	}
}

// unquote appends the value of the checked literal lit to dst, which may
// share lit's memory when the value is no longer than lit (then every
// write lands at or before the byte being read). validUTF8 says lit has
// no invalid UTF-8: its runs between escapes are then copied as they are.
func unquote(dst, lit []byte, validUTF8 bool) []byte {
	for len(lit) > 0 {
		var i int
		if validUTF8 {
			if i = bytes.IndexByte(lit, '\\'); i < 0 {
				i = len(lit)
			}
		} else {
			for i < len(lit) && lit[i] != '\\' && lit[i] < utf8.RuneSelf {
				i++
			}
		}
		dst = append(dst, lit[:i]...)
		lit = lit[i:]
		if len(lit) == 0 {
			break
		}
		if lit[0] >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(lit)
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, lit[:size]...)
			}
			lit = lit[size:]
			continue
		}
		// An escape: str checked it.
		switch c := lit[1]; c {
		case 'u':
			r, n := DecodeU(lit)
			lit = lit[n:]
			dst = utf8.AppendRune(dst, r)
			continue
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		default: // " \ /
			dst = append(dst, c)
		}
		lit = lit[2:]
	}
	return dst
}

// DecodeU decodes the checked \u escape at the start of lit, with the one
// after it when the two are a surrogate pair, and returns the character
// and the bytes read. A surrogate that is not half of a pair is U+FFFD,
// and the escape after it is left to be read on its own.
func DecodeU(lit []byte) (rune, int) {
	r, _ := hex4(lit, 2)
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(lit) >= 12 && lit[6] == '\\' && lit[7] == 'u' {
		r2, _ := hex4(lit, 8)
		if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
			return d, 12
		}
	}
	return unicode.ReplacementChar, 6
}

// Package randjsonl generates random hostile session lines and files for
// differential tests against node's JSON.parse / JSON.stringify.
//
// Most lines are near-valid session records mutated a little, so that every
// branch of a validator is reached: every escape (surrogate pairs, lone
// surrogates, \u0000, \u2028), raw non-ASCII and invalid UTF-8 inside and
// outside strings, numbers of every shape, duplicate and escaped keys, deep
// nesting, every whitespace kind, trailing commas, comments, single quotes,
// truncation, a BOM; and records of every kind and every way a record can be
// wrong. Files add tool-call structure: matching ids, orphan results,
// interleaved calls, swept messages and duplicate ids, with CRLF endings and
// blank lines.
//
// The output depends only on the state of the *rand.Rand passed in.
package randjsonl

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Line returns one random line, without a '\n' (it may contain '\r').
func Line(r *rand.Rand) []byte {
	g := &gen{r: r}
	return g.line()
}

// File returns a random session file of n lines (n < 1 gives one line).
// About half the files are entirely valid, with coherent tool-call
// structure, so that units and cutoffs get exercised; the rest mix in
// invalid lines. Lines end in "\n" or sometimes "\r\n"; blank lines ("",
// "\r", spaces) and a BOM on line 1 appear now and then; the last line may
// lack its newline.
func File(r *rand.Rand, n int) []byte {
	if n < 1 {
		n = 1
	}
	g := &gen{r: r}
	valid := r.IntN(2) == 0
	crlf := r.IntN(4) == 0
	var out []byte
	if r.IntN(12) == 0 {
		out = append(out, 0xEF, 0xBB, 0xBF)
	}
	var open []int // call numbers declared and not yet answered
	next := 1
	for i := 0; i < n; i++ {
		switch k := r.IntN(100); {
		case k < 4 && valid:
			// An empty line, skipped by the runtime (a "\r" or spaces
			// would make the file fail to load).
			out = append(out, '\n')
			continue
		case k < 4:
			out = append(out, blanks[r.IntN(len(blanks))]...)
		case !valid && k < 20:
			out = append(out, g.line()...)
		default:
			out = append(out, g.structured(&open, &next)...)
		}
		if i == n-1 && r.IntN(5) == 0 {
			break // no final newline
		}
		if crlf || r.IntN(30) == 0 {
			out = append(out, '\r')
		}
		out = append(out, '\n')
	}
	return out
}

var blanks = []string{"", "", "\r", " ", "  \t", "\t"}

type gen struct {
	r *rand.Rand
}

func (g *gen) n(k int) int       { return g.r.IntN(k) }
func (g *gen) chance(k int) bool { return g.r.IntN(k) == 0 }
func (g *gen) pick(list []string) string {
	return list[g.r.IntN(len(list))]
}

// line is one hostile line, by kind.
func (g *gen) line() []byte {
	switch k := g.n(100); {
	case k < 30: // a valid record with hostile strings and values
		return g.encode(g.record(g.n(3)), false)
	case k < 55: // a record broken at the record level
		return g.encode(g.badRecord(), false)
	case k < 82: // a record mutated at the byte level
		return g.mutate(g.encode(g.record(g.n(3)), g.chance(3)))
	case k < 90: // some other JSON value
		return g.value(0)
	case k < 94: // odd whitespace around a valid record
		return g.encode(g.record(g.n(3)), true)
	default:
		return []byte(g.pick(specials))
	}
}

var specials = []string{
	"\r", " ", "  ", "\t", "\ufeff", "\ufeff{\"role\":\"user\",\"content\":\"x\"}",
	"\x00", "{}", "[]", "null", "0", "\"user\"", "{\"role\":\"user\",\"content\":\"x\"}\r",
	"{\"role\":\"user\",\"content\":\"x\"} ", "\v{\"role\":\"user\",\"content\":\"x\"}",
	"\f{\"role\":\"user\",\"content\":\"x\"}", "\u00a0{\"role\":\"user\",\"content\":\"x\"}",
	"{\"role\":\"user\",\"content\":\"x\"}\u2028", "{\"role\":\"user\",\"content\":\"x\"}\x00",
	"{\"role\":\"user\",\"content\":\"x\"}{}", "{\"role\":\"user\",\"content\":\"x\",}",
	"{'role':'user','content':'x'}", "{\"role\":\"user\",\"content\":\"x\"} // c",
	"/* c */{\"role\":\"user\",\"content\":\"x\"}", "{role:\"user\",content:\"x\"}",
	"{\"role\":\"user\",\"content\":\"\t\"}", "{\"role\":\"user\",\"content\":\"\x7f\"}",
	"{\"role\":\"user\",\"content\":\"\\u00\"}", "{\"role\":\"user\",\"content\":\"\\x41\"}",
	"{\"role\":\"user\",\"content\":\"\\'\"}", "{\"role\":\"user\",\"content\":\"\\U0041\"}",
	"{\"role\":\"user\",\"content\":\"\\uD83D\\uDE00\"}", "{\"role\":\"user\",\"content\":\"\\uDE00\\uD83D\"}",
	"{\"role\":\"user\",\"content\":\"x\"", "{\"role\":\"user\",\"content\":\"x", "{\"role\"",
	"{\"role\":\"us\xc3\"}", "\xff", "\xef\xbb", "{\"role\":\"user\",\"content\":\"x\"}\xc3",
	"[{\"role\":\"user\",\"content\":\"x\"}]", "{\"role\":\"user\",\"content\":\"x\",\"role\":\"system\"}",
	"{\"role\":\"system\",\"content\":\"x\",\"role\":\"user\"}", "{\"__proto__\":{\"role\":\"user\"},\"content\":\"x\"}",
	"{\"role\":\"user\",\"content\":\"x\",\"__proto__\":null}", "{\"\\u0072ole\":\"\\u0075ser\",\"content\":\"\"}",
	"{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[{\"id\":\"a\",\"name\":\"b\",\"__proto__\":{\"input\":1}}]}",
	"{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[{\"id\":\"a\",\"name\":\"b\",\"input\":1,\"input\":[1e400,-0,1e21]}]}",
	"{\"role\":\"tool\",\"content\":\"\",\"toolCallId\":\"a\",\"isError\":false,\"isError\":\"false\"}",
	"{\"role\":\"tool\",\"content\":\"\",\"toolCallId\":\"a\",\"isError\":\"false\",\"isError\":true}",
}

// member is one key/value pair of an object being built; the key is a JSON
// string literal, the value a JSON text.
type member struct {
	key, val []byte
}

func lit(s string) []byte { return []byte(strconv.Quote(s)) } // ASCII-only callers

// encode writes an object with random (valid, or with odd=true also
// invalid) whitespace between tokens.
func (g *gen) encode(ms []member, odd bool) []byte {
	var b []byte
	b = append(b, g.ws(odd)...)
	b = append(b, '{')
	for i, m := range ms {
		if i > 0 {
			b = append(b, g.ws(odd)...)
			b = append(b, ',')
		}
		b = append(b, g.ws(odd)...)
		b = append(b, g.escapeKey(m.key)...)
		b = append(b, g.ws(odd)...)
		b = append(b, ':')
		b = append(b, g.ws(odd)...)
		b = append(b, m.val...)
	}
	b = append(b, g.ws(odd)...)
	b = append(b, '}')
	b = append(b, g.ws(odd)...)
	return b
}

// escapeKey sometimes writes one letter of a plain key as a \u escape
// ("\u0074oolCalls"), which JSON.parse decodes to the same key: a checker
// must compare decoded keys, not bytes.
func (g *gen) escapeKey(key []byte) []byte {
	if len(key) < 3 || !g.chance(8) {
		return key
	}
	for _, c := range key[1 : len(key)-1] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return key
		}
	}
	i := 1 + g.n(len(key)-2)
	out := append([]byte{}, key[:i]...)
	out = append(out, `\u00`...)
	out = append(out, hexDigits(g, key[i])...)
	return append(out, key[i+1:]...)
}

var wsValid = []string{" ", "\t", "\r", "  ", " \t\r "}
var wsOdd = []string{"\v", "\f", "\u00a0", "\u2028", "\ufeff", "\u3000", "\x00", "\x85", "\u0085"}

func (g *gen) ws(odd bool) string {
	if odd && g.chance(12) {
		return g.pick(wsOdd)
	}
	if g.chance(40) {
		// A long run of valid whitespace, of any length.
		b := make([]byte, g.n(40))
		for i := range b {
			b[i] = " \t\r "[g.n(4)]
		}
		return string(b)
	}
	if g.chance(6) {
		return g.pick(wsValid)
	}
	return ""
}

var roleKeys = []string{`"role"`, `"role"`, `"role"`, `"\u0072ole"`, `"rol\u0065"`}
var contentKeys = []string{`"content"`, `"content"`, `"content"`, `"\u0063ontent"`}

// record returns the members of a valid message: 0 user, 1 assistant, 2 tool.
func (g *gen) record(kind int) []member {
	var ms []member
	role := []string{"user", "assistant", "tool"}[kind]
	ms = append(ms, member{[]byte(g.pick(roleKeys)), g.roleLit(role)})
	ms = append(ms, member{[]byte(g.pick(contentKeys)), g.str()})
	switch kind {
	case 1:
		ms = append(ms, member{[]byte(`"toolCalls"`), g.calls(g.n(4))})
	case 2:
		ms = append(ms, member{[]byte(`"toolCallId"`), g.id()})
		ms = append(ms, member{[]byte(`"isError"`), []byte(g.pick([]string{"true", "false"}))})
	}
	g.extras(&ms)
	g.r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	return ms
}

// roleLit writes a role string, sometimes with escapes that decode to it.
func (g *gen) roleLit(role string) []byte {
	if g.chance(6) {
		var b []byte
		b = append(b, '"')
		for _, c := range []byte(role) {
			if g.chance(2) {
				b = append(b, `\u00`...)
				b = append(b, hexDigits(g, c)...)
			} else {
				b = append(b, c)
			}
		}
		return append(b, '"')
	}
	return lit(role)
}

func hexDigits(g *gen, c byte) string {
	s := strconv.FormatUint(uint64(c), 16)
	if len(s) < 2 {
		s = "0" + s
	}
	if g.chance(2) {
		s = string(bytes.ToUpper([]byte(s)))
	}
	return s
}

// extras adds extra members (allowed everywhere), sometimes duplicating a
// key with a value of the same kind, so the last value still validates.
func (g *gen) extras(ms *[]member) {
	for k := g.n(4) - 1; k > 0; k-- {
		*ms = append(*ms, member{g.key(), g.value(1)})
	}
	if len(*ms) > 0 && g.chance(8) {
		// Duplicate a member: the same key again, same kind of value.
		m := (*ms)[g.n(len(*ms))]
		*ms = append(*ms, member{m.key, g.sameKind(m.val)})
	}
}

// sameKind returns a value that passes the same record check as v.
func (g *gen) sameKind(v []byte) []byte {
	switch {
	case len(v) > 0 && v[0] == '"':
		return v // a string: keep it, the role must still match
	case bytes.Equal(v, []byte("true")), bytes.Equal(v, []byte("false")):
		return []byte(g.pick([]string{"true", "false"}))
	}
	return v
}

var keys = []string{
	`"a"`, `"\u0061"`, `"__proto__"`, `"1"`, `"01"`, `"-1"`, `""`, `"1.5"`,
	`"4294967295"`, `"4294967294"`, `"constructor"`, `"toString"`, `"x y"`,
	`"\ud800"`, `"é"`, `"中"`, `"😀"`, `"input"`, `"meta"`,
	`"timestamp"`, `"\n"`, `"\u0000"`,
}

func (g *gen) key() []byte {
	if g.chance(8) {
		return g.str()
	}
	return []byte(g.pick(keys))
}

var ids = []string{
	`"call_1"`, `"call_2"`, `"call_3"`, `"call_\u0031"`, `"a"`, `"\u0061"`, `""`,
	`"\ud800"`, `"\ud83d\ude00"`, `"😀"`, "\"\xed\xa0\x80\"", `"id\u0000"`, `"toString"`,
	`"__proto__"`, `"é"`, `"e\u0301"`, "\"\xff\"", "\"\xef\xbf\xbd\"",
}

func (g *gen) id() []byte {
	if g.chance(10) {
		return g.str()
	}
	return []byte(g.pick(ids))
}

var toolNames = []string{`"read_file"`, `"run"`, `"edit"`, `""`, `"\u0072un"`, `"ls"`}

// calls returns a toolCalls array of n valid calls.
func (g *gen) calls(n int) []byte {
	var b []byte
	b = append(b, '[')
	b = append(b, g.ws(false)...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, g.encode(g.call(g.id()), false)...)
	}
	return append(b, ']')
}

func (g *gen) call(id []byte) []member {
	ms := []member{
		{[]byte(`"id"`), id},
		{[]byte(`"name"`), []byte(g.pick(toolNames))},
		{[]byte(`"input"`), g.value(1)},
	}
	if g.chance(5) {
		ms[2].val = []byte("null")
	}
	if g.chance(8) {
		// A repeated input: the last value is the one kept and measured.
		ms = append(ms, member{[]byte(`"input"`), g.value(1)})
	}
	g.extras(&ms)
	g.r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	if g.chance(15) {
		// A repeated id or name whose first value is of the wrong type:
		// the last one wins, so the call stays valid.
		m := []member{{[]byte(`"id"`), []byte("5")}, {[]byte(`"name"`), []byte("null")}}[g.n(2)]
		ms = append([]member{m}, ms...)
	}
	return ms
}

var nonStrings = []string{"5", "null", "true", "false", "[]", "{}", `["user"]`, `{"a":"b"}`, "0", "-0", "1e400"}
var badRoles = []string{`"system"`, `"User"`, `"user "`, `""`, `"USER"`, `"tool_result"`, `"assistant\u0000"`, `"\u0075ser"`, `"us\u0065r"`}

// badRecord returns the members of a record with one record-level fault
// (a few of the faults below are in fact valid: they test that the checker
// does not over-reject).
func (g *gen) badRecord() []member {
	kind := g.n(3)
	ms := g.record(kind)
	find := func(key string) int {
		for i, m := range ms {
			if string(m.key) == key {
				return i
			}
		}
		return -1
	}
	drop := func(key string) {
		if i := find(key); i >= 0 {
			ms = append(ms[:i], ms[i+1:]...)
		}
	}
	set := func(key string, val []byte) {
		if i := find(key); i >= 0 {
			ms[i].val = val
		} else {
			ms = append(ms, member{[]byte(key), val})
		}
	}
	// Normalise the keys so find works: escaped keys are exercised by the
	// valid records.
	for i := range ms {
		switch string(ms[i].key) {
		case `"\u0072ole"`, `"rol\u0065"`:
			ms[i].key = []byte(`"role"`)
		case `"\u0063ontent"`:
			ms[i].key = []byte(`"content"`)
		}
	}
	switch g.n(8) {
	case 0:
		drop(`"role"`)
	case 1:
		set(`"role"`, []byte(g.pick(nonStrings)))
	case 2:
		set(`"role"`, []byte(g.pick(badRoles)))
	case 3:
		if g.chance(2) {
			drop(`"content"`)
		} else {
			set(`"content"`, []byte(g.pick(nonStrings)))
		}
	case 4: // a later duplicate that overrides a good member
		if kind > 0 && g.chance(2) {
			k := map[int]string{1: `"toolCalls"`, 2: `"toolCallId"`}[kind]
			if kind == 2 && g.chance(2) {
				k = `"isError"`
			}
			ms = append(ms, member{[]byte(k), []byte(g.pick(nonStrings))})
		} else if g.chance(2) {
			ms = append(ms, member{[]byte(`"role"`), []byte(g.pick(append(badRoles, nonStrings...)))})
		} else {
			ms = append(ms, member{[]byte(`"content"`), []byte(g.pick(nonStrings))})
		}
	case 5:
		ms = g.badAssistant(ms, set, drop)
	case 6:
		switch g.n(5) {
		case 0:
			drop(`"toolCallId"`)
		case 1:
			set(`"toolCallId"`, []byte(g.pick(nonStrings)))
		case 2:
			drop(`"isError"`)
		case 3:
			set(`"isError"`, []byte(g.pick([]string{`"false"`, `"true"`, "0", "1", "null", "[]"})))
		default:
			set(`"role"`, lit("tool")) // right role, maybe wrong fields
		}
	default: // a valid record of one role wearing another's fields
		set(`"role"`, lit([]string{"user", "assistant", "tool"}[g.n(3)]))
	}
	return ms
}

func (g *gen) badAssistant(ms []member, set func(string, []byte), drop func(string)) []member {
	set(`"role"`, lit("assistant"))
	switch g.n(10) {
	case 0:
		drop(`"toolCalls"`)
	case 1:
		set(`"toolCalls"`, []byte(g.pick([]string{"null", "{}", `"[]"`, "0", `{"0":{"id":"a","name":"b","input":1},"length":1}`})))
	default:
		// An array with one faulty element among good ones.
		var elems [][]byte
		n := 1 + g.n(4)
		bad := g.n(n)
		for i := 0; i < n; i++ {
			if i != bad {
				elems = append(elems, g.encode(g.call(g.id()), false))
				continue
			}
			elems = append(elems, g.badCall())
		}
		set(`"toolCalls"`, append(append([]byte{'['}, bytes.Join(elems, []byte{','})...), ']'))
	}
	return ms
}

func (g *gen) badCall() []byte {
	if g.chance(5) {
		return []byte(g.pick([]string{"null", "5", `"x"`, "[]", `[{"id":"a","name":"b","input":1}]`, "true"}))
	}
	c := g.call(g.id())
	idx := func(key string) int {
		for i, m := range c {
			if string(m.key) == key {
				return i
			}
		}
		return -1
	}
	switch g.n(7) {
	case 6: // a later duplicate of the wrong type overrides a good member
		c = append(c, member{[]byte(g.pick([]string{`"id"`, `"name"`})), []byte(g.pick(nonStrings))})
	case 0:
		i := idx(`"id"`)
		c = append(c[:i], c[i+1:]...)
	case 1:
		c[idx(`"id"`)].val = []byte(g.pick(nonStrings))
	case 2:
		i := idx(`"name"`)
		c = append(c[:i], c[i+1:]...)
	case 3:
		c[idx(`"name"`)].val = []byte(g.pick(nonStrings))
	case 4:
		i := idx(`"input"`)
		c = append(c[:i], c[i+1:]...)
	default:
		c[idx(`"input"`)].val = []byte("null") // valid
	}
	return g.encode(c, false)
}

// value returns a random JSON value (valid, apart from the odd invalid
// number), nesting deeper now and then.
func (g *gen) value(depth int) []byte {
	k := g.n(12)
	if depth > 4 && k >= 8 {
		k = g.n(8)
	}
	switch k {
	case 0, 1, 2:
		return g.str()
	case 3, 4:
		return g.num()
	case 5:
		return []byte(g.pick([]string{"true", "false", "null"}))
	case 6:
		if g.chance(40) {
			return g.deep()
		}
		fallthrough
	case 7:
		return []byte(`"` + g.pick([]string{"x", "é", "\\n", "\\ud800", "😀"}) + `"`)
	case 8, 9:
		var b []byte
		b = append(b, '[')
		for i, n := 0, g.n(4); i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, g.ws(false)...)
			b = append(b, g.value(depth+1)...)
		}
		return append(b, ']')
	default:
		n := g.n(4)
		if g.chance(25) {
			// A wide object: many members, keys from a small set, so most
			// are repeated and the last value (of any length) must win
			// while the first position stays.
			n = 10 + g.n(300)
		}
		var ms []member
		for i := 0; i < n; i++ {
			var v []byte
			switch {
			case n <= 10:
				v = g.value(depth + 1)
			case g.chance(2): // scalars only, so the size stays bounded
				v = g.num()
			default:
				v = g.str()
			}
			ms = append(ms, member{g.key(), v})
		}
		return g.encode(ms, false)
	}
}

// deep returns arrays/objects nested up to 300 levels.
func (g *gen) deep() []byte {
	d := 1 + g.n(300)
	var b []byte
	closers := make([]byte, 0, d)
	for i := 0; i < d; i++ {
		if g.chance(2) {
			b = append(b, '[')
			closers = append(closers, ']')
		} else {
			b = append(b, `{"k":`...)
			closers = append(closers, '}')
		}
	}
	b = append(b, g.num()...)
	for i := len(closers) - 1; i >= 0; i-- {
		b = append(b, closers[i])
	}
	return b
}

var numbers = []string{
	"0", "-0", "1", "-1", "1e400", "-1e400", "1e21", "1e20", "1e-7", "1e-6", "5e-324",
	"2e-324", "3e-324", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
	"0.1", "0.1000000000000000055511151231257827", "123456789012345678901234567890",
	"1E+2", "1e-0", "0.0", "-0.0", "100", "1.5e300", "9007199254740993", "4.35", "0.000001",
	"0.0000001", "123e-20", "1.0", "2.5E-3", "-1.5e+10", "0e0", "-0E-0", "1e+21", "999999999999999999999",
	"0.30000000000000004", "1.23456789012345678901234567890", "12345678901234567890e-40",
	"100000000000000000000", "1000000000000000000000", "0.00001", "1e-10000", "-0.0000", "5e-7",
	"1.7976931348623157e309", "4.9406564584124654e-324", "2.2250738585072011e-308", "6.02214076e23",
}

// num returns a valid JSON number literal.
func (g *gen) num() []byte {
	switch g.n(9) {
	case 0:
		// Any double, written shortest or with too many or too few digits,
		// so parsing must round and printing must find the shortest form.
		f := math.Float64frombits(g.r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 0
		}
		prec := -1
		if g.chance(2) {
			prec = 1 + g.n(25)
		}
		return []byte(strconv.FormatFloat(f, "eEfg"[g.n(4)], prec, 64))
	case 1:
		// Very long literals: hundreds of digits before or after the point.
		var b []byte
		if g.chance(2) {
			b = append(b, '-')
		}
		if g.chance(2) {
			b = append(b, "0."...)
			b = append(b, bytes.Repeat([]byte{'0'}, g.n(400))...)
			b = append(b, byte('1'+g.n(9)))
		} else {
			b = append(b, byte('1'+g.n(9)))
			for i, n := 0, g.n(400); i < n; i++ {
				b = append(b, byte('0'+g.n(10)))
			}
		}
		if g.chance(3) {
			b = append(b, 'e', '-')
			b = strconv.AppendInt(b, int64(g.n(700)), 10)
		}
		return b
	case 3:
		// Small integers, the commonest numbers in real inputs.
		return strconv.AppendInt(nil, int64(g.n(2001)-1000), 10)
	case 2:
		// Integers around 2^53 and powers of ten around the 1e21 switch.
		if g.chance(2) {
			return strconv.AppendInt(nil, int64(1<<53)+int64(g.n(11))-5, 10)
		}
		return []byte("1" + strings.Repeat("0", 15+g.n(10)))
	}
	if g.chance(3) {
		var b []byte
		if g.chance(3) {
			b = append(b, '-')
		}
		nd := 1 + g.n(25)
		b = append(b, byte('1'+g.n(9)))
		for i := 1; i < nd; i++ {
			b = append(b, byte('0'+g.n(10)))
		}
		if g.chance(2) {
			b = append(b, '.')
			for i, n := 0, 1+g.n(20); i < n; i++ {
				b = append(b, byte('0'+g.n(10)))
			}
		}
		if g.chance(2) {
			b = append(b, g.pick([]string{"e", "E", "e+", "e-", "E-"})...)
			b = strconv.AppendInt(b, int64(g.n(400)), 10)
		}
		return b
	}
	return []byte(g.pick(numbers))
}

var badNumbers = []string{"017", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "-Infinity", "1e+", "--1", "01.5", "-.5", "1.e5", "00", "-01", "1_000", "١"}

var strPieces = []string{
	"hello", "a b", "x", "café", "Straße", "中文", "«»", "😀", "👩‍💻", "\u2028", "\u2029", "\ufeff",
	"\ufffd", "\x7f", "/", "<script>", "e\u0301", "\U0010ffff", "\uffff", "\u0080",
	`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0000`, `\u001f`, `\u001F`, `\u007f`, `\u0020`,
	`\u2028`, `\u2029`, `\ufeff`, `\uFFFF`, `\u00e9`, `\u4e2D`, `\ud83d\ude00`, `\uD83D\uDE00`,
	`\ud800`, `\udc00`, `\udbff\udfff`, `\ud800\u0041`, `\ude00\ud83d`, `\ud800\ud800`, `\udfff`,
	`\ud83d😀`, `\u0022`, `\u005c`, `\u005C\u0022`,
	"\xc3", "\xe4\xb8", "\xf0\x9f\x98", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xe0\x9f\xbf", "\xed\xa0\x80",
	"\xed\xbf\xbf", "\xed\xa0\x80\xed\xb0\x80", "\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
	"\xf8\x88\x80\x80\x80", "\xfe", "\xff", "\x80", "\xbf\xbf", "\xc3\xc3\xa9", "\xe4\xb8\x41", "\xf0\x9f\x41",
}

// str returns a JSON string literal with hostile but valid contents.
func (g *gen) str() []byte {
	var b []byte
	b = append(b, '"')
	for i, n := 0, g.n(7); i < n; i++ {
		if g.chance(4) {
			// A plain run of any length first, so the piece after it lands
			// at every offset of a word-at-a-time scanner.
			const run = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ -_.:;"
			b = append(b, run[:g.n(len(run)+1)]...)
		}
		b = append(b, g.pick(strPieces)...)
	}
	if g.chance(40) {
		// A long plain stretch, as tool output has.
		b = append(b, bytes.Repeat([]byte("long line \\t "), 50+g.n(200))...)
	}
	return append(b, '"')
}

var mutations = []string{",", "}", "]", "{", "[", `"`, `\`, ":", "x", " ", "\t", "\r", "\v", "\f",
	"\x00", "\x01", "\x1f", "\x80", "\xff", "\xc3", "/", "'", "\u00a0", "\u2028", "\ufeff", "0", "-", "e", "."}

// mutate damages b a little: mostly into invalid JSON, sometimes harmlessly.
func (g *gen) mutate(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	switch g.n(14) {
	case 0: // truncate
		return b[:g.n(len(b))]
	case 1: // delete a byte
		i := g.n(len(b))
		return append(b[:i:i], b[i+1:]...)
	case 2, 3: // insert a byte
		i := g.n(len(b) + 1)
		return insert(b, i, g.pick(mutations))
	case 4: // replace a byte
		i := g.n(len(b))
		m := g.pick(mutations)
		return append(append(b[:i:i], m...), b[i+1:]...)
	case 5: // trailing comma
		if i := bytes.LastIndexAny(b, "}]"); i >= 0 {
			return insert(b, i, ",")
		}
	case 6: // a comment
		return insert(b, g.n(len(b)+1), g.pick([]string{"//c", "/* c */", "#c"}))
	case 7: // single quotes
		return bytes.ReplaceAll(b, []byte(`"`), []byte(`'`))
	case 8: // trailing content
		return append(b, g.pick([]string{"x", " 1", "{}", ",", "\x00", " \r", "\t"})...)
	case 9: // BOM
		return insert(b, 0, "\ufeff")
	case 10: // a bad number in place of a value
		if i := bytes.Index(b, []byte(`:`)); i >= 0 {
			return insert(b, i+1, g.pick(badNumbers)+",\"z\":")
		}
	case 11: // a misspelt literal
		for _, l := range []string{"true", "false", "null"} {
			if i := bytes.Index(b, []byte(l)); i >= 0 {
				return append(append(b[:i:i], g.pick([]string{"True", "nul", "fals", "nulll", "tru e", "NULL"})...), b[i+len(l):]...)
			}
		}
	case 12: // invalid escape or raw control character inside a string
		if i := bytes.IndexByte(b, '"'); i >= 0 {
			return insert(b, i+1, g.pick([]string{`\x41`, `\u12`, `\U0041`, `\'`, `\a`, "\t", "\x01", "\r", `\u00G0`, `\ `}))
		}
	default: // a key without quotes
		if i := bytes.Index(b, []byte(`"role"`)); i >= 0 {
			return append(append(b[:i:i], "role"...), b[i+6:]...)
		}
	}
	return insert(b, g.n(len(b)+1), g.pick(mutations))
}

func insert(b []byte, i int, s string) []byte {
	out := make([]byte, 0, len(b)+len(s))
	out = append(out, b[:i]...)
	out = append(out, s...)
	return append(out, b[i:]...)
}

// structured returns a valid line that continues a coherent session: calls
// declared and answered, some results orphaned, some answered twice, some
// ids declared twice, results interleaved with other messages.
func (g *gen) structured(open *[]int, next *int) []byte {
	switch k := g.n(100); {
	case k < 15:
		return g.encode(g.record(0), false)
	case k < 40: // an assistant declaring new (or sometimes reused) calls
		n := g.n(4)
		if g.chance(30) {
			n = 10 + g.n(100) // a wide fan-out
		}
		var elems [][]byte
		for i := 0; i < n; i++ {
			id := *next
			if g.chance(10) && *next > 1 {
				id = 1 + g.n(*next-1) // a duplicate id
			} else {
				*next++
			}
			*open = append(*open, id)
			elems = append(elems, g.encode(g.call(callID(g, id)), false))
		}
		ms := g.record(1)
		for i := range ms {
			if string(ms[i].key) == `"toolCalls"` {
				ms[i].val = append(append([]byte{'['}, bytes.Join(elems, []byte{','})...), ']')
			}
		}
		return g.encode(ms, false)
	default: // a tool result: usually for an open call
		ms := g.record(2)
		var id []byte
		switch {
		case len(*open) > 0 && !g.chance(8):
			j := 0
			if g.chance(3) {
				j = g.n(len(*open)) // out of order
			}
			id = callID(g, (*open)[j])
			if !g.chance(10) { // sometimes answered twice
				*open = append((*open)[:j], (*open)[j+1:]...)
			}
		case g.chance(2):
			id = g.id() // an orphan, or a collision with an odd id
		default:
			id = callID(g, *next+100) // an orphan
		}
		for i := range ms {
			if string(ms[i].key) == `"toolCallId"` {
				ms[i].val = id
			}
		}
		return g.encode(ms, false)
	}
}

// callID writes call_<n>, sometimes with an escape that decodes the same.
func callID(g *gen, n int) []byte {
	b := []byte(`"call_`)
	if g.chance(10) {
		b = []byte(`"call\u005f`)
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '"')
}

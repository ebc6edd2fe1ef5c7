package line

import (
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// costCases are valid lines whose cost node computes:
// JSON.stringify(parseSessionMessage(JSON.parse(line))).length + 1, with the
// line decoded by Buffer.toString("utf8") (the oracle,
// testdata/oracle/runtime.mjs; TestTablesAgreeWithNode asks it). width is
// the decoded line's .length.
var costCases = []struct {
	name  string
	line  string
	cost  int64
	width int
}{
	{"user", `{"role":"user","content":"hi"}`, 31, 30},
	{"short escapes", `{"role":"user","content":"\n\"\\\/\b\f\r\t"}`, 44, 44},
	{"unicode escapes", `{"role":"user","content":"\u00e9\u0000\u001f\u0022\u005c\u0008\u2028\u007f\u002F\u000A"}`, 53, 88},
	{"surrogate escapes", `{"role":"user","content":"\ud83d\ude00|\ud800|\udc00|\ud800\ud800\udc00|\udc00\ud800|\uD83D\uDE00|\ud83d\u0041"}`, 78, 112},
	{"raw non-ASCII", "{\"role\":\"user\",\"content\":\"é中文😀\u2028\ufeff\u007f\"}", 37, 36},
	{"invalid UTF-8 in a string", "{\"role\":\"user\",\"content\":\"\xe2\x82A\xed\xa0\x80\xc0\x80\xf5\xff\x80\xf0\x90\x80\"}", 40, 39},
	{"truncated sequence before the quote", "{\"role\":\"user\",\"content\":\"\xf0\x9f\x98\"}", 30, 29},
	{"tool false", `{"role":"tool","content":"out","toolCallId":"call_1","isError":false}`, 70, 69},
	{"tool true escaped id", `{"role":"tool","content":"out","toolCallId":"call\u005f1\ud800","isError":true,"extra":{"x":[1,2]}}`, 75, 99},
	{"assistant empty calls", `{"role":"assistant","content":"","toolCalls":[]}`, 49, 48},
	{"assistant numbers", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":[1e400,-1e400,-0,0.1,1e21,1e-7,1.5e-7,123456789012345678,99999999999999999999,1E2,1e-400,0.000001,123.456e2,-0.0,5e-324,1.7976931348623157e308,999999999999999999999,100,0,-5,1.0,2.50,1e+2,0e0]}]}`, 238, 270},
	{"assistant literals", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":[true,false,null,{},[],""]}]}`, 105, 104},
	{"dup keys in input", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"a":1,"a":"long value","b":2}}]}`, 103, 108},
	{"escaped dup key", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"a":1,"\u0061":22,"é":3,"\u00e9":44}}]}`, 94, 115},
	{"lone surrogate keys", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"\ud800":1,"\ud800":22,"\udc00":3}}]}`, 103, 113},
	{"invalid UTF-8 keys collapse", "{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[{\"id\":\"a\",\"name\":\"n\",\"input\":{\"\xff\":1,\"\xfe\":22,\"\xef\xbf\xbd\":333}}]}", 88, 100},
	{"dup keys in element", `{"role":"assistant","content":"","toolCalls":[{"id":"first","id":"b","name":"n","input":{"deep":[1,2,3]},"input":null}]}`, 83, 120},
	{"nested dup keys", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"a":{"a":1,"b":2,"a":3},"b":{"a":3},"a":4}}]}`, 98, 121},
	{"many keys with dups", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{` + manyKeys() + `}}]}`, 343, 494},
	{"top-level dup content", `{"role":"user","content":"aaaa","content":"b","content2":"ignored"}`, 30, 67},
	{"escaped role", `{"role":"\u0075ser","content":"x"}`, 30, 34},
	{"toolCalls replaced", `{"role":"assistant","content":"x","toolCalls":[1],"toolCalls":[{"id":"a","name":"n","input":"é"}]}`, 83, 98},
	{"whitespace everywhere", " \t{ \"role\" : \"user\" , \"content\" : \"x\" } \r", 30, 41},
	{"__proto__ members are own data", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":1,"__proto__":{"x":[1,2]},"__proto__":5}]}`, 95, 118},
	{"index-like keys", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":{"1":1,"01":2,"1":3,"4294967295":4,"toJSON":5}}]}`, 120, 125},
	{"many calls", `{"role":"assistant","content":"c","toolCalls":[{"id":"1","name":"a","input":{}},{"name":"b","id":"2","input":[],"x":{"y":"\u0000"}}]}`, 134, 133},
}

// manyKeys makes an object body with more keys than indexThreshold and
// duplicates before and after the index is built.
func manyKeys() string {
	var parts []string
	for i := 0; i < 40; i++ {
		parts = append(parts, `"k`+itoa(i%25)+`":`+strings.Repeat("1", i%7+1))
	}
	return strings.Join(parts, ",")
}

func TestCosts(t *testing.T) {
	for _, c := range costCases {
		t.Run(c.name, func(t *testing.T) {
			r := Parse([]byte(c.line))
			if r.Verdict != Valid {
				t.Fatalf("verdict %v (%s at %+v), want valid", r.Verdict, r.Reason, r.Span)
			}
			if r.Cost != c.cost {
				t.Errorf("cost %d, node says %d", r.Cost, c.cost)
			}
			if r.Width16 != c.width {
				t.Errorf("Width16 %d, node says %d", r.Width16, c.width)
			}
			checkAgainstRef(t, []byte(c.line))
		})
	}
}

// errorCases are invalid lines with the Reason and Span Parse gives; their
// verdicts are node's (TestTablesAgreeWithNode).
var errorCases = []struct {
	name    string
	line    string
	verdict Verdict
	reason  string
	span    Span
}{
	// JSON.parse failures.
	{"blank spaces", "   ", InvalidJSON, "blank line (only whitespace)", Span{0, 3, 0, 3}},
	{"blank CR", "\r", InvalidJSON, "blank line (only whitespace)", Span{0, 1, 0, 1}},
	{"BOM", "\ufeff{}", InvalidJSON, "byte order mark (U+FEFF) before the JSON value", Span{0, 3, 0, 1}},
	{"non-ASCII outside a string", `{"a":1,é:2}`, InvalidJSON, "invalid UTF-8 / non-ASCII character outside a string", Span{7, 9, 7, 8}},
	{"invalid byte outside a string", "[\"é\",\xff]", InvalidJSON, "invalid UTF-8 / non-ASCII character outside a string", Span{6, 7, 5, 6}},
	{"trailing comma", `{"role":"user","content":"x",}`, InvalidJSON, `unexpected character "}"`, Span{29, 30, 29, 30}},
	{"single quotes", `{'a':1}`, InvalidJSON, `unexpected character "'"`, Span{1, 2, 1, 2}},
	{"missing colon", `{"a" 1}`, InvalidJSON, `unexpected character "1"`, Span{5, 6, 5, 6}},
	{"NUL outside", "{}\x00", InvalidJSON, "unexpected content after the JSON value", Span{2, 3, 2, 3}},
	{"NUL as value", "[\x00]", InvalidJSON, "unexpected character U+0000", Span{1, 2, 1, 2}},
	{"quote where a comma goes", `["a""b"]`, InvalidJSON, `unexpected character '"'`, Span{4, 5, 4, 5}},
	{"trailing content", `{} {}`, InvalidJSON, "unexpected content after the JSON value", Span{3, 4, 3, 4}},
	{"unterminated object", `{"a":1`, InvalidJSON, "unexpected end of line", Span{6, 6, 6, 6}},
	{"unterminated string", `{"a":"é12`, InvalidJSON, "unexpected end of line: unterminated string", Span{5, 10, 5, 9}},
	{"backslash at the end", `["a\`, InvalidJSON, "unexpected end of line: unterminated string", Span{1, 4, 1, 4}},
	{"raw tab in string", "[\"a\tb\"]", InvalidJSON, "control character U+0009 in string", Span{3, 4, 3, 4}},
	{"raw CR in string", "[\"a\rb\"]", InvalidJSON, "control character U+000D in string", Span{3, 4, 3, 4}},
	{"raw NUL in string", "[\"\x00\"]", InvalidJSON, "control character U+0000 in string", Span{2, 3, 2, 3}},
	{"bad escape", `["\x"]`, InvalidJSON, `bad escape "\x"`, Span{3, 4, 3, 4}},
	{"bad escape single quote", `["\'"]`, InvalidJSON, `bad escape "\'"`, Span{3, 4, 3, 4}},
	{"bad escape non-ASCII", `["\é"]`, InvalidJSON, "bad escape: backslash before a non-ASCII character", Span{3, 5, 3, 4}},
	{"bad u escape", `["\u12g4"]`, InvalidJSON, `bad \u escape`, Span{6, 7, 6, 7}},
	{"short u escape", `["\u12"]`, InvalidJSON, `bad \u escape`, Span{6, 7, 6, 7}},
	{"u escape at the end", `["\u12`, InvalidJSON, "unexpected end of line: unterminated string", Span{1, 6, 1, 6}},
	{"leading zero", `[01]`, InvalidJSON, "leading zero in number", Span{2, 3, 2, 3}},
	{"negative leading zero", `[-012]`, InvalidJSON, "leading zero in number", Span{3, 4, 3, 4}},
	{"dot without digits", `[1.]`, InvalidJSON, `unexpected character "]"`, Span{3, 4, 3, 4}},
	{"leading dot", `[.5]`, InvalidJSON, `unexpected character "."`, Span{1, 2, 1, 2}},
	{"plus sign", `[+1]`, InvalidJSON, `unexpected character "+"`, Span{1, 2, 1, 2}},
	{"lone minus", `[-]`, InvalidJSON, `unexpected character "]"`, Span{2, 3, 2, 3}},
	{"empty exponent", `[1e+]`, InvalidJSON, `unexpected character "]"`, Span{4, 5, 4, 5}},
	{"NaN", `[NaN]`, InvalidJSON, `unexpected character "N"`, Span{1, 2, 1, 2}},
	{"Infinity", `[Infinity]`, InvalidJSON, `unexpected character "I"`, Span{1, 2, 1, 2}},
	{"hex number", `[0x1]`, InvalidJSON, `unexpected character "x"`, Span{2, 3, 2, 3}},
	{"bad literal", `[tru]`, InvalidJSON, `unexpected character "]"`, Span{4, 5, 4, 5}},
	{"capital literal", `[True]`, InvalidJSON, `unexpected character "T"`, Span{1, 2, 1, 2}},
	{"literal at the end", `[nul`, InvalidJSON, "unexpected end of line", Span{4, 4, 4, 4}},
	{"comment", `{} // x`, InvalidJSON, "unexpected content after the JSON value", Span{3, 4, 3, 4}},
	{"bracket mismatch", `[}`, InvalidJSON, `unexpected character "}"`, Span{1, 2, 1, 2}},
	{"astral before the error", `["😀",x]`, InvalidJSON, `unexpected character "x"`, Span{8, 9, 6, 7}},
	{"invalid sequence before the error", "[\"\xe2\x82A\",x]", InvalidJSON, `unexpected character "x"`, Span{7, 8, 6, 7}},

	// parseSessionMessage failures.
	{"array", `[1]`, InvalidRecord, "session record must be an object, got array", Span{0, 3, 0, 3}},
	{"null", ` null `, InvalidRecord, "session record must be an object, got null", Span{1, 5, 1, 5}},
	{"string", `"x"`, InvalidRecord, "session record must be an object, got string", Span{0, 3, 0, 3}},
	{"number", `-1.5e3`, InvalidRecord, "session record must be an object, got number", Span{0, 6, 0, 6}},
	{"boolean", `false`, InvalidRecord, "session record must be an object, got boolean", Span{0, 5, 0, 5}},
	{"role missing", `{"content":"x"}`, InvalidRecord, "role must be a string", Span{0, 15, 0, 15}},
	{"role number", `{"role":1,"content":"x"}`, InvalidRecord, "role must be a string", Span{1, 9, 1, 9}},
	{"role last wins", `{"role":"user","content":"x","role":null}`, InvalidRecord, "role must be a string", Span{29, 40, 29, 40}},
	{"content missing", `{"role":"user"}`, InvalidRecord, "content must be a string", Span{0, 15, 0, 15}},
	{"content array", `{"role":"é","content":["x"]}`, InvalidRecord, "content must be a string", Span{13, 28, 12, 27}},
	{"unknown role", `{"role":"system","content":"x"}`, InvalidRecord, `unknown role "system"`, Span{1, 16, 1, 16}},
	{"unknown role escaped", `{"content":"x","role":"Us\u0000\"\ud800😀"}`, InvalidRecord, `unknown role "Us\u0000\"\ud800😀"`, Span{15, 44, 15, 42}},
	{"unknown role long", `{"content":"x","role":"` + strings.Repeat("r", 100) + `"}`, InvalidRecord, `unknown role "` + strings.Repeat("r", 40) + `…"`, Span{15, 124, 15, 124}},
	{"toolCalls missing", `{"role":"assistant","content":"x"}`, InvalidRecord, "assistant message requires a toolCalls array", Span{0, 34, 0, 34}},
	{"toolCalls object", `{"role":"assistant","content":"x","toolCalls":{}}`, InvalidRecord, "assistant message requires a toolCalls array", Span{34, 48, 34, 48}},
	{"toolCalls last wins", `{"role":"assistant","content":"x","toolCalls":[],"toolCalls":null}`, InvalidRecord, "assistant message requires a toolCalls array", Span{49, 65, 49, 65}},
	{"element not object", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":1},[]]}`, InvalidRecord, "toolCalls[1] must be an object", Span{79, 81, 79, 81}},
	{"element null", `{"role":"assistant","content":"x","toolCalls":[null]}`, InvalidRecord, "toolCalls[0] must be an object", Span{47, 51, 47, 51}},
	{"id missing", `{"role":"assistant","content":"x","toolCalls":[{"name":"n","input":1}]}`, InvalidRecord, "toolCalls[0].id must be a string", Span{47, 69, 47, 69}},
	{"id number", `{"role":"assistant","content":"x","toolCalls":[{"id":7,"name":"n","input":1}]}`, InvalidRecord, "toolCalls[0].id must be a string", Span{48, 54, 48, 54}},
	{"id checked before name", `{"role":"assistant","content":"x","toolCalls":[{"name":1,"id":2}]}`, InvalidRecord, "toolCalls[0].id must be a string", Span{57, 63, 57, 63}},
	{"name missing", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","input":1}]}`, InvalidRecord, "toolCalls[0].name must be a string", Span{47, 67, 47, 67}},
	{"name last wins", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":1,"name":false}]}`, InvalidRecord, "toolCalls[0].name must be a string", Span{78, 90, 78, 90}},
	{"input missing", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n"},{"id":"b"}]}`, InvalidRecord, "toolCalls[0] requires an input member", Span{47, 68, 47, 68}},
	{"input only under __proto__", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","__proto__":{"input":1}}]}`, InvalidRecord, "toolCalls[0] requires an input member", Span{47, 92, 47, 92}},
	{"first failing element wins", `{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":1},{"id":"b","name":"n","input":1},{"id":"c"},5]}`, InvalidRecord, "toolCalls[2].name must be a string", Span{111, 121, 111, 121}},
	{"toolCallId missing", `{"role":"tool","content":"x","isError":true}`, InvalidRecord, "toolCallId must be a string", Span{0, 44, 0, 44}},
	{"toolCallId number", `{"role":"tool","content":"x","toolCallId":5,"isError":true}`, InvalidRecord, "toolCallId must be a string", Span{29, 43, 29, 43}},
	{"isError missing", `{"role":"tool","content":"x","toolCallId":"a"}`, InvalidRecord, "isError must be a boolean", Span{0, 46, 0, 46}},
	{"isError string", `{"role":"tool","content":"x","toolCallId":"a","isError":"true"}`, InvalidRecord, "isError must be a boolean", Span{46, 62, 46, 62}},
	{"isError number", `{"role":"tool","content":"x","toolCallId":"a","isError":0}`, InvalidRecord, "isError must be a boolean", Span{46, 57, 46, 57}},
	{"record after astral content", `{"content":"😀😀","role":5}`, InvalidRecord, "role must be a string", Span{22, 30, 18, 26}},
}

func TestErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			r := Parse([]byte(c.line))
			if r.Verdict != c.verdict || r.Reason != c.reason {
				t.Fatalf("%q: got %v %q, want %v %q", c.line, r.Verdict, r.Reason, c.verdict, c.reason)
			}
			if r.Span != c.span {
				t.Errorf("%q: span %+v, want %+v", c.line, r.Span, c.span)
			}
			if r.Role != RoleNone || r.Cost != 0 || r.Calls != nil {
				t.Errorf("%q: an invalid line carries message facts: %+v", c.line, r)
			}
			checkAgainstRef(t, []byte(c.line))
		})
	}
}

// TestTablesAgreeWithNode asks node, through the oracle, for the verdict,
// cost and width of every line in costCases and errorCases: the tables
// above say what node says, and this keeps them honest. (It replaces the
// LINE_DUMP switches that wrote the lines out for a hand-run script.)
func TestTablesAgreeWithNode(t *testing.T) {
	node := oracle.Node(t)
	type want struct {
		name    string
		line    string
		verdict Verdict
		cost    int64 // valid lines only
		width   int   // -1: Parse's own Width16
	}
	var cases []want
	for _, c := range costCases {
		cases = append(cases, want{c.name, c.line, Valid, c.cost, c.width})
	}
	for _, c := range errorCases {
		cases = append(cases, want{c.name, c.line, c.verdict, 0, -1})
	}
	var lines [][]byte
	for _, c := range cases {
		if c.line == "" || strings.Contains(c.line, "\n") {
			t.Fatalf("%s: a table line must be one non-empty physical line", c.name)
		}
		lines = append(lines, []byte(c.line))
	}
	got := oracle.AskLines(t, node, lines, time.Minute)
	for i, c := range cases {
		n := got[i]
		width := c.width
		if width < 0 {
			width = Parse([]byte(c.line)).Width16
		}
		switch {
		case n.Verdict != c.verdict.String():
			t.Errorf("%s: the table says %v, node says %s (%s)", c.name, c.verdict, n.Verdict, n.Message)
		case n.Width != width:
			t.Errorf("%s: width %d, node says %d", c.name, width, n.Width)
		case c.verdict == Valid && n.Cost == nil:
			t.Errorf("%s: node cannot measure the line: %s", c.name, n.CostError)
		case c.verdict == Valid && *n.Cost != c.cost:
			t.Errorf("%s: the table's cost is %d, node says %d", c.name, c.cost, *n.Cost)
		}
	}
}

// TestParseJSONAnyValue: any value JSON.parse accepts is valid to
// ParseJSON, whatever the runtime's record rules say of it.
func TestParseJSONAnyValue(t *testing.T) {
	for _, s := range []string{
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`,
		`[1,2]`, `"s"`, `0`, `null`, ` {"role":"system","content":"x"} `, `{"role":"assistant","content":"x"}`,
		`{"role":"tool","toolCallId":"a","content":"x"}`,
	} {
		if r := ParseJSON([]byte(s)); r.Verdict != Valid {
			t.Errorf("%s: %v (%s)", s, r.Verdict, r.Reason)
		}
		if Parse([]byte(s)).Verdict != InvalidRecord {
			t.Errorf("%s: the runtime accepts it (the case is no test of ParseJSON)", s)
		}
	}
}

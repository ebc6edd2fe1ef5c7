package line_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
	"github.com/sessionls/sessionls/internal/transcript"
)

// stringifyCases are lines whose JSON.stringify text is known, each aimed
// at one rule of the normalized message and of JSON.stringify.
var stringifyCases = []struct{ name, in, want string }{
	{"user", `{"role":"user","content":"hi"}`, `{"role":"user","content":"hi"}`},
	{"member order and extras", ` { "x" : 1 , "content" : "c", "role" : "user" } `, `{"role":"user","content":"c"}`},
	{"last duplicate wins", `{"role":"user","content":"a","content":"b"}`, `{"role":"user","content":"b"}`},
	{"escaped keys and role", `{"\u0072ole":"\u0075ser","content":"x"}`, `{"role":"user","content":"x"}`},
	{"tool", `{"isError":true,"toolCallId":"c1","content":"","role":"tool","extra":[1]}`,
		`{"role":"tool","content":"","toolCallId":"c1","isError":true}`},
	{"assistant", `{"role":"assistant","content":"","toolCalls":[]}`, `{"role":"assistant","content":"","toolCalls":[]}`},
	{"call kept whole", `{"role":"assistant","content":"","toolCalls":[ {"id":"a","name":"n","input":null,"meta":{"k":[1, 2 ,{}]}} ]}`,
		`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":null,"meta":{"k":[1,2,{}]}}]}`},
	{"array-index keys first", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"b":1,"2":2,"01":3,"10":4,"1":5,"4294967295":6,"4294967294":7,"-1":8}}]}`,
		`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"1":5,"2":2,"10":4,"4294967294":7,"b":1,"01":3,"4294967295":6,"-1":8}}]}`},
	{"duplicate keys: first place, last value", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"a":1,"b":2,"\u0061":{"c":3,"c":4}}}]}`,
		`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{"a":{"c":4},"b":2}}]}`},
	{"numbers", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":[-0,1E2,0.10,1e21,1e-7,123456789012345678,1e400,-1e400,5e-324,0.000001]}]}`,
		`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":[0,100,0.1,1e+21,1e-7,123456789012345680,null,null,5e-324,0.000001]}]}`},
	{"long literals read whole", `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":[1` + strings.Repeat("0", 800) + `e-800,1` + strings.Repeat("0", 900) + `.5e-880,0.` + strings.Repeat("0", 900) + `25e901]}]}`,
		`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":[1,100000000000000000000,2.5]}]}`},
	{"string escapes", `{"role":"user","content":"\/\u00e9\b\u0001\u001f\u007f\u2028\"\\\t"}`,
		"{\"role\":\"user\",\"content\":\"/é\\b\\u0001\\u001f\u007f\u2028\\\"\\\\\\t\"}"},
	{"surrogates", `{"role":"user","content":"\ud83d\ude00\ud800\uDC00x\udfff\ud83d"}`,
		`{"role":"user","content":"😀𐀀x\udfff\ud83d"}`},
	{"invalid UTF-8 becomes U+FFFD", "{\"role\":\"user\",\"content\":\"a\xff\xe4\xb8b\xed\xa0\x80\"}",
		"{\"role\":\"user\",\"content\":\"a\uFFFD\uFFFDb\uFFFD\uFFFD\uFFFD\"}"},
}

func TestStringifyCases(t *testing.T) {
	for _, c := range stringifyCases {
		t.Run(c.name, func(t *testing.T) {
			r := line.Parse([]byte(c.in))
			if r.Verdict != line.Valid {
				t.Fatalf("case is not a valid line: %v %s", r.Verdict, r.Reason)
			}
			got, err := line.AppendStringify([]byte("prefix"), []byte(c.in))
			if err != nil {
				t.Fatalf("AppendStringify: %v", err)
			}
			if !bytes.HasPrefix(got, []byte("prefix")) {
				t.Fatalf("dst was not kept: %q", got)
			}
			got = got[len("prefix"):]
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if n := utf16Len(got); int64(n)+1 != r.Cost {
				t.Errorf("text is %d UTF-16 units, Parse says the cost is %d (text + 1)", n, r.Cost)
			}
		})
	}
}

func utf16Len(b []byte) int {
	n := 0
	for _, r := range string(b) {
		n += utf16.RuneLen(r)
	}
	return n
}

func TestStringifyRefusesInvalidLines(t *testing.T) {
	for _, in := range []string{``, `[]`, `{}`, `{"role":"system","content":""}`, `{"role":"user"}`,
		`{"role":"assistant","content":""}`, `{"role":"tool","content":"","toolCallId":"x"}`, `{"role":"user","content":"x"`} {
		if _, err := line.AppendStringify(nil, []byte(in)); !errors.Is(err, line.ErrNotValid) {
			t.Errorf("%q: got %v, want ErrNotValid", in, err)
		}
	}
}

// TestStringifyDeep writes a message nested far deeper than node's
// JSON.stringify can, without recursion, and bounds the work of
// re-ordering nested objects that each need it.
func TestStringifyDeep(t *testing.T) {
	const depth = 200000
	in := `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
		strings.Repeat(`[{"1":0,"x":`, depth) + "0" + strings.Repeat(`}]`, depth) + `}]}`
	got, err := line.AppendStringify(nil, []byte(in))
	if err != nil {
		t.Fatalf("deep nesting: %v", err)
	}
	want := `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
		strings.Repeat(`[{"1":0,"x":`, depth) + "0" + strings.Repeat(`}]`, depth) + `}]}`
	if string(got) != want {
		t.Errorf("deep nesting written wrong (%d bytes, want %d)", len(got), len(want))
	}
	// Every level re-orders (a numeric key after another key), and each
	// re-order copies the levels inside it: quadratic without the bound.
	hostile := `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
		strings.Repeat(`{"x":0,"1":`, depth) + "0" + strings.Repeat(`}`, depth) + `}]}`
	if _, err := line.AppendStringify(nil, []byte(hostile)); !errors.Is(err, line.ErrTooComplex) {
		t.Errorf("quadratic re-ordering: got %v, want ErrTooComplex", err)
	}
}

// TestStringifyNode compares AppendStringify with node's JSON.stringify of
// the runtime's normalized message, byte for byte, on random hostile lines,
// the demo sessions and a realistic transcript.
func TestStringifyNode(t *testing.T) {
	node := oracle.Node(t)
	var lines [][]byte
	for _, s := range []uint64{11, 12, 13} {
		r := rand.New(rand.NewPCG(s, 0x5731))
		for range 1500 {
			lines = append(lines, randjsonl.Line(r))
		}
		for range 60 {
			lines = append(lines, bytes.Split(randjsonl.File(r, 40), []byte("\n"))...)
		}
	}
	for _, c := range stringifyCases {
		lines = append(lines, []byte(c.in))
	}
	lines = append(lines, oracle.DemoLines(t)...)
	lines = append(lines, bytes.Split(transcript.Session(200, 7), []byte("\n"))...)
	lines = slices.DeleteFunc(lines, func(l []byte) bool { return len(l) == 0 })

	want := oracle.AskStringify(t, node, lines, 2*time.Minute)
	valid, failures := 0, 0
	for i, w := range want {
		r := line.Parse(lines[i])
		got, err := line.AppendStringify(nil, lines[i])
		switch {
		case r.Verdict != line.Valid:
			if w.Text != nil {
				t.Errorf("line %q: we say %v, node stringifies it", lines[i], r.Verdict)
			}
			continue
		case w.Text == nil:
			// Valid, but node's JSON.stringify overflows its stack.
			if r.Depth < 1000 {
				t.Errorf("line %q: node cannot stringify a message %d levels deep", lines[i], r.Depth)
			}
			continue
		}
		valid++
		if err != nil || string(got) != *w.Text {
			failures++
			if failures <= 20 {
				t.Errorf("line %q:\n  ours: %s (%v)\n  node: %s", lines[i], got, err, *w.Text)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d valid lines written differently from node", failures, valid)
	}
	if valid < len(lines)/4 {
		t.Errorf("only %d valid lines of %d: the comparison proves little", valid, len(lines))
	}
	t.Logf("%d lines, %d valid messages compared with node's JSON.stringify", len(lines), valid)
}

// FuzzStringify: AppendStringify never panics, and for a valid line it
// writes valid UTF-8 whose UTF-16 length is Parse's cost minus the
// separator (or reports the bounded work it refused).
func FuzzStringify(f *testing.F) {
	for _, c := range stringifyCases {
		f.Add([]byte(c.in))
	}
	r := rand.New(rand.NewPCG(5, 5))
	for range 200 {
		f.Add(randjsonl.Line(r))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := line.AppendStringify(nil, b)
		res := line.Parse(b)
		if res.Verdict != line.Valid {
			return
		}
		if errors.Is(err, line.ErrTooComplex) {
			return
		}
		if err != nil {
			t.Fatalf("valid line %q: %v", b, err)
		}
		if !utf8.Valid(got) {
			t.Fatalf("valid line %q: text %q is not UTF-8", b, got)
		}
		if n := utf16Len(got); int64(n)+1 != res.Cost {
			t.Fatalf("valid line %q: text %q is %d UTF-16 units, cost %d", b, got, n, res.Cost)
		}
	})
}

package line

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/allocs"
)

// hugeSize is the size of the hostile lines: 10 MB in a normal run, the
// 100 MB the product must survive when LINE_HUGE is set.
func hugeSize() int {
	if os.Getenv("LINE_HUGE") != "" {
		return 100 << 20
	}
	return 10 << 20
}

func TestHostileLines(t *testing.T) {
	n := hugeSize()
	content := strings.Repeat(`ab\"\\\n\u00e9\ud83d\ude00é😀x`, n/40)
	longString := []byte(`{"role":"user","content":"` + content + `"}`)
	deepInput := func(open, close string, levels int) []byte {
		return []byte(`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
			strings.Repeat(open, levels) + "1" + strings.Repeat(close, levels) + `}]}`)
	}
	cases := []struct {
		name     string
		line     []byte
		verdict  Verdict
		reason   string
		maxAlloc uint64 // bytes Parse may allocate
	}{
		// One bit a level (n/8 bytes), counted with append's growth steps.
		{"open brackets", bytes.Repeat([]byte("["), n), InvalidJSON, "unexpected end of line", uint64(n)},
		{"balanced brackets", append(bytes.Repeat([]byte("["), n/2), bytes.Repeat([]byte("]"), n/2)...), InvalidRecord, "session record must be an object, got array", uint64(n / 2)},
		{"100,000 nested arrays in input", deepInput("[", "]", 100000), Valid, "", 1 << 20},
		{"nested objects in input", deepInput(`{"k":`, "}", n/5), Valid, "", uint64(n/4 + 1<<20)},
		{"long string", longString, Valid, "", 1 << 10},
		{"unterminated long string", longString[:len(longString)-2], InvalidJSON, "unexpected end of line: unterminated string", 1 << 10},
		{"NUL bytes", bytes.Repeat([]byte{0}, n), InvalidJSON, "unexpected character U+0000", 1 << 10},
		{"invalid UTF-8", bytes.Repeat([]byte{0xff, 0xc0, 0xe2, 0x82}, n/4), InvalidJSON, "invalid UTF-8 / non-ASCII character outside a string", 1 << 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The least of five parses: the count is the process's, and
			// under -race another goroutine's few KiB can land in one run
			// (5,576 bytes once in CI for the long string, which
			// allocates nothing).
			var r Result
			alloc := allocs.Least(func() { r = Parse(c.line) })
			if r.Verdict != c.verdict || r.Reason != c.reason {
				t.Fatalf("got %v %q, want %v %q", r.Verdict, r.Reason, c.verdict, c.reason)
			}
			if alloc > c.maxAlloc {
				t.Errorf("allocated %d bytes, want at most %d", alloc, c.maxAlloc)
			}
		})
	}
}

func TestHostileCosts(t *testing.T) {
	// A long string: each 36-byte piece `ab\"\\\n\u00e9\ud83d\ude00é😀x`
	// stringifies to "ab" + \" \\ \n (6) + é + 😀 (2) + é + 😀 (2) + x = 15.
	const pieces = 100000
	line := []byte(`{"role":"user","content":"` + strings.Repeat(`ab\"\\\n\u00e9\ud83d\ude00é😀x`, pieces) + `"}`)
	r := Parse(line)
	if want := int64(len(`{"role":"user","content":""}`) + 15*pieces + 1); r.Verdict != Valid || r.Cost != want {
		t.Fatalf("got %v cost %d, want valid cost %d", r.Verdict, r.Cost, want)
	}
	// Deep objects with a duplicate key at a depth where keys are tracked.
	line = []byte(`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
		strings.Repeat(`{"k":0,"k":`, 5000) + "1" + strings.Repeat("}", 5000) + `}]}`)
	r = Parse(line)
	if want := int64(len(`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":1}]}`) + 6*5000 + 1); r.Verdict != Valid || r.Cost != want {
		t.Fatalf("deep duplicate keys: got %v cost %d, want valid cost %d", r.Verdict, r.Cost, want)
	}
	// 100,000 nested arrays around 1 in a call's input.
	const levels = 100000
	line = []byte(`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
		strings.Repeat("[", levels) + "1" + strings.Repeat("]", levels) + `}]}`)
	r = Parse(line)
	want := int64(len(`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":1}]}`) + 2*levels + 1)
	if r.Verdict != Valid || r.Cost != want || r.Depth != levels+3 {
		t.Fatalf("got %v cost %d depth %d, want valid cost %d depth %d", r.Verdict, r.Cost, r.Depth, want, levels+3)
	}
}

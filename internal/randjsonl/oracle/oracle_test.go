package oracle

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSeeds: the extra seed comes after the fixed ones, only when not 0,
// and never writes into the caller's slice.
func TestSeeds(t *testing.T) {
	if got := Seeds(0, 1, 2); !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("Seeds(0, 1, 2) = %v, want [1 2]", got)
	}
	if got := Seeds(7, 1, 2); !slices.Equal(got, []uint64{1, 2, 7}) {
		t.Errorf("Seeds(7, 1, 2) = %v, want [1 2 7]", got)
	}
	fixed := make([]uint64, 1, 4)
	if got := Seeds(9, fixed...); !slices.Equal(got, []uint64{0, 9}) || fixed[:2][1] != 0 {
		t.Errorf("Seeds(9, [0]) = %v and wrote %v into the caller's array, want [0 9] and nothing", got, fixed[:2])
	}
}

func TestDecodeString(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`""`, "", true},
		{`"call_1"`, "call_1", true},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t", true},
		{`"\u00e9\u4e2D"`, "é中", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ud800"`, "\xed\xa0\x80", true},                   // lone high surrogate, WTF-8
		{`"\udc00\ud800"`, "\xed\xb0\x80\xed\xa0\x80", true}, // reversed pair: two lone ones
		{`"\ud800x"`, "\xed\xa0\x80x", true},
		{`"\ud800\u0041"`, "\xed\xa0\x80A", true},
		{`"😀é"`, "😀é", true},
		{`"\x"`, "", false},
		{`"\u12"`, "", false},
		{`"abc`, "", false},
		{`abc`, "", false},
	} {
		got, err := DecodeString([]byte(tc.in))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("DecodeString(%s) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestOracleModes runs the oracle on a small file whose answers are known.
func TestOracleModes(t *testing.T) {
	node := Node(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	data := "{\"role\":\"user\",\"content\":\"hi\"}\n\n" +
		"{\"role\":\"assistant\",\"content\":\"\",\"toolCalls\":[{\"id\":\"\\ud800\",\"name\":\"n\",\"input\":null}]}\n" +
		"{\"role\":\"tool\",\"content\":\"r\",\"toolCallId\":\"\\ud800\",\"isError\":false}\n" +
		"{\"role\":\"system\",\"content\":\"\"}\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	lines, err := Lines(context.Background(), node, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 || lines[0].Line != 1 || lines[1].Line != 3 || lines[3].Line != 5 {
		t.Fatalf("lines: %+v", lines)
	}
	// {"role":"user","content":"hi"} is 30 characters, plus 1.
	if lines[0].Verdict != "valid" || lines[0].Cost == nil || *lines[0].Cost != 31 || lines[0].Role != "user" {
		t.Fatalf("line 1: %+v", lines[0])
	}
	if len(lines[1].IDs) != 1 || lines[1].IDs[0] != "\xed\xa0\x80" || lines[2].ToolCallID != "\xed\xa0\x80" {
		t.Fatalf("ids: %+v %+v", lines[1], lines[2])
	}
	if lines[3].Verdict != "invalid-record" {
		t.Fatalf("line 5: %+v", lines[3])
	}
	files, err := Batch(context.Background(), node, []Job{{Path: path, Budgets: []int64{1}}})
	if err != nil {
		t.Fatal(err)
	}
	b := files[0].Budget
	if b.Loads || b.Kind != "invalid-record" || b.Line != 5 || b.Error != "invalid session record at line 4" {
		t.Fatalf("budget: %+v", b)
	}
}

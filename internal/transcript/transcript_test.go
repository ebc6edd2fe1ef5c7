package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf8"
)

func TestWriteDeterministic(t *testing.T) {
	for _, seed := range []int64{0, 1, 42} {
		var a, b bytes.Buffer
		na, err := Write(&a, 200_000, seed)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := Write(&b, 200_000, seed)
		if err != nil {
			t.Fatal(err)
		}
		if na != nb || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("seed %d: two runs differ (%d vs %d bytes)", seed, na, nb)
		}
		if na != int64(a.Len()) {
			t.Fatalf("seed %d: Write reported %d bytes, wrote %d", seed, na, a.Len())
		}
		if na < 200_000 {
			t.Fatalf("seed %d: wrote %d bytes, want at least 200000", seed, na)
		}
	}
	var a, b bytes.Buffer
	Write(&a, 50_000, 1)
	Write(&b, 50_000, 2)
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("seeds 1 and 2 give the same transcript")
	}
}

func TestWriteZero(t *testing.T) {
	var a bytes.Buffer
	if n, err := Write(&a, 0, 1); n != 0 || err != nil || a.Len() != 0 {
		t.Fatalf("Write(0) = %d, %v, %d bytes", n, err, a.Len())
	}
	if Session(0, 1) != nil {
		t.Fatal("Session(0) is not empty")
	}
}

// TestStructure checks every line is a valid message and every tool result
// answers a call declared by the assistant just before it, in order.
func TestStructure(t *testing.T) {
	data := Session(3000, 7)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) < 3000 {
		t.Fatalf("Session(3000) has %d lines", len(lines))
	}
	var pending []string
	var sawErr, sawNonASCII, sawEmoji, sawBig bool
	for i, ln := range lines {
		if !utf8.Valid(ln) {
			t.Fatalf("line %d is not valid UTF-8", i+1)
		}
		var m Record
		if err := json.Unmarshal(ln, &m); err != nil {
			t.Fatalf("line %d: %v: %q", i+1, err, ln)
		}
		if m.Role == nil || m.Content == nil {
			t.Fatalf("line %d lacks role or content", i+1)
		}
		switch *m.Role {
		case "user":
			if len(pending) != 0 {
				t.Fatalf("line %d: user message while calls %v are pending", i+1, pending)
			}
		case "assistant":
			if len(pending) != 0 {
				t.Fatalf("line %d: assistant while calls %v are pending", i+1, pending)
			}
			if m.ToolCalls == nil {
				t.Fatalf("line %d: assistant without toolCalls", i+1)
			}
			if n := len(*m.ToolCalls); n > 4 {
				t.Fatalf("line %d: %d tool calls", i+1, n)
			}
			for _, c := range *m.ToolCalls {
				if c.ID == nil || c.Name == nil || c.Input == nil {
					t.Fatalf("line %d: incomplete tool call", i+1)
				}
				pending = append(pending, *c.ID)
			}
		case "tool":
			if m.ToolCallID == nil || m.IsError == nil {
				t.Fatalf("line %d: tool lacks toolCallId or isError", i+1)
			}
			if len(pending) == 0 || pending[0] != *m.ToolCallID {
				t.Fatalf("line %d: result for %q, pending %v", i+1, *m.ToolCallID, pending)
			}
			pending = pending[1:]
			sawErr = sawErr || *m.IsError
			if n := len(*m.Content); n < 200 || n > 40_000 {
				t.Fatalf("line %d: tool content of %d bytes", i+1, n)
			}
			sawBig = sawBig || len(*m.Content) > 10_000
		default:
			t.Fatalf("line %d: role %q", i+1, *m.Role)
		}
		sawNonASCII = sawNonASCII || bytes.ContainsRune(ln, 'é') || bytes.ContainsRune(ln, '中')
		sawEmoji = sawEmoji || bytes.ContainsRune(ln, '🚀') || bytes.ContainsRune(ln, '🌍') || bytes.ContainsRune(ln, '🔥')
	}
	if len(pending) != 0 {
		t.Fatalf("transcript ends with calls %v unanswered", pending)
	}
	if !sawErr || !sawNonASCII || !sawEmoji || !sawBig {
		t.Fatalf("transcript lacks variety: isError %v, non-ASCII %v, emoji %v, >10KB %v", sawErr, sawNonASCII, sawEmoji, sawBig)
	}
}

// TestNodeAccepts runs node's JSON.parse on every line.
func TestNodeAccepts(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is required in CI")
		}
		t.Skip("node not installed")
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var b bytes.Buffer
	if _, err := Write(&b, 2<<20, 3); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	want := bytes.Count(b.Bytes(), []byte("\n"))
	script := `const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
let n = 0;
for (const [i, l] of lines.entries()) { try { JSON.parse(l); n++; } catch (e) { console.error("line " + (i + 1) + ": " + e.message); process.exit(1); } }
console.log(n);`
	out, err := exec.Command(node, "-e", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("node rejects the transcript: %v\n%s", err, out)
	}
	if got := string(bytes.TrimSpace(out)); got != strconv.Itoa(want) {
		t.Fatalf("node parsed %s lines, want %d", got, want)
	}
}

func BenchmarkWrite(b *testing.B) {
	b.SetBytes(64 << 20)
	for b.Loop() {
		if _, err := Write(discard{}, 64<<20, 1); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestPrefix: a smaller size with the same seed is a prefix of a larger one
// (bench/compare.sh relies on it to check totals on a readable prefix).
func TestPrefix(t *testing.T) {
	var small, big bytes.Buffer
	if _, err := Write(&small, 300_000, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&big, 2_000_000, 4); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(big.Bytes(), small.Bytes()) {
		t.Fatal("the 300 kB transcript is not a prefix of the 2 MB one")
	}
	if !bytes.HasPrefix(big.Bytes(), Session(50, 4)) {
		t.Fatal("Session(50) is not a prefix of the transcript of the same seed")
	}
}

// Package transcript writes deterministic, realistic coding-agent session
// transcripts (JSONL, one message per line) for benchmarks and tests.
//
// A transcript is a sequence of rounds: a user prompt, then one to three
// assistant steps, each declaring one to four tool calls (ids call_<n>)
// followed by one tool result per call, and a closing assistant message with
// an empty toolCalls array. Tool results are 200 B to 20 KB of Go, Python and
// TypeScript source and command output, with quotes, backslashes, tabs,
// newlines, non-ASCII text, emoji and the odd control character, so a parser
// meets every kind of escape at realistic density.
//
// Speed matters more than variety at the byte level: a pool of snippets is
// escaped once per call, and messages are assembled by concatenating pool
// entries, so writing runs at memory-copy speed (a gigabyte takes seconds).
// Every line is a valid message; every tool result answers a call declared
// by the assistant just before it.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"unicode/utf8"
)

// Write writes whole rounds of messages to w until at least size bytes have
// been written, and returns the number of bytes written. The output depends
// only on size and seed. A size of 0 or less writes nothing.
func Write(w io.Writer, size int64, seed int64) (int64, error) {
	g := newGen(seed)
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	for n < size {
		g.buf = g.round(g.buf[:0])
		m, err := bw.Write(g.buf)
		n += int64(m)
		if err != nil {
			return n, fmt.Errorf("transcript: writing: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("transcript: flushing: %w", err)
	}
	return n, nil
}

// Session returns a transcript of at least n messages (whole rounds, so a
// few more than n when n falls inside a round). n of 0 or less gives nil.
func Session(n int, seed int64) []byte {
	if n <= 0 {
		return nil
	}
	g := newGen(seed)
	var out []byte
	lines := 0
	for lines < n {
		start := len(out)
		out = g.round(out)
		lines += bytes.Count(out[start:], []byte{'\n'})
	}
	return out
}

// Record is a session line decoded for a test's checks, every member a
// pointer so that a missing one reads nil: the runtime's record, as tests
// of this package and the engine's fake parser read it.
type Record struct {
	Role       *string `json:"role"`
	Content    *string `json:"content"`
	ToolCallID *string `json:"toolCallId"`
	IsError    *bool   `json:"isError"`
	ToolCalls  *[]struct {
		ID    *string          `json:"id"`
		Name  *string          `json:"name"`
		Input *json.RawMessage `json:"input"`
	} `json:"toolCalls"`
}

// gen holds the state of one transcript: the escaped snippet pool, the random
// source and the next call number.
type gen struct {
	r     *rand.Rand
	pool  [][]byte // JSON-escaped string contents, without quotes
	short [][]byte // short escaped snippets (< 120 bytes) for edit inputs
	// The fixed texts below, escaped.
	prompts, prose, paths, cmds, errTails [][]byte
	nextID                                int
	buf                                   []byte
}

func newGen(seed int64) *gen {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x5e55_10a5_c0de))}
	g.buildPool()
	esc := func(list []string) [][]byte {
		out := make([][]byte, len(list))
		for i, t := range list {
			out[i] = appendEscaped(nil, []byte(t))
		}
		return out
	}
	g.prompts, g.prose, g.paths = esc(prompts), esc(prose), esc(paths)
	g.cmds, g.errTails = esc(cmds), esc(errTails)
	return g
}

// buildPool assembles 512 snippets of 60 B to 2.5 KB from the source lines
// below and escapes each once.
func (g *gen) buildPool() {
	var raw []byte
	for i := 0; i < 512; i++ {
		raw = raw[:0]
		src := sources[g.r.IntN(len(sources))]
		want := 60 + g.r.IntN(2500)
		j := g.r.IntN(len(src))
		for len(raw) < want {
			ln := src[j%len(src)]
			j++
			raw = append(raw, ln...)
			if g.r.IntN(9) == 0 {
				// Vary the pool a little so snippets are not all alike.
				raw = append(raw, "\t// "...)
				raw = append(raw, words[g.r.IntN(len(words))]...)
			}
			raw = append(raw, '\n')
		}
		g.pool = append(g.pool, appendEscaped(nil, raw))
	}
	for i := 0; i < 128; i++ {
		src := sources[g.r.IntN(len(sources))]
		ln := src[g.r.IntN(len(src))]
		if len(ln) > 110 {
			ln = truncUTF8(ln, 110)
		}
		g.short = append(g.short, appendEscaped(nil, []byte(ln)))
	}
}

func truncUTF8(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

var toolNames = []string{"read_file", "run", "edit_file", "write_file", "grep"}

// round appends one round of messages to b.
func (g *gen) round(b []byte) []byte {
	b = g.user(b)
	steps := 1 + g.r.IntN(3)
	for s := 0; s < steps; s++ {
		ncalls := 1 + g.r.IntN(4)
		first := g.nextID
		g.nextID += ncalls
		b = append(b, `{"role":"assistant","content":"`...)
		b = append(b, g.prose[g.r.IntN(len(g.prose))]...)
		b = append(b, `","toolCalls":[`...)
		names := [4]int{}
		for c := 0; c < ncalls; c++ {
			if c > 0 {
				b = append(b, ',')
			}
			names[c] = g.r.IntN(len(toolNames))
			b = g.call(b, first+c, names[c])
		}
		b = append(b, "]}\n"...)
		for c := 0; c < ncalls; c++ {
			b = g.result(b, first+c)
		}
	}
	b = append(b, `{"role":"assistant","content":"`...)
	b = append(b, g.prose[g.r.IntN(len(g.prose))]...)
	b = append(b, ` `...)
	b = append(b, g.short[g.r.IntN(len(g.short))]...)
	b = append(b, `","toolCalls":[]}`+"\n"...)
	return b
}

func (g *gen) user(b []byte) []byte {
	b = append(b, `{"role":"user","content":"`...)
	b = append(b, g.prompts[g.r.IntN(len(g.prompts))]...)
	if g.r.IntN(3) == 0 {
		b = append(b, `\n\n`...)
		b = append(b, g.pool[g.r.IntN(len(g.pool))]...)
	}
	return append(b, "\"}\n"...)
}

func (g *gen) call(b []byte, id, name int) []byte {
	b = append(b, `{"id":"call_`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `","name":"`...)
	b = append(b, toolNames[name]...)
	b = append(b, `","input":{"path":"`...)
	b = append(b, g.paths[g.r.IntN(len(g.paths))]...)
	b = append(b, '"')
	switch toolNames[name] {
	case "run":
		b = append(b, `,"cmd":"`...)
		b = append(b, g.cmds[g.r.IntN(len(g.cmds))]...)
		b = append(b, `","timeout":`...)
		b = strconv.AppendInt(b, int64(1+g.r.IntN(600)), 10)
	case "edit_file":
		b = append(b, `,"edits":[`...)
		n := 1 + g.r.IntN(3)
		for e := 0; e < n; e++ {
			if e > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"old":"`...)
			b = append(b, g.short[g.r.IntN(len(g.short))]...)
			b = append(b, `","new":"`...)
			b = append(b, g.short[g.r.IntN(len(g.short))]...)
			b = append(b, `"}`...)
		}
		b = append(b, ']')
	case "write_file":
		b = append(b, `,"content":"`...)
		b = append(b, g.pool[g.r.IntN(len(g.pool))]...)
		b = append(b, '"')
	case "grep":
		b = append(b, `,"pattern":"`...)
		b = append(b, g.short[g.r.IntN(len(g.short))]...)
		b = append(b, `","ignoreCase":`...)
		b = strconv.AppendBool(b, g.r.IntN(2) == 0)
	}
	return append(b, "}}"...)
}

// result appends the tool message answering call_<id>: 200 B to 20 KB of
// content, an error about one time in fifteen.
func (g *gen) result(b []byte, id int) []byte {
	b = append(b, `{"role":"tool","toolCallId":"call_`...)
	b = strconv.AppendInt(b, int64(id), 10)
	isErr := g.r.IntN(15) == 0
	if isErr {
		b = append(b, `","isError":true,"content":"`...)
	} else {
		b = append(b, `","isError":false,"content":"`...)
	}
	// Sizes skew small, as real tool output does: most results are a few
	// kilobytes, some reach 20 KB.
	want := 200 + g.r.IntN(2000)
	if g.r.IntN(4) == 0 {
		want = 200 + g.r.IntN(19800)
	}
	start := len(b)
	for len(b)-start < want {
		b = append(b, g.pool[g.r.IntN(len(g.pool))]...)
	}
	if isErr {
		b = append(b, g.errTails[g.r.IntN(len(g.errTails))]...)
	}
	return append(b, "\"}\n"...)
}

// appendEscaped appends s as the contents of a JSON string literal (without
// quotes). s must be valid UTF-8.
func appendEscaped(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	for _, c := range s {
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}

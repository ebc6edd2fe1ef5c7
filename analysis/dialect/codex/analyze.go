package codex

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// syntheticOutput is the output of the result the unsafe fix adds for a
// call that never got one (issue 21's wording).
const syntheticOutput = "tool call interrupted; no result was recorded"

// physLine is one physical line of the file.
type physLine struct {
	n          int // 1-based
	start, end int // data[start:end], without '\n'
	nl         bool
}

// lines splits data as the engine counts lines: on '\n', a last line
// without '\n' counted.
func lines(data []byte) []physLine {
	var out []physLine
	start := 0
	for n := 1; start < len(data); n++ {
		end, nl := len(data), false
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end, nl = start+i, true
		}
		out = append(out, physLine{n: n, start: start, end: end, nl: nl})
		start = end + 1
	}
	return out
}

func wholeLine(l []byte) line.Span {
	v := l
	if !utf8.Valid(l) {
		v = bytes.ToValidUTF8(l, []byte("\uFFFD"))
	}
	return line.Span{Start: 0, End: len(l), StartCol: 0, EndCol: int(width16(v))}
}

// callIDSpan finds the call_id member's string literal in a line.
func callIDSpan(l []byte) line.Span {
	key := []byte(`"call_id":`)
	i := bytes.Index(l, key)
	if i < 0 {
		return wholeLine(l)
	}
	s := i + len(key)
	for s < len(l) && (l[s] == ' ' || l[s] == '\t') {
		s++
	}
	if s >= len(l) || l[s] != '"' {
		return wholeLine(l)
	}
	e, _ := scanString(l, s+1)
	e++
	if e > len(l) {
		e = len(l)
	}
	c0 := int(width16(l[:s]))
	return line.Span{Start: s, End: e, StartCol: c0, EndCol: c0 + int(width16(l[s:e]))}
}

// family words, for messages.
func (f callFamily) call() string {
	switch f {
	case famCustom:
		return "custom tool call"
	case famToolSearch:
		return "tool search call"
	}
	return "function call"
}

func (f callFamily) outputType() string {
	switch f {
	case famCustom:
		return "custom_tool_call_output"
	case famToolSearch:
		return "tool_search_output"
	}
	return "function_call_output"
}

// orphanError is the Responses API's error for an output without its
// call, verbatim where public threads quote it.
func (f callFamily) orphanError(id string) string {
	if f == famToolSearch {
		return "the Responses API refuses an output without its call"
	}
	return fmt.Sprintf("a history sent as recorded is rejected with \"No tool call found for %s output with call_id %s.\"", f.call(), id)
}

func quoteID(id string) string { return textfmt.Sanitize(id) }

// units groups messages as the engine does: a message with calls takes
// every message up to the last output answering one of them.
func units(msgs []analysis.Message, lastOut map[int]int) []analysis.Unit {
	var us []analysis.Unit
	for i := 0; i < len(msgs); {
		end := i
		for j := i; j <= end; j++ {
			if k, ok := lastOut[j]; ok && k > end {
				end = k
			}
		}
		u := analysis.Unit{First: i, Last: end, StartLine: msgs[i].Line, EndLine: msgs[end].Line}
		for k := i; k <= end; k++ {
			u.Chars += msgs[k].Cost
			u.Tokens += msgs[k].Tokens
		}
		us = append(us, u)
		i = end + 1
	}
	var from, fromT int64
	for i := len(us) - 1; i >= 0; i-- {
		from += us[i].Chars
		fromT += us[i].Tokens
		us[i].FromNewest, us[i].TokensFromNewest = from, fromT
	}
	return us
}

// read is a line codex's loader reads, with its record.
type read struct {
	physLine
	rec record
}

// scan is the lines of a file in memory and the records the loader reads.
type scan struct {
	lines []physLine
	reads []read
}

// scanFile reads data's lines as decodeLine does, keeping their records
// and places (for the fixes, which need both).
func scanFile(data []byte) *scan {
	s := &scan{lines: lines(data)}
	for _, pl := range s.lines {
		f := decodeLine(data[pl.start:pl.end], nil, false)
		if f.blank || f.badUTF8 >= 0 || f.jsonBad || f.skip != "" {
			continue
		}
		s.reads = append(s.reads, read{pl, f.rec})
	}
	return s
}

package fix_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

var diffSeed, diffFiles = oracle.DiffFlags("TestDiffNodeFixes", "files", 250)

// seg is one physical line of a corrupted file and what the fixes must
// make of it.
type seg struct {
	corrupt []byte // the line in the corrupted file, its line break included
	safe    []byte // what the safe fixes must leave ("" when they delete it)
	unsafe  []byte // what safe+unsafe fixes must leave, before orphan deletions
	kind    string // the corruption, "" for an untouched line
	// unsafeOnly: only an unsafe fix repairs the line (safe leaves it).
	unsafeOnly bool
}

// corrupter breaks the lines of a valid session in the ways package fix
// repairs, keeping what each line must become.
type corrupter struct {
	r      *rand.Rand
	counts map[string]int
	orphan int
}

type srcLine struct {
	body []byte // without '\r' and '\n'
	cr   string // "\r" when the line ended with CR LF
	nl   string // "\n", or "" for a last line without one
}

func (s srcLine) whole() []byte { return []byte(string(s.body) + s.cr + s.nl) }

func splitSrc(data []byte) []srcLine {
	var out []srcLine
	fix.ForEachLine(data, func(_ int, start, end int, nl bool) bool {
		l := srcLine{body: data[start:end]}
		if nl {
			l.nl = "\n"
		}
		if n := len(l.body); n > 0 && l.body[n-1] == '\r' {
			l.body, l.cr = l.body[:n-1], "\r"
		}
		out = append(out, l)
		return true
	})
	return out
}

func (c *corrupter) file(data []byte) []seg {
	src := splitSrc(data)
	var segs []seg
	add := func(s seg) {
		segs = append(segs, s)
		if s.kind != "" {
			c.counts[s.kind]++
		}
	}
	for i := 0; i < len(src); i++ {
		l := src[i]
		keep := seg{corrupt: l.whole(), safe: l.whole(), unsafe: l.whole()}
		if len(l.body) == 0 || c.r.IntN(4) != 0 {
			add(keep)
			continue
		}
		// Assistants with an empty toolCalls are rare in random files:
		// drop it from most of them.
		if toolCallsRe.Match(l.body) && c.r.IntN(3) != 0 {
			if sg, ok := missingMember(l); ok {
				add(sg)
				continue
			}
		}
		eol := "\n"
		if l.cr != "" {
			eol = "\r\n"
		}
		switch k := c.r.IntN(11); k {
		case 0: // a byte order mark, sometimes with a trailing comma too
			body := l.body
			kind := "bom"
			if c.r.IntN(3) == 0 {
				if b, ok := c.comma(body); ok {
					body, kind = b, "bom+comma"
				}
			}
			add(seg{corrupt: cat("\ufeff", body, l.cr, l.nl), safe: l.whole(), unsafe: l.whole(), kind: kind})
		case 1: // a blank line before it
			ws := []string{" ", "\t", "\r", " \t\r", "  "}[c.r.IntN(5)]
			add(seg{corrupt: []byte(ws + "\n"), kind: "blank"})
			add(keep)
		case 2, 3: // a trailing comma, or raw control characters in strings
			b, ok := c.comma(l.body)
			kind := "comma"
			if k == 3 {
				b, ok = unescapeControls(l.body)
				kind = "control"
			}
			if !ok {
				add(keep)
				continue
			}
			add(seg{corrupt: cat(b, l.cr, l.nl), safe: l.whole(), unsafe: l.whole(), kind: kind})
		case 4: // joined with the next one or two lines (no line break between)
			n := 1 + c.r.IntN(2)
			if i+n >= len(src) {
				add(keep)
				continue
			}
			ok := true
			for j := i + 1; j <= i+n; j++ {
				ok = ok && len(src[j].body) > 0
			}
			if !ok {
				add(keep)
				continue
			}
			last := src[i+n]
			sep := "\n"
			if last.cr != "" {
				sep = "\r\n"
			}
			var corrupt, want []byte
			kind := "joined"
			for j := i; j <= i+n; j++ {
				body := src[j].body
				if c.r.IntN(5) == 0 {
					if b, ok := c.comma(body); ok {
						body, kind = b, "joined+comma"
					}
				}
				if j > i {
					corrupt = append(corrupt, []string{"", "", " ", "\t", " \r "}[c.r.IntN(5)]...)
					want = append(want, sep...)
				}
				corrupt = append(corrupt, body...)
				// The whitespace between two records becomes the line
				// break: the first keeps its leading whitespace, the last
				// its trailing whitespace, and the records are intact.
				w := src[j].body
				if j > i {
					w = bytes.TrimLeft(w, " \t\r")
				}
				if j < i+n {
					w = bytes.TrimRight(w, " \t\r")
				}
				want = append(want, w...)
			}
			corrupt = cat(corrupt, last.cr, last.nl)
			want = cat(want, last.cr, last.nl)
			add(seg{corrupt: corrupt, safe: want, unsafe: want, kind: kind})
			i += n
		case 5, 6: // truncated (an interrupted append), alone or before the next line
			p, ok := c.cut(l.body)
			if !ok {
				add(keep)
				continue
			}
			if k == 6 && i+1 < len(src) && len(src[i+1].body) > 0 {
				next := src[i+1]
				b := cat(l.body[:p], next.body, next.cr, next.nl)
				// What precedes the truncated record stays, and the
				// complete one follows from its brace.
				lead := l.body[:len(l.body)-len(bytes.TrimLeft(l.body, " \t\r"))]
				want := cat(lead, bytes.TrimLeft(next.body, " \t\r"), next.cr, next.nl)
				add(seg{corrupt: b, safe: b, unsafe: want, kind: "truncated-before", unsafeOnly: true})
				i++
				continue
			}
			b := cat(l.body[:p], l.cr, l.nl)
			add(seg{corrupt: b, safe: b, unsafe: nil, kind: "truncated", unsafeOnly: true})
		case 7: // a missing member
			if sg, ok := missingMember(l); ok {
				add(sg)
			} else {
				add(keep)
			}
		case 8: // a tool result without isError, for an id that may be declared
			b := fmt.Sprintf(`{"role":"tool","content":"made up","toolCallId":"call_%d"}`, 1+c.r.IntN(5))
			add(seg{corrupt: []byte(b + eol), safe: []byte(b + eol), unsafe: cat(insertAtEnd([]byte(b), `,"isError":false`), eol), kind: "missing-isError-new", unsafeOnly: true})
			add(keep)
		case 9: // an orphan tool result
			c.orphan++
			b := fmt.Sprintf(`{"role":"tool","content":"stray","toolCallId":"orphan-%d","isError":true}`, c.orphan)
			add(seg{corrupt: []byte(b + eol), safe: []byte(b + eol), unsafe: []byte(b + eol), kind: "orphan"})
			add(keep)
		default: // an assistant without toolCalls (a new line)
			b := `{"role":"assistant","content":"thinking"}`
			add(seg{corrupt: []byte(b + eol), safe: []byte(b + eol), unsafe: []byte(`{"role":"assistant","content":"thinking","toolCalls":[]}` + eol), kind: "missing-toolCalls-new", unsafeOnly: true})
			add(keep)
		}
	}
	// A byte order mark at the very start, now and then.
	if len(segs) > 0 && len(segs[0].corrupt) > 0 && segs[0].corrupt[0] == '{' && c.r.IntN(6) == 0 {
		segs[0].corrupt = cat("\ufeff", segs[0].corrupt)
		if segs[0].kind != "" {
			segs[0].corrupt = segs[0].corrupt[3:] // one corruption a line here
		} else {
			segs[0].kind = "bom"
			c.counts["bom"]++
		}
	}
	return segs
}

// missingMember drops isError or an empty toolCalls from the line, when it
// has the member once, at the top level.
// missingMember drops isError or an empty toolCalls from the line, when it
// has the member once, at the top level.
func missingMember(l srcLine) (seg, bool) {
	for _, m := range []struct {
		re           *regexp.Regexp
		insert, kind string
	}{
		{isErrorRe, `,"isError":false`, "missing-isError"},
		{toolCallsRe, `,"toolCalls":[]`, "missing-toolCalls"},
	} {
		locs := m.re.FindAllIndex(l.body, -1)
		if len(locs) != 1 {
			continue
		}
		b := cat(l.body[:locs[0][0]], l.body[locs[0][1]:])
		if r := line.Parse(b); r.Verdict != line.InvalidRecord || r.Span.Start != 0 || r.Span.End != len(b) {
			continue // the member was repeated, nested, or the record has another fault
		}
		return seg{corrupt: cat(b, l.cr, l.nl), safe: cat(b, l.cr, l.nl), unsafe: cat(insertAtEnd(b, m.insert), l.cr, l.nl), kind: m.kind, unsafeOnly: true}, true
	}
	return seg{}, false
}

// A member with its comma (before it, or after it when it comes first).
var (
	isErrorRe   = regexp.MustCompile(`,[ \t\r]*"isError"[ \t\r]*:[ \t\r]*(true|false)|"isError"[ \t\r]*:[ \t\r]*(true|false)[ \t\r]*,`)
	toolCallsRe = regexp.MustCompile(`,[ \t\r]*"toolCalls"[ \t\r]*:[ \t\r]*\[[ \t\r]*\]|"toolCalls"[ \t\r]*:[ \t\r]*\[[ \t\r]*\][ \t\r]*,`)
)

func cat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			b = append(b, v...)
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

// insertAtEnd adds member after the last member of the object body (its
// last byte is '}'; whitespace before the brace stays after the member).
func insertAtEnd(body []byte, member string) []byte {
	j := bytes.LastIndexByte(body, '}') - 1
	for j >= 0 && strings.IndexByte(" \t\r", body[j]) >= 0 {
		j--
	}
	return cat(body[:j+1], member, body[j+1:])
}

// brackets returns the offsets of the closing brackets of body that close
// a non-empty container (outside strings).
func brackets(body []byte) []int {
	var out []int
	inStr := false
	lastTok := byte(0)
	for i := 0; i < len(body); i++ {
		ch := body[i]
		if inStr {
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
				lastTok = '"'
			}
			continue
		}
		switch ch {
		case ' ', '\t', '\r':
			continue
		case '"':
			inStr = true
		case '}', ']':
			if lastTok != '{' && lastTok != '[' {
				out = append(out, i)
			}
		}
		lastTok = ch
	}
	return out
}

// unescapeControls writes raw every escape in body's strings that stands
// for a control character and is spelled as JSON.stringify spells it
// (\t, \u0001), so that escaping them again restores body.
func unescapeControls(body []byte) ([]byte, bool) {
	var out []byte
	n := 0
	inStr := false
	for i := 0; i < len(body); i++ {
		ch := body[i]
		switch {
		case !inStr:
			inStr = ch == '"'
		case ch == '"':
			inStr = false
		case ch == '\\' && i+1 < len(body):
			if raw, ok := stringifyEscapes[string(body[i+1])]; ok {
				out = append(out, raw)
				n++
				i++
				continue
			}
			if body[i+1] == 'u' && i+6 <= len(body) && string(body[i+2:i+4]) == "00" {
				var v byte
				if _, err := fmt.Sscanf(string(body[i+4:i+6]), "%02x", &v); err == nil && v < 0x20 &&
					fmt.Sprintf("%02x", v) == string(body[i+4:i+6]) && !strings.ContainsRune("\b\f\n\r\t", rune(v)) {
					out = append(out, v)
					n++
					i += 5
					continue
				}
			}
			out = append(out, ch, body[i+1])
			i++
			continue
		}
		out = append(out, ch)
	}
	return out, n > 0
}

// The escapes of control characters; not \n, which raw would end the line.
var stringifyEscapes = map[string]byte{"b": '\b', "f": '\f', "r": '\r', "t": '\t'}

// comma inserts a trailing comma before a closing bracket of a non-empty
// container, sometimes with whitespace after it.
func (c *corrupter) comma(body []byte) ([]byte, bool) {
	bs := brackets(body)
	if len(bs) == 0 {
		return nil, false
	}
	at := bs[c.r.IntN(len(bs))]
	ins := ","
	// Before any whitespace that precedes the bracket, as a hand edit would.
	for at > 0 && strings.IndexByte(" \t\r", body[at-1]) >= 0 && c.r.IntN(2) == 0 {
		at--
	}
	return cat(body[:at], ins, body[at:]), true
}

// cut picks where to truncate body: after its first byte and before its
// final brace. It avoids the cuts that make the repair ambiguous (package
// fix then offers none, as its unit tests show): right after a complete
// nested object, or at a value position (after ':', '[' or ','), where the
// record appended next could be a value of the truncated one.
func (c *corrupter) cut(body []byte) (int, bool) {
	end := bytes.LastIndexByte(body, '}')
	first := bytes.IndexByte(body, '{')
	for range 20 {
		if end-first < 2 {
			return 0, false
		}
		p := first + 1 + c.r.IntN(end-first-1)
		j := p - 1
		for j > 0 && strings.IndexByte(" \t\r", body[j]) >= 0 {
			j--
		}
		if strings.IndexByte(":[,}", body[j]) < 0 {
			return p, true
		}
	}
	return 0, false
}

// orphans deletes from data the valid tool results (by node's verdicts)
// whose id no earlier valid assistant declares, but those that a refused
// line of the corrupted file corrupt (by node's verdicts there) may
// declare (fix.OrphanHeld).
func orphans(data []byte, lines []oracle.Line, corrupt []byte, corruptLines []oracle.Line) []byte {
	refused := map[int]bool{}
	for _, l := range corruptLines {
		if l.Verdict != "valid" {
			refused[l.Line] = true
		}
	}
	held := map[string]bool{}
	fix.ForEachLine(corrupt, func(ln, start, end int, _ bool) bool {
		if refused[ln] {
			fix.DeclaredIDs(corrupt[start:end], held)
		}
		return true
	})
	body := map[int][]byte{}
	fix.ForEachLine(data, func(ln, start, end int, _ bool) bool {
		body[ln] = data[start:end]
		return true
	})
	bad := map[int]bool{}
	declared := map[string]bool{}
	for _, l := range lines {
		switch {
		case l.Verdict != "valid":
		case l.Role == "assistant":
			for _, id := range l.IDs {
				declared[id] = true
			}
		case l.Role == "tool" && !declared[l.ToolCallID]:
			if !fix.OrphanHeld(body[l.Line], line.Parse(body[l.Line]).ToolCallIDSpan, held) {
				bad[l.Line] = true
			}
		}
	}
	var out []byte
	fix.ForEachLine(data, func(ln, start, end int, nl bool) bool {
		if nl {
			end++
		}
		if !bad[ln] {
			out = append(out, data[start:end]...)
		}
		return true
	})
	return out
}

// TestDiffNodeFixes corrupts random valid sessions with every kind of
// breakage package fix repairs, alone and mixed in one file (and in one
// line), and checks with node's runtime as the judge: node refuses every
// corrupted line; after the safe fixes the file is exactly what it must be
// (every line the corruption left alone byte-identical, every safely
// repaired line restored) and node refuses only the lines that need an
// unsafe fix; after safe+unsafe fixes the file is exactly as expected and
// node loads it; and a second pass changes nothing (but for the orphans
// the first held, see fix.FixAll).
func TestDiffNodeFixes(t *testing.T) {
	node := oracle.Node(t)
	seeds := oracle.Seeds(*diffSeed, 21)
	dir := t.TempDir()
	write := func(name string, data []byte) oracle.Job { return oracle.FileJob(t, dir, name, data) }
	c := &corrupter{counts: map[string]int{}}
	type tc struct {
		segs                  []seg
		corrupt, e1, safeWant []byte
	}
	var cases []tc
	var jobs []oracle.Job
	for _, s := range seeds {
		r := rand.New(rand.NewPCG(s, 0xf1c5))
		c.r = r
		for len(cases) < *diffFiles*len(seeds) {
			data := randjsonl.File(r, 5+r.IntN(40))
			if rep := analysis.Analyze(data, analysis.Options{}); !rep.Loads() {
				continue // corrupt valid sessions only
			}
			segs := c.file(data)
			var x tc
			x.segs = segs
			for _, sg := range segs {
				x.corrupt = append(x.corrupt, sg.corrupt...)
				x.e1 = append(x.e1, sg.unsafe...)
				x.safeWant = append(x.safeWant, sg.safe...)
			}
			k := len(cases)
			jobs = append(jobs, write(fmt.Sprintf("c%d.jsonl", k), x.corrupt), write(fmt.Sprintf("e%d.jsonl", k), x.e1))
			cases = append(cases, x)
		}
	}
	first := oracle.AskBatch(t, node, jobs, 3*time.Minute)

	// Fix every file both ways, and ask node about the results.
	type outcome struct{ safe, unsafe fix.Result }
	outs := make([]outcome, len(cases))
	var jobs2 []oracle.Job
	for k := range cases {
		outs[k].safe = fix.FixAll(cases[k].corrupt, analysis.Options{}, false)
		outs[k].unsafe = fix.FixAll(cases[k].corrupt, analysis.Options{}, true)
		jobs2 = append(jobs2, write(fmt.Sprintf("s%d.jsonl", k), outs[k].safe.Data), write(fmt.Sprintf("u%d.jsonl", k), outs[k].unsafe.Data))
	}
	second := oracle.AskBatch(t, node, jobs2, 3*time.Minute)

	failures := 0
	fail := func(k int, format string, args ...any) {
		failures++
		if failures <= 10 {
			t.Errorf("file %d %q:\n  %s", k, clip(cases[k].corrupt), fmt.Sprintf(format, args...))
		}
	}
	refused, unsafeOnly := 0, 0
	for k, x := range cases {
		// Node refuses every corrupted line (an orphan loads: it is our
		// check, not the runtime's) and accepts every other.
		verdict := map[int]string{}
		for _, l := range first[2*k].Lines {
			verdict[l.Line] = l.Verdict
		}
		wantRefused := 0
		for i, sg := range x.segs {
			bad := verdict[i+1] != "valid" && verdict[i+1] != ""
			switch {
			case sg.kind != "" && sg.kind != "orphan":
				wantRefused++
				if !bad {
					fail(k, "line %d (%s) should be refused by node: %q", i+1, sg.kind, sg.corrupt)
				}
				if sg.unsafeOnly {
					unsafeOnly++
				}
			case bad:
				fail(k, "line %d, untouched, is refused by node: %q", i+1, sg.corrupt)
			}
		}
		refused += wantRefused

		// Safe fixes: exactly the expected bytes, and node refuses only
		// the lines that need an unsafe fix.
		if !bytes.Equal(outs[k].safe.Data, x.safeWant) {
			fail(k, "safe fixes: %s", where(outs[k].safe.Data, x.safeWant))
		}
		left := 0
		for _, sg := range x.segs {
			if sg.unsafeOnly {
				left++
			}
		}
		nodeBad := 0
		for _, l := range second[2*k].Lines {
			if l.Verdict != "valid" {
				nodeBad++
			}
		}
		if nodeBad != left {
			fail(k, "after the safe fixes node refuses %d lines, want %d (those needing unsafe fixes)", nodeBad, left)
		}

		// Safe+unsafe: the expected bytes (orphans by node's verdicts on
		// the repaired file deleted), and node loads it.
		want := orphans(x.e1, first[2*k+1].Lines, x.corrupt, first[2*k].Lines)
		if !bytes.Equal(outs[k].unsafe.Data, want) {
			fail(k, "unsafe fixes: %s", where(outs[k].unsafe.Data, want))
		}
		if b := second[2*k+1].Budget; !b.Loads {
			fail(k, "after the unsafe fixes node does not load the file: %s", b.Error)
		}

		// A second pass changes nothing.
		for _, o := range []struct {
			res    fix.Result
			unsafe bool
		}{{outs[k].safe, false}, {outs[k].unsafe, true}} {
			again := fix.FixAll(o.res.Data, analysis.Options{}, o.unsafe)
			if again.Fixed > o.res.HeldOrphans || (o.res.HeldOrphans == 0 && !bytes.Equal(again.Data, o.res.Data)) {
				fail(k, "second pass (unsafe=%v) fixed %d more", o.unsafe, again.Fixed)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d disagreements in %d files", failures, len(cases))
	}
	// What the comparison covered.
	for _, kind := range []string{"bom", "bom+comma", "blank", "comma", "control", "joined", "joined+comma", "truncated", "truncated-before",
		"missing-isError", "missing-toolCalls", "missing-isError-new", "missing-toolCalls-new", "orphan"} {
		if c.counts[kind] < 15 {
			t.Errorf("poor coverage: %d lines corrupted as %s", c.counts[kind], kind)
		}
	}
	t.Logf("%d files, %d corrupted lines refused by node (%d need an unsafe fix); by kind %v", len(cases), refused, unsafeOnly, c.counts)
}

// where shows where got and want first differ.
func where(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-120)
	return fmt.Sprintf("differ at byte %d (of %d, want %d):\n   got …%q\n  want …%q", i, len(got), len(want),
		got[from:min(len(got), i+120)], want[from:min(len(want), i+120)])
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

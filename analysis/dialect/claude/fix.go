package claude

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/jsonscan"
)

// Fixable reports whether findings with this code can have a fix in a
// Claude Code transcript (Plan may offer one): the JSON-level repairs of
// refused lines, an orphan tool_result dropped, a synthetic result added,
// a broken parent chain re-linked.
func Fixable(code string) bool {
	switch code {
	case analysis.CodeOrphanToolResult, analysis.CodeMissingToolResult, analysis.CodeBrokenParentChain:
		return true
	}
	return analysis.IsRefusal(code)
}

// SyntheticText is the content of the tool_result a fix adds for a call
// that never got one (marked is_error).
const SyntheticText = "tool call interrupted; no result was recorded"

// plan computes the fixes of findings in data: the JSON-level repairs of
// refused lines, then the conversation's (an orphan tool_result dropped, a
// synthetic result added), each at most one per finding, in line order.
// No fix changes a record the finding is not about, but for the
// parentUuid of the record the conversation continues with, which must
// name the record the fix adds or skip the one it deletes.
func plan(data []byte, findings []analysis.Finding) ([]fix.Fix, []fix.Ambiguity) {
	var refusals []analysis.Finding
	want := map[[2]int]string{} // (line, span start) → code
	for _, f := range findings {
		switch {
		case analysis.IsRefusal(f.Code):
			refusals = append(refusals, f)
		case f.Code == analysis.CodeOrphanToolResult || f.Code == analysis.CodeMissingToolResult || f.Code == analysis.CodeBrokenParentChain:
			want[[2]int{f.Line, f.Span.Start}] = f.Code
		}
	}
	var out []fix.Fix
	var ambs []fix.Ambiguity
	if len(refusals) > 0 {
		out, ambs = fix.PlanJSON(data, refusals)
	}
	if len(want) > 0 {
		rd := &reader{}
		analysis.Analyze(data, analysis.Options{JSONOnly: true, Records: rd, SkipMessages: true})
		c := read(rd.entries)
		// A lost parent may be on a line JSON.parse refuses, which a
		// JSON-level fix can restore: no record is re-linked while one is.
		if len(refusals) == 0 {
			for i, e := range c.entries {
				if e.hasParent && want[[2]int{e.ln, e.parentAt.Start}] == analysis.CodeBrokenParentChain {
					if _, ok := c.byUUID[e.parent]; !ok {
						if f, ok := c.relink(i); ok {
							out = append(out, f)
						}
					}
				}
			}
		}
		done := map[int]bool{} // message n whose missing results have a fix
		for _, pr := range c.pairing() {
			e := c.entries[pr.p.e]
			b := c.block(pr.p)
			if want[[2]int{e.ln, b.idAt.Start}] != pr.code {
				continue
			}
			var f fix.Fix
			ok := false
			switch pr.code {
			case analysis.CodeOrphanToolResult:
				f, ok = c.dropResult(data, pr)
			case analysis.CodeMissingToolResult:
				if !done[pr.n] {
					done[pr.n] = true
					f, ok = c.addResults(data, pr)
				}
			}
			if ok {
				out = append(out, f)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b fix.Fix) int { return cmp.Compare(a.Line, b.Line) })
	return out, ambs
}

// lineStart is the file offset of e's line, and lineEnd just past its
// '\n' (or at the end of the file).
func lineEnd(data []byte, e *entry) int {
	end := int(e.offset) + e.size
	if end < len(data) && data[end] == '\n' {
		end++
	}
	return end
}

// children are the records whose parentUuid names e (the index is built
// once per plan, so that many fixes cost linear time).
func (c *conv) children(e *entry) []*entry {
	if !e.hasUUID {
		return nil
	}
	if c.kids == nil {
		c.kids = make(map[string][]int)
		for i, x := range c.entries {
			if x.hasParent {
				c.kids[x.parent] = append(c.kids[x.parent], i)
			}
		}
	}
	var out []*entry
	for _, i := range c.kids[e.uuid] {
		out = append(out, c.entries[i])
	}
	return out
}

// root is the first record up k's parent chain that has no parent, or
// whose parent is in no record (memoized, so that every record's root
// costs linear time in all; a loop's records have root -1).
func (c *conv) root(k int) int {
	if c.roots == nil {
		c.roots = make([]int, len(c.entries))
		for i := range c.roots {
			c.roots[i] = -2 // not known yet
		}
	}
	var path []int
	r := -1
	for {
		if c.roots[k] != -2 {
			r = c.roots[k]
			break
		}
		c.roots[k] = -3 // on the path: meeting it again is a loop
		path = append(path, k)
		x := c.entries[k]
		p, ok := c.byUUID[x.parent]
		if !x.hasParent || !ok {
			r = k
			break
		}
		if c.roots[p] == -3 {
			r = -1
			break
		}
		k = p
	}
	for _, i := range path {
		c.roots[i] = r
	}
	return r
}

// quote writes s as a JSON string literal (without escaping <, >, &).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// finish makes a fix of edits (file offsets), owning lines first to last.
func finish(e *entry, code string, kinds []fix.Kind, title string, lost fix.Loss, edits []fix.Edit, last int) (fix.Fix, bool) {
	slices.SortFunc(edits, func(a, b fix.Edit) int { return cmp.Compare(a.Start, b.Start) })
	for i := 1; i < len(edits); i++ {
		if edits[i].Start < edits[i-1].End {
			return fix.Fix{}, false
		}
	}
	if len(edits) == 0 || edits[0].Start < int(e.offset) {
		return fix.Fix{}, false // an edit before the finding's line: none of ours
	}
	return fix.Fix{
		Line: e.ln, EndLine: max(e.ln, last), Code: code, Kinds: kinds, Safety: fix.Unsafe,
		Title: title, Edits: edits, LineStart: int(e.offset), Lost: lost,
	}, true
}

// dropResult drops an orphan tool_result: the block, or the record when it
// holds nothing else (its children then name its parent).
func (c *conv) dropResult(data []byte, pr problem) (fix.Fix, bool) {
	e := c.entries[pr.p.e]
	k := pr.p.b
	base := int(e.offset)
	if len(e.blocks) > 1 {
		var s, t int
		if k > 0 {
			s, t = e.blocks[k-1].at.end, e.blocks[k].at.end
		} else {
			s, t = e.blocks[0].at.start, e.blocks[1].at.start
		}
		ed := fix.Edit{Start: base + s, End: base + t}
		return finish(e, analysis.CodeOrphanToolResult, []fix.Kind{fix.OrphanToolResult},
			"Delete the orphan tool_result block (its content is lost)", fix.Loss{Bytes: int64(t - s)}, []fix.Edit{ed}, e.ln)
	}
	end := lineEnd(data, e)
	edits := []fix.Edit{{Start: base, End: end}}
	parent := "null"
	if e.hasParent {
		parent = quote(e.parent)
	}
	last := e.ln
	kids := c.children(e)
	for _, x := range kids {
		edits = append(edits, fix.Edit{Start: int(x.offset) + x.parentAt.Start, End: int(x.offset) + x.parentAt.End, New: parent})
		last = max(last, x.ln)
	}
	title := "Delete the record holding only the orphan tool_result (its content is lost)"
	if len(kids) > 0 {
		title = fmt.Sprintf("Delete the record holding only the orphan tool_result, and make the %d record(s) naming it as parent name its parent (its content is lost)", len(kids))
	}
	return finish(e, analysis.CodeOrphanToolResult, []fix.Kind{fix.OrphanToolResult}, title,
		fix.Loss{Bytes: int64(end - base), Records: 1}, edits, last)
}

// addResults answers every unanswered call of message pr.n with an error
// tool_result, in one new user record placed where the next user message
// is read (after the results that came, if some did), and makes the
// record the conversation continues with its child.
func (c *conv) addResults(data []byte, pr problem) (fix.Fix, bool) {
	target := pr.n + 1
	if target < len(c.msgs) && c.msgs[target].role == "user" {
		for _, p := range c.msgs[target].parts {
			if b := c.block(p); b != nil && b.typ == toolResult {
				target++ // after the results that came
				break
			}
		}
	}
	pos := make(map[int]int, len(c.chain))
	for i, x := range c.chain {
		pos[x] = i
	}
	anchorAt := len(c.chain) - 1
	var child *entry
	if target < len(c.msgs) {
		at := pos[c.msgs[target].parts[0].e]
		child, anchorAt = c.entries[c.chain[at]], at-1
	}
	if anchorAt < 0 {
		return fix.Fix{}, false
	}
	anchor := c.entries[c.chain[anchorAt]]
	if !anchor.hasUUID {
		return fix.Fix{}, false
	}
	ids := make([]string, len(pr.missing))
	var blocks []string
	for i, p := range pr.missing {
		ids[i] = c.block(p).id
		blocks = append(blocks, `{"type":"tool_result","tool_use_id":`+quote(ids[i])+`,"content":`+quote(SyntheticText)+`,"is_error":true}`)
	}
	uuid := newUUID(anchor.uuid, ids)
	rec := `{"parentUuid":` + quote(anchor.uuid) + `,"isSidechain":false,"type":"user","message":{"role":"user","content":[` +
		strings.Join(blocks, ",") + `]},"uuid":"` + uuid + `"`
	// The parent's sessionId and timestamp, as written.
	al := data[anchor.offset : int(anchor.offset)+anchor.size]
	top := objectAt(al, jsonscan.SkipWS(al, 0))
	for _, k := range []string{"sessionId", "timestamp"} {
		if v, ok := top.get(k); ok && al[v.start] == '"' {
			rec += `,"` + k + `":` + string(al[v.start:v.end])
		}
	}
	rec += "}\n"
	at := lineEnd(data, anchor)
	if at == int(anchor.offset)+anchor.size { // the last line, without '\n'
		rec = "\n" + strings.TrimSuffix(rec, "\n")
	}
	edits := []fix.Edit{{Start: at, End: at, New: rec}}
	last := anchor.ln
	title := fmt.Sprintf("Add a tool_result record answering %s with an error (invents that the call failed: %q)", strings.Join(ids, ", "), SyntheticText)
	if child != nil {
		edits = append(edits, fix.Edit{Start: int(child.offset) + child.parentAt.Start, End: int(child.offset) + child.parentAt.End, New: `"` + uuid + `"`})
		last = max(last, child.ln)
		title = fmt.Sprintf("Add a tool_result record answering %s with an error, before line %d's record, which then names it as parent (invents that the call failed: %q)", strings.Join(ids, ", "), child.ln, SyntheticText)
	}
	return finish(c.entries[pr.p.e], analysis.CodeMissingToolResult, []fix.Kind{fix.SyntheticResult}, title, fix.Loss{}, edits, last)
}

// newUUID is a version-5-style uuid derived from the anchor and the ids
// answered, so that a fix is the same each time it is computed.
func newUUID(anchor string, ids []string) string {
	h := sha1.Sum([]byte("sessionls synthetic tool_result\x00" + anchor + "\x00" + strings.Join(ids, "\x00")))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// relink makes entry i, whose parentUuid names no record, name the record
// written before it on its side (the main conversation or a sidechain):
// Claude Code appends a conversation's records in order, so that is the
// likeliest parent. It is a guess (unsafe), and none is made when that
// record descends from entry i (a loop).
func (c *conv) relink(i int) (fix.Fix, bool) {
	e := c.entries[i]
	p := i - 1
	for p >= 0 && (!c.entries[p].hasUUID || c.entries[p].sidechain != e.sidechain || c.entries[p].typ == "summary") {
		p--
	}
	if p < 0 {
		return fix.Fix{}, false
	}
	prev := c.entries[p]
	// No loop: e's parent is lost, so e is the root of its descendants;
	// prev must not be one of them.
	if r := c.root(p); r == i || r < 0 {
		return fix.Fix{}, false
	}
	at := int(e.offset)
	ed := fix.Edit{Start: at + e.parentAt.Start, End: at + e.parentAt.End, New: quote(prev.uuid)}
	title := fmt.Sprintf("Make parentUuid name the record written before this one, at line %d (a guess: the lost parent's content stays lost, and what came before it is reached again)", prev.ln)
	return finish(e, analysis.CodeBrokenParentChain, []fix.Kind{fix.Relink}, title, fix.Loss{}, []fix.Edit{ed}, e.ln)
}

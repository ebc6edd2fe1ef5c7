package codex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// plan computes the fixes of the findings, in line order, and the runs of
// lines whose interleaved pieces pair in several ways (no fix): the
// JSON-level repairs of the lines codex skips for their JSON are the
// engine's (fix.PlanJSON: split records rejoined, cut records deleted,
// interleaved pieces rejoined); an orphan output is deleted (unsafe: its
// content is lost); a call without an output gets a synthetic one (unsafe:
// invented), placed right after the call's turn: the run of calls and
// outputs it belongs to (its parallel calls and their outputs; events
// between them are passed over), before the next reasoning item or
// message, so that no reasoning item is parted from the item that follows
// it; in the call's own envelope and timestamp.
func plan(data []byte, findings []analysis.Finding) ([]fix.Fix, []fix.Ambiguity, int) {
	var damage []analysis.Finding
	want := map[int][]string{}
	for _, f := range findings {
		switch {
		case analysis.IsRefusal(f.Code):
			damage = append(damage, f)
		case f.Code == analysis.CodeOrphanToolResult || f.Code == analysis.CodeMissingToolResult:
			want[f.Line] = append(want[f.Line], f.Code)
		}
	}
	var out []fix.Fix
	var ambs []fix.Ambiguity
	if len(damage) > 0 {
		out, ambs = fix.PlanJSON(data, damage)
	}
	if len(want) == 0 {
		return out, ambs, 0
	}
	s := scanFile(data)
	damaged := damagedLines(data, damage)
	held := 0
	// mentions reports whether a damaged line (one codex skips for its
	// JSON) before or after line ln holds id: the call or output a fix
	// would take for missing may be there, for the JSON-level repairs to
	// restore first (FixAll's next round then sees it).
	mentions := func(id string, ln int, before bool) bool {
		q, err := json.Marshal(id)
		if err != nil {
			return true
		}
		for _, d := range damaged {
			if (before && d.n < ln || !before && d.n > ln) && bytes.Contains(data[d.start:d.end], q) {
				return true
			}
		}
		return false
	}
	for i, rd := range s.reads {
		for _, code := range want[rd.n] {
			switch {
			case code == analysis.CodeOrphanToolResult && rd.rec.kind == kindOutput && mentions(rd.rec.callID, rd.n, true):
				held++
			case code == analysis.CodeOrphanToolResult && rd.rec.kind == kindOutput:
				end := rd.end
				if rd.nl {
					end++
				}
				out = append(out, fix.Fix{
					Line: rd.n, EndLine: rd.n, Code: code, Kinds: []fix.Kind{fix.OrphanToolResult}, Safety: fix.Unsafe,
					Title:     fmt.Sprintf("Delete the orphan %s (call_id %s): its content is lost", rd.rec.ptype, textfmt.Sanitize(rd.rec.callID)),
					Edits:     []fix.Edit{{Start: rd.start, End: end}},
					LineStart: rd.start,
					Lost:      fix.Loss{Bytes: int64(end - rd.start), Records: 1},
				})
			case code == analysis.CodeMissingToolResult && rd.rec.kind == kindCall && !mentions(rd.rec.callID, rd.n, false):
				if f, ok := synthetic(data, s.reads, i); ok {
					out = append(out, f)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b fix.Fix) int { return cmp.Compare(a.Line, b.Line) })
	return out, ambs, held
}

// synthetic is the fix adding an output for the call reads[i].
func synthetic(data []byte, reads []read, i int) (fix.Fix, bool) {
	call := reads[i]
	last := i
	for k := i + 1; k < len(reads); k++ {
		switch reads[k].rec.kind {
		case kindCall, kindOutput:
			last = k
			continue
		case kindEvent:
			continue
		}
		break
	}
	id, err := json.Marshal(call.rec.callID)
	if err != nil {
		return fix.Fix{}, false
	}
	typ := call.rec.family.outputType()
	rec := fmt.Sprintf(`{"timestamp":%s,"type":"response_item","payload":{"type":%q,"call_id":%s,"output":%q}}`,
		call.rec.ts, typ, id, syntheticOutput)
	if call.rec.family == famToolSearch {
		// No output text: an empty client result, as codex's own
		// normalization makes one (ensure_call_outputs_present).
		rec = fmt.Sprintf(`{"timestamp":%s,"type":"response_item","payload":{"type":"tool_search_output","call_id":%s,"status":"completed","execution":"client","tools":[]}}`,
			call.rec.ts, id)
	}
	at := reads[last]
	pos, text := at.end+1, rec+"\n"
	if !at.nl {
		pos, text = at.end, "\n"+rec
	}
	if bytes.HasSuffix(data[at.start:at.end], []byte{'\r'}) {
		text = rec + "\r\n"
		if !at.nl {
			text = "\r\n" + rec
		}
	}
	return fix.Fix{
		Line: call.n, EndLine: at.n, Code: analysis.CodeMissingToolResult, Kinds: []fix.Kind{fix.SyntheticResult}, Safety: fix.Unsafe,
		Title: fmt.Sprintf("Add a %s for call_id %s after line %d, %s (invented: the call's real result was never recorded)",
			typ, textfmt.Sanitize(call.rec.callID), at.n, syntheticWhat(call.rec.family)),
		Edits:     []fix.Edit{{Start: pos, End: pos, New: text}},
		LineStart: call.start,
	}, true
}

// maxRounds bounds fixAll's rounds, as the engine's FixAll does.
const maxRounds = 4

// fixAll applies the JSON-level repairs and then plan's, until nothing is
// left to fix, keeping every line it does not repair byte for byte.
func fixAll(ctx context.Context, data []byte, opts analysis.Options, unsafe bool) (fix.Result, error) {
	res := fix.Result{Data: data}
	// Every finding is planned, past MaxFindingsPerCode too; the report
	// returned is made with opts.
	all := opts
	all.MaxFindingsPerCode, all.OmittedLines = 0, nil
	finish := func() {
		if opts.MaxFindingsPerCode > 0 {
			res.Report = analyze(res.Data, opts)
		}
	}
	for range maxRounds {
		if err := ctx.Err(); err != nil {
			return fix.Result{}, err
		}
		res.Report = analyze(res.Data, all)
		planned, ambs, held := plan(res.Data, res.Report.Findings)
		fixes := fix.Select(planned, unsafe)
		if len(fixes) == 0 {
			res.Ambiguities = ambs
			if unsafe {
				res.HeldOrphans = held
			}
			finish()
			return res, nil
		}
		res.Origin = origins(res.Data, fixes, res.Origin)
		res.Data = fix.Apply(res.Data, fixes)
		res.Fixed += len(fixes)
		for _, f := range fixes {
			res.Lost = res.Lost.Add(f.Lost)
		}
	}
	res.Report = analyze(res.Data, all)
	var held int
	_, res.Ambiguities, held = plan(res.Data, res.Report.Findings)
	if unsafe {
		res.HeldOrphans = held
	}
	finish()
	return res, nil
}

// origins maps each line of fix.Apply(data, fixes) to the line of data it
// is, unchanged (0 for a line a fix wrote or changed), composed with prev,
// the origins of data itself (nil: every line its own).
func origins(data []byte, fixes []fix.Fix, prev []int) []int {
	fs := slices.Clone(fixes)
	slices.SortStableFunc(fs, func(a, b fix.Fix) int { return cmp.Compare(a.Edits[0].Start, b.Edits[0].Start) })
	var es []fix.Edit
	last := 0
	for _, f := range fs { // the edits fix.Apply applies
		if len(f.Edits) == 0 || f.Edits[0].Start < last {
			continue
		}
		es = append(es, f.Edits...)
		last = f.Edits[len(f.Edits)-1].End
	}
	var starts []int // offsets where data's lines begin
	starts = append(starts, 0)
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) } // 1-based line holding off
	isStart := func(off int) bool {
		k := sort.SearchInts(starts, off)
		return k < len(starts) && starts[k] == off
	}
	var out []int
	cur, empty := -1, true
	end := func() {
		o := 0
		if cur >= 0 {
			o = lineOf(cur)
		}
		out = append(out, o)
		cur, empty = -1, true
	}
	copyOld := func(a, b int) {
		for a < b {
			if empty {
				cur = -1
				if isStart(a) {
					cur = a
				}
				empty = false
			}
			i := bytes.IndexByte(data[a:b], '\n')
			if i < 0 {
				return
			}
			end()
			a += i + 1
		}
	}
	pos := 0
	for _, e := range es {
		copyOld(pos, e.Start)
		if e.End > e.Start && !empty {
			cur = -1 // a deletion inside a line
		}
		for _, c := range []byte(e.New) {
			empty = false
			cur = -1
			if c == '\n' {
				end()
			}
		}
		pos = e.End
	}
	copyOld(pos, len(data))
	if !empty {
		end()
	}
	if prev != nil {
		for i, o := range out {
			if o > 0 && o <= len(prev) {
				out[i] = prev[o-1]
			} else {
				out[i] = 0
			}
		}
	}
	return out
}

// damagedLines are the lines of the findings (those codex skips for their
// JSON: invalid-json and its causes).
func damagedLines(data []byte, findings []analysis.Finding) []physLine {
	bad := map[int]bool{}
	for _, f := range findings {
		if analysis.IsRefusal(f.Code) {
			bad[f.Line] = true
		}
	}
	if len(bad) == 0 {
		return nil
	}
	var out []physLine
	for _, pl := range lines(data) {
		if bad[pl.n] {
			out = append(out, pl)
		}
	}
	return out
}

// syntheticWhat says what the synthetic output holds, for a fix's title.
func syntheticWhat(f callFamily) string {
	if f == famToolSearch {
		return "an empty client search result"
	}
	return fmt.Sprintf("%q", syntheticOutput)
}

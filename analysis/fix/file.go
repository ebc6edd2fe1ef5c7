package fix

import (
	"bytes"
	"cmp"
	"context"
	"slices"

	"github.com/sessionls/sessionls/analysis"
)

// Fixable reports whether findings with this code can have a fix.
func Fixable(code string) bool {
	return code == analysis.CodeOrphanToolResult || analysis.IsRefusal(code)
}

// Compute returns the fix of every finding in findings that has one, in
// line order. data is the file the findings are about.
func Compute(data []byte, findings []analysis.Finding) []Fix {
	type want struct {
		line int
		code string
	}
	var wants []want
	for _, f := range findings {
		if Fixable(f.Code) {
			wants = append(wants, want{f.Line, f.Code})
		}
	}
	if len(wants) == 0 {
		return nil
	}
	slices.SortStableFunc(wants, func(a, b want) int { return cmp.Compare(a.line, b.line) })
	var out []Fix
	k := 0
	ForEachLine(data, func(ln, start, end int, nl bool) bool {
		for ; k < len(wants) && wants[k].line <= ln; k++ {
			if wants[k].line < ln {
				continue // not a line of data
			}
			if lf, ok := ForLine(data[start:end], wants[k].code); ok {
				out = append(out, ToFile(lf, ln, wants[k].code, start, end, nl))
			}
		}
		return k < len(wants)
	})
	return out
}

// ForEachLine calls fn for each physical line of data: its 1-based number,
// the offsets of its bytes data[start:end] (without the '\n') and whether a
// '\n' ends it. It stops when fn returns false.
func ForEachLine(data []byte, fn func(ln, start, end int, nl bool) bool) {
	start := 0
	for ln := 1; start < len(data); ln++ {
		end := len(data)
		nl := false
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			end, nl = start+i, true
		}
		if !fn(ln, start, end, nl) {
			return
		}
		start = end + 1
	}
}

// ToFile turns the repair of a line that occupies data[start:end] (nl: a
// '\n' follows it) into the fix of the finding (ln, code).
func ToFile(lf LineFix, ln int, code string, start, end int, nl bool) Fix {
	f := Fix{Line: ln, Code: code, Kinds: lf.Kinds, Safety: lf.Safety, Title: lf.Title, LineStart: start}
	if lf.DeleteLine {
		if nl {
			end++
		}
		f.Edits = []Edit{{Start: start, End: end}}
		return f
	}
	f.Edits = make([]Edit, len(lf.Edits))
	for i, e := range lf.Edits {
		f.Edits[i] = Edit{Start: start + e.Start, End: start + e.End, New: e.New}
	}
	return f
}

// Apply returns data with the fixes applied. A fix whose edits overlap an
// earlier fix's is skipped (fixes of different lines never do).
func Apply(data []byte, fixes []Fix) []byte {
	fs := slices.Clone(fixes)
	slices.SortStableFunc(fs, func(a, b Fix) int { return cmp.Compare(a.Edits[0].Start, b.Edits[0].Start) })
	var es []Edit
	last := 0
	for _, f := range fs {
		if len(f.Edits) == 0 || f.Edits[0].Start < last {
			continue
		}
		es = append(es, f.Edits...)
		last = f.Edits[len(f.Edits)-1].End
	}
	return applyEdits(data, es)
}

// maxRounds bounds FixAll's analyse-and-fix rounds. Two suffice (fixes
// never break another line; only an orphan deletion waits a round, see
// FixAll), the third confirms that nothing is left.
const maxRounds = 4

// Result is what FixAll did.
type Result struct {
	// Data is the fixed file (the input itself when nothing was fixed).
	Data []byte
	// Fixed counts the findings fixed.
	Fixed int
	// Report is the analysis of Data, made with the options FixAll had.
	Report *analysis.Report
	// Origin has, for each physical line of Data, the number (1-based) of
	// the input line it is, unchanged; 0 for a line a fix wrote. It is nil
	// when nothing was fixed (every line is its own origin).
	Origin []int
}

// FixAll applies every safe fix (and with unsafe, every unsafe fix too) to
// data, analysing it with opts (findings of disabled codes are neither
// reported nor fixed), and repeats until nothing is left to fix.
//
// An orphan tool result is deleted only in a round where no line before it
// is fixed: fixing an earlier line (an assistant joined to another record,
// or one missing toolCalls) may declare the result's id, and then the
// result is no orphan.
//
// Applying FixAll's output to FixAll again changes nothing.
func FixAll(data []byte, opts analysis.Options, unsafe bool) Result {
	res, _ := FixAllContext(context.Background(), data, opts, unsafe)
	return res
}

// FixAllContext is FixAll that stops, with ctx's error, when ctx is done.
func FixAllContext(ctx context.Context, data []byte, opts analysis.Options, unsafe bool) (Result, error) {
	res := Result{Data: data}
	analyze := func() error {
		rep, err := analysis.AnalyzeReader(ctx, bytes.NewReader(res.Data), opts)
		res.Report = rep
		return err
	}
	for range maxRounds {
		if err := analyze(); err != nil {
			return Result{}, err
		}
		fixes := Select(Compute(res.Data, res.Report.Findings), unsafe)
		if len(fixes) == 0 {
			return res, nil
		}
		res.Origin = origins(res.Data, fixes, res.Origin)
		res.Data = Apply(res.Data, fixes)
		res.Fixed += len(fixes)
	}
	if err := analyze(); err != nil {
		return Result{}, err
	}
	return res, nil
}

// Select returns the fixes FixAll applies in one round: the safe ones, with
// unsafe the unsafe ones too, except an orphan tool result's deletion
// after another selected fix (see FixAll). fixes are in line order.
func Select(fixes []Fix, unsafe bool) []Fix {
	var out []Fix
	firstOther := 0 // line of the first selected fix that is no orphan deletion
	for _, f := range fixes {
		if f.Safety == Unsafe && !unsafe {
			continue
		}
		if f.Code == analysis.CodeOrphanToolResult {
			if firstOther > 0 && firstOther < f.Line {
				continue
			}
		} else if firstOther == 0 {
			firstOther = f.Line
		}
		out = append(out, f)
	}
	return out
}

// CountLines is the number of physical lines of data: one per '\n', plus
// a last line without one.
func CountLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// origins returns, for the lines of Apply(data, fixes), the input line each
// one is (from prev, the origins of data's lines; nil: data is the input),
// or 0 for a line a fix wrote.
func origins(data []byte, fixes []Fix, prev []int) []int {
	out := make([]int, 0, CountLines(data))
	k := 0 // fixes are in line order
	ForEachLine(data, func(ln, start, end int, nl bool) bool {
		for k < len(fixes) && fixes[k].Line < ln {
			k++
		}
		if k >= len(fixes) || fixes[k].Line != ln {
			o := ln
			if prev != nil {
				o = prev[ln-1]
			}
			out = append(out, o)
			return true
		}
		f := &fixes[k]
		if nl {
			end++
		}
		es := make([]Edit, len(f.Edits))
		for i, e := range f.Edits {
			es[i] = Edit{Start: e.Start - start, End: e.End - start, New: e.New}
		}
		for range CountLines(applyEdits(data[start:end], es)) {
			out = append(out, 0)
		}
		return true
	})
	return out
}

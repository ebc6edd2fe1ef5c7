package fix

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/randjsonl"
)

// checkLineFix checks what ForLine promises for any line: no panic; a fix
// only for a line the runtime refuses; edits sorted, disjoint and inside the
// line; every line the fix leaves exactly empty or valid; and the fixed
// lines need no second fix.
func checkLineFix(t *testing.T, l []byte) {
	t.Helper()
	for _, code := range []string{analysis.CodeInvalidJSON, analysis.CodeInvalidRecord} {
		lf, ok := ForLine(l, code)
		if !ok {
			continue
		}
		if len(l) == 0 || line.Parse(l).Verdict == line.Valid {
			t.Fatalf("a fix %v for a line the runtime accepts: %q", lf.Kinds, l)
		}
		if lf.Title == "" || len(lf.Kinds) == 0 || (lf.Safety != Safe && lf.Safety != Unsafe) {
			t.Fatalf("fix without title, kinds or safety: %+v", lf)
		}
		if lf.DeleteLine {
			continue
		}
		for i, e := range lf.Edits {
			if e.Start < 0 || e.Start > e.End || e.End > len(l) || (i > 0 && e.Start <= lf.Edits[i-1].End) {
				t.Fatalf("bad edits %+v for %q", lf.Edits, l)
			}
		}
		for _, seg := range bytes.Split(applyEdits(l, lf.Edits), []byte{'\n'}) {
			if len(seg) == 0 {
				continue
			}
			if line.Parse(seg).Verdict != line.Valid {
				t.Fatalf("fix %v of %q leaves an invalid line %q", lf.Kinds, l, seg)
			}
		}
	}
}

// TestForLineRandom runs checkLineFix on random hostile lines, alone, with
// a byte order mark, joined and cut, and counts the fixes it saw.
func TestForLineRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 71))
	fixed := 0
	for range 20000 {
		l := randjsonl.Line(r)
		switch r.IntN(5) {
		case 0:
			l = append([]byte("\ufeff"), l...)
		case 1:
			l = append(append([]byte{}, l...), randjsonl.Line(r)...)
		case 2:
			if len(l) > 1 {
				l = l[:1+r.IntN(len(l)-1)]
			}
		}
		checkLineFix(t, l)
		if _, ok := ForLine(l, analysis.CodeInvalidJSON); ok {
			fixed++
		}
	}
	if fixed < 1000 {
		t.Errorf("only %d of 20000 random lines got a fix: the test lost its reach", fixed)
	}
}

func FuzzForLine(f *testing.F) {
	for _, s := range []string{userX + userY, "\ufeff" + userX, `{"role":"user","content":"x",}`, ` `, `{"role":"user","content":"t` + userY,
		`{"role":"tool","content":"r","toolCallId":"a"}`, "{\"role\":\"user\",\"content\":\"a\tb\"}", `{"a":` + userY} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, l []byte) {
		if bytes.IndexByte(l, '\n') >= 0 {
			return // one line
		}
		checkLineFix(t, l)
	})
}

// TestFixAllRandomFiles: on random hostile files (not only corrupted valid
// ones), FixAll is idempotent both ways, every line it keeps is the input's
// line byte for byte, and it leaves no fix it could have made.
func TestFixAllRandomFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 32))
	changed := 0
	for range 400 {
		data := randjsonl.File(r, 3+r.IntN(40))
		in := splitLines(data)
		for _, unsafe := range []bool{false, true} {
			res := FixAll(data, analysis.Options{}, unsafe)
			// A second pass changes nothing, but may delete the orphans
			// the first held (see FixAll).
			if again := FixAll(res.Data, analysis.Options{}, unsafe); again.Fixed > res.HeldOrphans || (res.HeldOrphans == 0 && !bytes.Equal(again.Data, res.Data)) {
				t.Fatalf("second pass (unsafe=%v) fixed %d (%d held) in %q", unsafe, again.Fixed, res.HeldOrphans, res.Data)
			}
			if res.Fixed == 0 {
				continue
			}
			changed++
			out := splitLines(res.Data)
			if len(res.Origin) != len(out) {
				t.Fatalf("%d origins for %d lines", len(res.Origin), len(out))
			}
			for j, o := range res.Origin {
				if o > 0 && !bytes.Equal(bytes.TrimSuffix(out[j], []byte("\n")), bytes.TrimSuffix(in[o-1], []byte("\n"))) {
					t.Fatalf("kept line %d (input line %d) changed: %q -> %q", j+1, o, in[o-1], out[j])
				}
			}
			held := 0
			for _, f := range Compute(res.Data, res.Report.Findings) {
				if f.Code == analysis.CodeOrphanToolResult && unsafe && held < res.HeldOrphans {
					held++ // held by FixAll (see FixAll)
					continue
				}
				if unsafe || f.Safety == Safe {
					t.Fatalf("a fix left after FixAll (unsafe=%v): line %d %s %q", unsafe, f.Line, f.Code, f.Title)
				}
			}
		}
	}
	if changed < 100 {
		t.Errorf("only %d fix runs changed a file", changed)
	}
}

// FuzzPlan: on any file, the fixes Plan makes (across lines too) and its
// ambiguities' candidates keep their edits, sorted and disjoint, within the
// lines they name, and FixAll ends with every line it kept unchanged.
func FuzzPlan(f *testing.F) {
	for _, s := range []string{
		userX + "\n" + `{"role":"user","content":"one` + "\n\n" + `two"}` + "\n",
		userX + "\n" + `{"role":"user","content":"lo` + "\x00\x00\x00" + userY + "\n",
		`{"role":"user","content":"ab` + strings.Repeat("\x00", 40) + `cd"}` + toolA + "\n",
		asstA + "\n" + toolA + "\n" + `{"role":"tool","content":"r","toolCallId":"a"}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := analysis.Analyze(data, analysis.Options{})
		fixes, ambs := Plan(data, rep.Findings)
		all := slices.Clone(fixes)
		for _, a := range ambs {
			all = append(all, a.Candidates...)
		}
		for _, fx := range all {
			end := fx.LineStart
			for ln := fx.Line; ln <= max(fx.EndLine, fx.Line); ln++ {
				if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
					end += i + 1
				} else {
					end = len(data)
				}
			}
			prev := fx.LineStart
			for _, e := range fx.Edits {
				if e.Start < prev || e.End < e.Start || e.End > end {
					t.Fatalf("fix of lines %d-%d %q: edit %+v outside [%d,%d) or out of order", fx.Line, fx.EndLine, fx.Title, e, fx.LineStart, end)
				}
				prev = e.End
			}
		}
		res := FixAll(data, analysis.Options{}, true)
		in, out := splitLines(data), splitLines(res.Data)
		for j, o := range res.Origin {
			if o > 0 && !bytes.Equal(bytes.TrimSuffix(out[j], []byte("\n")), bytes.TrimSuffix(in[o-1], []byte("\n"))) {
				t.Fatalf("kept line %d (input line %d) changed", j+1, o)
			}
		}
	})
}

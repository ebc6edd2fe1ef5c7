package fix_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

const (
	dUserX  = `{"role":"user","content":"x"}`
	dToolA  = `{"role":"tool","content":"r","toolCallId":"a","isError":false}`
	dAsstA  = `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}}]}`
	dAsstAB = `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}},{"id":"b","name":"ls","input":{}}]}`
	C       = analysis.ChunkSize
)

// bigTool is a tool result of about n bytes whose content is lead
// followed by rune repeated.
func bigTool(id, lead, r string, n int) string {
	head := `{"role":"tool","content":"` + lead
	tail := `","toolCallId":"` + id + `","isError":false}`
	return head + strings.Repeat(r, (n-len(head)-len(tail))/len(r)) + tail
}

// pieces cuts a record (its line break added) into node's writes.
func pieces(rec string) []string {
	b := rec + "\n"
	var out []string
	for len(b) > C {
		out = append(out, b[:C])
		b = b[C:]
	}
	return append(out, b)
}

// TestDamageFixes: each damage class, as bytes laid out the way node's
// appendFile and the file system leave them, and what --fix and
// --fix --unsafe-fixes make of it.
func TestDamageFixes(t *testing.T) {
	// Two large records whose 524,288-byte boundaries split characters
	// differently (é is 2 bytes, 中 is 3): only one pairing is valid UTF-8.
	a := bigTool("a", "x", "é", 900000)
	b := bigTool("b", "", "中", 800000)
	pa, pb := pieces(a), pieces(b)
	// Two large ASCII records: the pieces pair either way.
	aa := bigTool("a", "", "a", 900000)
	bb := bigTool("b", "", "b", 800000)
	paa, pbb := pieces(aa), pieces(bb)
	zeros := func(n int) string { return strings.Repeat("\x00", n) }
	tests := []struct {
		name      string
		in        string
		safe      string // after --fix ("" : unchanged)
		unsafe    string // after --fix --unsafe-fixes ("" : as safe)
		lostBytes int64
		lostRecs  int
		ambiguous bool
		wantCodes []string // the findings' codes on the input, in order
	}{
		{
			name:      "split by raw line breaks",
			in:        dUserX + "\n" + `{"role":"user","content":"one` + "\n" + "two\r\n" + `three"}` + "\n" + dUserX + "\n",
			safe:      dUserX + "\n" + `{"role":"user","content":"one\ntwo\r\nthree"}` + "\n" + dUserX + "\n",
			wantCodes: []string{analysis.CodeSplitRecord, analysis.CodeSplitRecord, analysis.CodeSplitRecord},
		},
		{
			name:      "interleaved with a small append",
			in:        dAsstA + "\n" + pa[0] + dUserX + "\n" + pa[1],
			safe:      dAsstA + "\n" + dUserX + "\n" + a + "\n",
			wantCodes: []string{analysis.CodeInterleavedRecord, analysis.CodeInterleavedRecord},
		},
		{
			name:      "the first write of a large append, its writer killed, then another append",
			in:        dAsstA + "\n" + pa[0] + dUserX + "\n",
			unsafe:    dAsstA + "\n" + dUserX + "\n",
			lostBytes: C, lostRecs: 1,
			wantCodes: []string{analysis.CodeInterleavedRecord},
		},
		{
			name:      "two large appends interleaved, characters decide",
			in:        dAsstAB + "\n" + pa[0] + pb[0] + pa[1] + pb[1],
			safe:      dAsstAB + "\n" + a + "\n" + b + "\n",
			wantCodes: []string{analysis.CodeInterleavedRecord, analysis.CodeInterleavedRecord},
		},
		{
			name:      "two large ASCII appends interleaved: ambiguous",
			in:        dAsstAB + "\n" + paa[0] + pbb[0] + paa[1] + pbb[1],
			ambiguous: true,
			wantCodes: []string{analysis.CodeInterleavedRecord, analysis.CodeInterleavedRecord},
		},
		{
			name:      "cut record, then the next append",
			in:        dAsstA + "\n" + `{"role":"tool","content":"par` + dToolA + "\n",
			unsafe:    dAsstA + "\n" + dToolA + "\n",
			lostBytes: int64(len(`{"role":"tool","content":"par`)), lostRecs: 1,
			wantCodes: []string{analysis.CodeTruncatedRecord},
		},
		{
			name:      "cut record, then a record without isError: both repairs",
			in:        dAsstA + "\n" + `{"role":"tool","content":"par` + `{"role":"tool","content":"r","toolCallId":"a"}` + "\n",
			unsafe:    dAsstA + "\n" + dToolA + "\n",
			lostBytes: int64(len(`{"role":"tool","content":"par`)), lostRecs: 1,
			wantCodes: []string{analysis.CodeTruncatedRecord},
		},
		{
			name:      "cut record, then a record of several writes: could be a splice, no fix",
			in:        `{"role":"tool","content":"par` + aa + "\n",
			unsafe:    `{"role":"tool","content":"par` + aa + "\n",
			wantCodes: []string{analysis.CodeTruncatedRecord},
		},
		{
			name:      "NUL tail",
			in:        dUserX + "\n" + `{"role":"user","content":"lo` + zeros(40),
			unsafe:    dUserX + "\n",
			lostBytes: int64(len(`{"role":"user","content":"lo`) + 40), lostRecs: 1,
			wantCodes: []string{analysis.CodeZeroFilled},
		},
		{
			name:      "NUL tail, then appends after the restart",
			in:        dUserX + "\n" + `{"role":"user","content":"lo` + zeros(3000) + dUserX + "\n",
			unsafe:    dUserX + "\n" + dUserX + "\n",
			lostBytes: int64(len(`{"role":"user","content":"lo`) + 3000), lostRecs: 1,
			wantCodes: []string{analysis.CodeZeroFilled},
		},
		{
			name:      "zeroed page inside a string is not escaped",
			in:        `{"role":"user","content":"ab` + zeros(4096) + `cd"}` + "\n" + dUserX + "\n",
			unsafe:    dUserX + "\n",
			lostBytes: int64(len(`{"role":"user","content":"ab`) + 4096 + len(`cd"}`) + 1), lostRecs: 1,
			wantCodes: []string{analysis.CodeZeroFilled},
		},
		{
			name:      "zeroed page over a line break: complete records kept",
			in:        dAsstA + "\n" + `{"role":"user","content":"ab` + zeros(64) + `ef"}` + dToolA + "\n",
			unsafe:    dAsstA + "\n" + dToolA + "\n",
			lostBytes: int64(len(`{"role":"user","content":"ab`) + 64 + len(`ef"}`)), lostRecs: 1,
			wantCodes: []string{analysis.CodeZeroFilled},
		},
		{
			name:      "an orphan whose call is declared on a refused line is kept",
			in:        `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}}]} junk` + "\n" + dToolA + "\n",
			wantCodes: []string{analysis.CodeInvalidJSON, analysis.CodeOrphanToolResult},
		},
		{
			name:      "an orphan nobody declares is deleted",
			in:        dUserX + "\n" + dToolA + "\n",
			unsafe:    dUserX + "\n",
			lostBytes: int64(len(dToolA) + 1), lostRecs: 1,
			wantCodes: []string{analysis.CodeOrphanToolResult},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			var codes []string
			for _, f := range analysis.Analyze(in, analysis.Options{}).Findings {
				if f.Code != analysis.CodeMissingToolResult {
					codes = append(codes, f.Code)
				}
			}
			if strings.Join(codes, ",") != strings.Join(tc.wantCodes, ",") {
				t.Errorf("findings %v, want %v", codes, tc.wantCodes)
			}
			safeWant, unsafeWant := tc.safe, tc.unsafe
			if safeWant == "" {
				safeWant = tc.in
			}
			if unsafeWant == "" {
				unsafeWant = safeWant
			}
			safe := fix.FixAll(in, analysis.Options{}, false)
			if string(safe.Data) != safeWant {
				t.Errorf("safe fixes: %.200q\nwant %.200q", safe.Data, safeWant)
			}
			if safe.Lost != (fix.Loss{}) {
				t.Errorf("the safe fixes lost %+v", safe.Lost)
			}
			res := fix.FixAll(in, analysis.Options{}, true)
			if string(res.Data) != unsafeWant {
				t.Errorf("unsafe fixes: %.200q\nwant %.200q", res.Data, unsafeWant)
			}
			if res.Lost != (fix.Loss{Bytes: tc.lostBytes, Records: tc.lostRecs}) {
				t.Errorf("lost %+v, want %d bytes, %d records", res.Lost, tc.lostBytes, tc.lostRecs)
			}
			if got := len(res.Ambiguities) > 0; got != tc.ambiguous {
				t.Errorf("ambiguities %+v, want ambiguous=%v", res.Ambiguities, tc.ambiguous)
			}
			for _, a := range res.Ambiguities {
				if a.Ways < 2 || len(a.Candidates) < 2 {
					t.Errorf("ambiguity with %d ways, %d candidates", a.Ways, len(a.Candidates))
				}
				for _, c := range a.Candidates {
					if c.Safety != fix.Unsafe {
						t.Errorf("a candidate is %v", c.Safety)
					}
					// Each candidate is a way that makes every line load.
					if out := fix.Apply(res.Data, []fix.Fix{c}); !analysis.Analyze(out, analysis.Options{}).Loads() {
						t.Errorf("candidate %q leaves a file that does not load", c.Title)
					}
				}
			}
			// A fix's edits are located alike from its lines and from the
			// file.
			for _, f := range fix.Compute(in, analysis.Analyze(in, analysis.Options{}).Findings) {
				end := f.LineStart
				for ln := f.Line; ln <= f.EndLine; ln++ {
					if ln > f.Line {
						end++
					}
					if i := bytes.IndexByte(in[end:], '\n'); i >= 0 {
						end += i
					} else {
						end = len(in)
					}
				}
				for _, e := range f.Edits {
					for _, off := range []int{e.Start, e.End} {
						l1, c1 := f.Position(in[f.LineStart:end], off)
						l2, c2 := f.PositionIn(in, off)
						if l1 != l2 || c1 != c2 {
							t.Errorf("offset %d of the fix of lines %d-%d: Position %d:%d, PositionIn %d:%d", off, f.Line, f.EndLine, l1, c1, l2, c2)
						}
					}
				}
			}
			// The diff of a fix across lines applies.
			if got := applyChanges(in, fix.Changes(in, res.Data, res.Origin)); !bytes.Equal(got, res.Data) {
				t.Errorf("Changes do not rebuild the output")
			}
			// A fixed file is fixed.
			if again := fix.FixAll(res.Data, analysis.Options{}, true); again.Fixed != 0 {
				t.Errorf("fixing the output again fixes %d more", again.Fixed)
			}
		})
	}
}

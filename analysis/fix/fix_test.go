package fix

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

const (
	userX = `{"role":"user","content":"x"}`
	userY = `{"role":"user","content":"y"}`
	toolA = `{"role":"tool","content":"r","toolCallId":"a","isError":false}`
	asstA = `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}}]}`
)

// lineOut is what a line becomes: deleted, or its new bytes (which may
// hold line breaks).
func lineOut(t *testing.T, l string, lf LineFix) string {
	t.Helper()
	if lf.DeleteLine {
		return "<deleted>"
	}
	return string(applyEdits([]byte(l), lf.Edits))
}

func TestForLine(t *testing.T) {
	tests := []struct {
		name, line, code string
		want             string // "" means no fix
		kinds            []Kind
		safety           Safety
		title            string
	}{
		{"bom", "\ufeff" + userX, analysis.CodeInvalidJSON, userX, []Kind{BOM}, Safe, "Remove the byte order mark"},
		{"bom after spaces", "  \ufeff" + userX, analysis.CodeInvalidJSON, "  " + userX, []Kind{BOM}, Safe, ""},
		{"two boms", "\ufeff\ufeff" + userX, analysis.CodeInvalidJSON, userX, []Kind{BOM}, Safe, ""},
		{"bom alone", "\ufeff", analysis.CodeInvalidJSON, "", []Kind{BOM}, Safe, ""},
		{"bom and cr", "\ufeff\r", analysis.CodeInvalidJSON, "<deleted>", []Kind{BOM, BlankLine}, Safe, "Remove the byte order mark and delete the blank line"},
		{"blank cr", "\r", analysis.CodeInvalidJSON, "<deleted>", []Kind{BlankLine}, Safe, "Delete the blank line"},
		{"blank mix", " \t \r", analysis.CodeInvalidJSON, "<deleted>", []Kind{BlankLine}, Safe, ""},
		{"joined", userX + userY, analysis.CodeInvalidJSON, userX + "\n" + userY, []Kind{JoinedRecords}, Safe, "Split the 2 joined records onto their own lines"},
		{"joined space", userX + " \t" + userY, analysis.CodeInvalidJSON, userX + "\n" + userY, []Kind{JoinedRecords}, Safe, ""},
		{"joined crlf", userX + " " + userY + "\r", analysis.CodeInvalidJSON, userX + "\r\n" + userY + "\r", []Kind{JoinedRecords}, Safe, ""},
		{"joined cr between", userX + "\r" + userY, analysis.CodeInvalidJSON, userX + "\n" + userY, []Kind{JoinedRecords}, Safe, ""},
		{"joined three", userX + userY + asstA, analysis.CodeInvalidJSON, userX + "\n" + userY + "\n" + asstA, []Kind{JoinedRecords}, Safe, "Split the 3 joined records onto their own lines"},
		{"joined leading ws kept", "  " + userX + userY + " ", analysis.CodeInvalidJSON, "  " + userX + "\n" + userY + " ", []Kind{JoinedRecords}, Safe, ""},
		{"joined string braces", `{"role":"user","content":"}{\"}"}` + userY, analysis.CodeInvalidJSON, `{"role":"user","content":"}{\"}"}` + "\n" + userY, []Kind{JoinedRecords}, Safe, ""},
		{"comma object", `{"role":"user","content":"x",}`, analysis.CodeInvalidJSON, userX, []Kind{TrailingComma}, Safe, "Remove the trailing comma"},
		{"comma ws", `{"role":"user","content":"x" , }`, analysis.CodeInvalidJSON, `{"role":"user","content":"x"  }`, []Kind{TrailingComma}, Safe, ""},
		{"comma nested", `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":[1,{"k":2,},],},],}`, analysis.CodeInvalidJSON,
			`{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":[1,{"k":2}]}]}`, []Kind{TrailingComma}, Safe, "Remove 5 trailing commas"},
		{"bom comma joined", "\ufeff" + `{"role":"user","content":"x",}` + userY, analysis.CodeInvalidJSON, userX + "\n" + userY,
			[]Kind{BOM, JoinedRecords, TrailingComma}, Safe, "Remove the byte order mark, split the 2 joined records onto their own lines and remove the trailing comma"},
		{"control tab", "{\"role\":\"user\",\"content\":\"a\tb\"}", analysis.CodeInvalidJSON, `{"role":"user","content":"a\tb"}`, []Kind{ControlCharacter}, Safe, "Escape the raw control character in a string"},
		{"controls", "{\"role\":\"user\",\"content\":\"\x00\x1f\r\b\f\",\"k\x01\":1}", analysis.CodeInvalidJSON, `{"role":"user","content":"\u0000\u001f\r\b\f","k\u0001":1}`, []Kind{ControlCharacter}, Safe, "Escape 6 raw control characters in strings"},
		{"controls outside strings stay", "{\"role\":\"user\",\t\"content\":\"\t\"}\r", analysis.CodeInvalidJSON, "{\"role\":\"user\",\t\"content\":\"\\t\"}\r", []Kind{ControlCharacter}, Safe, ""},
		{"control and comma", "{\"role\":\"tool\",\"content\":\"\t\",\"toolCallId\":\"a\",\"x\":[1,],}", analysis.CodeInvalidJSON, `{"role":"tool","content":"\t","toolCallId":"a","x":[1],"isError":false}`, []Kind{TrailingComma, ControlCharacter, MissingIsError}, Unsafe, ""},
		{"truncated", `{"role":"user","content":"tru`, analysis.CodeInvalidJSON, "<deleted>", []Kind{TruncatedRecord}, Unsafe, "Delete the truncated record (the partial record is lost)"},
		{"truncated after key", `{"role"`, analysis.CodeInvalidJSON, "<deleted>", []Kind{TruncatedRecord}, Unsafe, ""},
		{"truncated with bom", "\ufeff{\"role\":", analysis.CodeInvalidJSON, "<deleted>", []Kind{TruncatedRecord}, Unsafe, ""},
		{"truncated before", `{"role":"user","content":"tru` + userY, analysis.CodeInvalidJSON, userY, []Kind{TruncatedRecord}, Unsafe, ""},
		{"truncated before two", `{"role":"user","co` + userX + " " + userY + "\r", analysis.CodeInvalidJSON, userX + "\r\n" + userY + "\r", []Kind{JoinedRecords, TruncatedRecord}, Unsafe, ""},
		{"truncated after", userX + ` {"role":"user","content":"tr` + "\r", analysis.CodeInvalidJSON, userX + "\r", []Kind{TruncatedRecord}, Unsafe, ""},
		{"truncated between", userX + `{"role":"us` + userY, analysis.CodeInvalidJSON, userX + "\n" + userY, []Kind{JoinedRecords, TruncatedRecord}, Unsafe, ""},
		{"missing isError", `{"role":"tool","content":"r","toolCallId":"a"}`, analysis.CodeInvalidRecord, toolA, []Kind{MissingIsError}, Unsafe,
			`Add "isError":false (invents that the tool call did not fail)`},
		{"missing isError ws", `{"role":"tool","content":"r","toolCallId":"a" } `, analysis.CodeInvalidRecord, `{"role":"tool","content":"r","toolCallId":"a","isError":false } `, []Kind{MissingIsError}, Unsafe, ""},
		{"missing toolCalls", `{"role":"assistant","content":"c"}`, analysis.CodeInvalidRecord, `{"role":"assistant","content":"c","toolCalls":[]}`, []Kind{MissingToolCalls}, Unsafe,
			`Add "toolCalls":[] (invents that the assistant called no tools)`},
		{"missing after comma", `{"role":"tool","content":"r","toolCallId":"a",}`, analysis.CodeInvalidJSON, toolA, []Kind{TrailingComma, MissingIsError}, Unsafe, ""},
		{"joined missing", userX + `{"role":"assistant","content":"c"}`, analysis.CodeInvalidJSON, userX + "\n" + `{"role":"assistant","content":"c","toolCalls":[]}`, []Kind{JoinedRecords, MissingToolCalls}, Unsafe, ""},
		{"orphan", toolA, analysis.CodeOrphanToolResult, "<deleted>", []Kind{OrphanToolResult}, Unsafe, "Delete the orphan tool result (its content is lost)"},

		// No single right repair, or more than one fault: no fix.
		{"valid line", userX, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"empty line", "", analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"joined invalid record", userX + `{}`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"joined unknown role", userX + `{"role":"system","content":"s"}`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"joined array", userX + `[]`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"trailing garbage", userX + ` x`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"comma and quote", `{'role':"user","content":"x",}`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"comma leaves error", `{"role":"user","content":01,}`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"comma in empty", `{"role":"user","content":"x","a":[,]}`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"comma mismatched", `{"role":"user","content":"x","a":[1,}}`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"isError wrong type", `{"role":"tool","content":"r","toolCallId":"a","isError":"no"}`, analysis.CodeInvalidRecord, "", nil, 0, ""},
		{"isError and toolCallId missing", `{"role":"tool","content":"r"}`, analysis.CodeInvalidRecord, "", nil, 0, ""},
		{"toolCalls wrong type", `{"role":"assistant","content":"c","toolCalls":{}}`, analysis.CodeInvalidRecord, "", nil, 0, ""},
		{"unknown role", `{"role":"system","content":"s"}`, analysis.CodeInvalidRecord, "", nil, 0, ""},
		{"truncated non-object", `[1,2`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"error before the end", `{"role":'user","content":"x`, analysis.CodeInvalidJSON, "", nil, 0, ""},
		// The whole line reads as one truncated record holding a complete
		// one, or as a truncated record before a complete one: two readings.
		{"ambiguous nested", `{"a":` + userY, analysis.CodeInvalidJSON, "", nil, 0, ""},
		// The truncated part could end before either complete record.
		{"ambiguous two cuts", `{"a":` + userX + " " + userY, analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"orphan on invalid line", userX + "x", analysis.CodeOrphanToolResult, "", nil, 0, ""},
		{"control outside a string", "{\"role\":\"user\",\"content\":\"x\"\x01}", analysis.CodeInvalidJSON, "", nil, 0, ""},
		{"other code", userX, analysis.CodeSweptMessage, "", nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf, ok := ForLine([]byte(tt.line), tt.code)
			if tt.kinds == nil {
				if ok {
					t.Fatalf("got fix %+v (%q), want none", lf, lineOut(t, tt.line, lf))
				}
				return
			}
			if !ok {
				t.Fatalf("no fix, want %q", tt.want)
			}
			if got := lineOut(t, tt.line, lf); got != tt.want {
				t.Errorf("fixed line:\n got %q\nwant %q", got, tt.want)
			}
			if !slices.Equal(lf.Kinds, tt.kinds) || lf.Safety != tt.safety {
				t.Errorf("kinds %v safety %v, want %v %v", lf.Kinds, lf.Safety, tt.kinds, tt.safety)
			}
			if tt.title != "" && lf.Title != tt.title {
				t.Errorf("title %q, want %q", lf.Title, tt.title)
			}
			for i, e := range lf.Edits {
				if e.Start > e.End || e.End > len(tt.line) || (i > 0 && e.Start <= lf.Edits[i-1].End) {
					t.Errorf("edits not sorted, disjoint and inside the line: %+v", lf.Edits)
				}
			}
		})
	}
}

// TestForLineHostile: lines built to make a search quadratic or a repair
// loop long end with no fix, without panicking.
func TestForLineHostile(t *testing.T) {
	// nest(k) is a user record with k trailing commas, nested.
	nest := func(k int) []byte {
		v := "1"
		for range k {
			v = "[" + v + ",]"
		}
		return []byte(`{"role":"user","content":"x","a":` + v + "}")
	}
	n := 1 << 20
	lines := map[string][]byte{
		"open braces":      bytes.Repeat([]byte(`{"`), n/2),
		"open keys":        bytes.Repeat([]byte(`{"a":`), n/5),
		"many commas":      nest(100),
		"records then bad": append(bytes.Repeat([]byte(userX), 2000), '{', 'x'),
		"invalid utf8":     append([]byte(userX), 0xff, 0xfe),
	}
	for name, l := range lines {
		if lf, ok := ForLine(l, analysis.CodeInvalidJSON); ok {
			t.Errorf("%s: got fix %v, want none", name, lf.Kinds)
		}
	}
	// Commas up to the bound are repaired, past it not.
	if _, ok := ForLine(nest(maxCommas), analysis.CodeInvalidJSON); !ok {
		t.Errorf("%d trailing commas: no fix", maxCommas)
	}
	if _, ok := ForLine(nest(maxCommas+1), analysis.CodeInvalidJSON); ok {
		t.Errorf("%d trailing commas: fixed, want no fix past the bound", maxCommas+1)
	}
}

func analyzeFix(t *testing.T, data string, unsafe bool) (Result, []Fix) {
	t.Helper()
	rep := analysis.Analyze([]byte(data), analysis.Options{})
	fixes := Compute([]byte(data), rep.Findings)
	return FixAll([]byte(data), analysis.Options{}, unsafe), fixes
}

func TestFixAll(t *testing.T) {
	tests := []struct {
		name, in         string
		safe, unsafe     string
		nSafe, nUnsafe   int
		remainAfterSafe  int // findings left after the safe fixes
		fixesBeforeFixes int
	}{
		{
			name:  "every safe kind",
			in:    "\ufeff" + userX + "\r\n \r\n" + userX + userY + "\n" + `{"role":"user","content":"x",}` + "\n",
			safe:  userX + "\r\n" + userX + "\n" + userY + "\n" + userX + "\n",
			nSafe: 4, nUnsafe: 4,
			unsafe: userX + "\r\n" + userX + "\n" + userY + "\n" + userX + "\n",
		},
		{
			name:            "unsafe kinds",
			in:              userX + "\n" + `{"role":"user","content":"tr` + "\n" + `{"role":"assistant","content":"c"}` + "\n" + `{"role":"tool","content":"r","toolCallId":"zz"}` + "\n",
			safe:            userX + "\n" + `{"role":"user","content":"tr` + "\n" + `{"role":"assistant","content":"c"}` + "\n" + `{"role":"tool","content":"r","toolCallId":"zz"}` + "\n",
			remainAfterSafe: 3,
			// The truncated line goes, toolCalls and isError are added,
			// and then the result is an orphan and goes too.
			unsafe:  userX + "\n" + `{"role":"assistant","content":"c","toolCalls":[]}` + "\n",
			nUnsafe: 4,
		},
		{
			// The assistant declaring the result's id is joined to another
			// record: the result is an orphan until the split, so it must
			// not be deleted with it.
			name:    "orphan waits for the split",
			in:      userX + asstA + "\n" + toolA + "\n" + `{"role":"tool","content":"r","toolCallId":"b","isError":true}` + "\n",
			safe:    userX + "\n" + asstA + "\n" + toolA + "\n" + `{"role":"tool","content":"r","toolCallId":"b","isError":true}` + "\n",
			nSafe:   1,
			unsafe:  userX + "\n" + asstA + "\n" + toolA + "\n",
			nUnsafe: 2, remainAfterSafe: 1,
		},
		{
			name: "last line without newline", in: userX + "\n \t", safe: userX + "\n", nSafe: 1, unsafe: userX + "\n", nUnsafe: 1,
		},
		{
			name: "nothing to fix", in: userX + "\n\n" + userY, safe: userX + "\n\n" + userY, unsafe: userX + "\n\n" + userY,
		},
		{
			name: "unfixable stays", in: userX + "\n" + `{"role":"system","content":"s"}` + "\n" + userX + ",\n",
			safe: userX + "\n" + `{"role":"system","content":"s"}` + "\n" + userX + ",\n", remainAfterSafe: 2,
			unsafe: userX + "\n" + `{"role":"system","content":"s"}` + "\n" + userX + ",\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			safe, _ := analyzeFix(t, tt.in, false)
			if string(safe.Data) != tt.safe || safe.Fixed != tt.nSafe {
				t.Errorf("safe fixes: %d fixed\n got %q\nwant %q (%d fixed)", safe.Fixed, safe.Data, tt.safe, tt.nSafe)
			}
			if got := len(safe.Report.Findings); got != tt.remainAfterSafe {
				t.Errorf("%d findings remain after the safe fixes, want %d: %+v", got, tt.remainAfterSafe, safe.Report.Findings)
			}
			unsafe, _ := analyzeFix(t, tt.in, true)
			if string(unsafe.Data) != tt.unsafe || unsafe.Fixed != tt.nUnsafe {
				t.Errorf("unsafe fixes: %d fixed\n got %q\nwant %q (%d fixed)", unsafe.Fixed, unsafe.Data, tt.unsafe, tt.nUnsafe)
			}
			// A second run changes nothing.
			for _, u := range []bool{false, true} {
				in := safe.Data
				if u {
					in = unsafe.Data
				}
				again := FixAll(in, analysis.Options{}, u)
				if again.Fixed != 0 || !bytes.Equal(again.Data, in) {
					t.Errorf("second run (unsafe=%v) fixed %d: %q -> %q", u, again.Fixed, in, again.Data)
				}
			}
		})
	}
}

// TestComputeEditsStayInTheirLine: every fix's edits lie within its line
// (line break included), and applying all of them leaves the other lines'
// bytes as they were.
func TestComputeEditsStayInTheirLine(t *testing.T) {
	data := []byte("\ufeff" + userX + "\r\n" + userY + "\n\r\n" + userX + userY + "\n" + toolA + "\n" + `{"role":"user","content":"x",}` + "\n" + `{"role":"tool","content":"r","toolCallId":"a"}`)
	rep := analysis.Analyze(data, analysis.Options{})
	fixes := Compute(data, rep.Findings)
	type span struct{ start, end int }
	lines := map[int]span{}
	ForEachLine(data, func(ln, start, end int, nl bool) bool {
		if nl {
			end++
		}
		lines[ln] = span{start, end}
		return true
	})
	var got []int
	for _, f := range fixes {
		got = append(got, f.Line)
		sp := lines[f.Line]
		for _, e := range f.Edits {
			if e.Start < sp.start || e.End > sp.end {
				t.Errorf("line %d fix %q: edit %+v outside the line [%d,%d)", f.Line, f.Title, e, sp.start, sp.end)
			}
		}
	}
	// Line 2 is valid; line 5 is a tool result nobody declares (an orphan).
	if want := []int{1, 3, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("fixes on lines %v, want %v", got, want)
	}
	out := Apply(data, fixes)
	if !bytes.Contains(out, []byte("\n"+userY+"\n")) {
		t.Errorf("line 2 changed: %q", out)
	}
	for _, l := range bytes.Split(out, []byte("\n")) {
		if len(l) > 0 && line.Parse(l).Verdict != line.Valid {
			t.Errorf("line %q still invalid after every fix", l)
		}
	}
}

func TestDisabledCodesAreNotFixed(t *testing.T) {
	in := []byte(`{"role":"user","content":"x",}` + "\n" + toolA + "\n")
	off := analysis.Options{Disabled: map[string]bool{analysis.CodeInvalidJSON: true, analysis.CodeOrphanToolResult: true}}
	if res := FixAll(in, off, true); res.Fixed != 0 || !bytes.Equal(res.Data, in) {
		t.Errorf("disabled findings were fixed: %q", res.Data)
	}
}

func TestPosition(t *testing.T) {
	// "é" is 2 bytes and 1 unit, "😀" 4 bytes and 2 units, "\xff" one
	// U+FFFD; the line starts at offset 10.
	l := []byte(`{"role":"user","content":"é😀` + "\xff" + `"}{}`)
	f := Fix{Line: 3, LineStart: 10}
	for _, tc := range []struct{ off, ln, col int }{
		{10, 3, 0}, {11, 3, 1}, {10 + 26, 3, 26}, {10 + 28, 3, 27}, {10 + 32, 3, 29}, {10 + 33, 3, 30},
		{10 + len(l), 3, 34}, {10 + len(l) + 1, 4, 0},
	} {
		ln, col := f.Position(l, tc.off)
		if ln != tc.ln || col != tc.col {
			t.Errorf("offset %d: line %d col %d, want %d %d", tc.off, ln, col, tc.ln, tc.col)
		}
	}
}

func TestFixAllContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FixAllContext(ctx, []byte(userX+",\n"), analysis.Options{}, true); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
}

// TestTitlesReady: the titles title has ready are the ones it would compose.
func TestTitlesReady(t *testing.T) {
	for k := BOM; k <= Relink; k++ {
		if got, want := title([]Kind{k}, 1, 1, 1), composeTitle([]Kind{k}, 1, 1, 1); got != want {
			t.Errorf("%v: %q, composed %q", k, got, want)
		}
	}
}

// TestFixTable: the Kind constants number analysis's fix table, each kind
// has a name of its own, repairs the findings of some rule and says what
// it loses exactly when it is unsafe; and exactly the codes some kind of
// the engine's (not a dialect's alone) repairs are fixable in the
// runtime's sessions (a dialect's Plan answers for the others).
func TestFixTable(t *testing.T) {
	// Which kind is which is pinned by the tests of each repair, which
	// name the kinds and titles a line's fix has.
	if got, want := len(analysis.FixKinds()), int(Relink); got != want {
		t.Fatalf("the fix table has %d kinds, the constants %d", got, want)
	}
	seen := map[string]bool{}
	for k := BOM; k <= Relink; k++ {
		if name := k.String(); name == "" || seen[name] {
			t.Errorf("Kind %d: name %q, empty or taken", k, name)
		}
		seen[k.String()] = true
	}
	for _, k := range []Kind{0, Relink + 1} {
		if got := k.String(); got != "unknown" {
			t.Errorf("Kind %d is %q, want unknown", k, got)
		}
	}
	engine := map[string]bool{} // the codes the engine's kinds repair
	for i, k := range analysis.FixKinds() {
		if len(k.Rules) == 0 {
			t.Errorf("kind %v has no rule listing it", Kind(i+1))
		}
		if (k.Lost != "") == k.Safe {
			t.Errorf("kind %v: safe %v, loss %q: an unsafe kind says what it loses, a safe one loses nothing", Kind(i+1), k.Safe, k.Lost)
		}
		for _, r := range k.Rules {
			if len(k.Dialects) == 0 {
				engine[r.Code] = true
			}
		}
	}
	for _, r := range analysis.Rules() {
		if Fixable(r.Code) != (r.Fix != analysis.FixNone && engine[r.Code]) {
			t.Errorf("%s: Fixable %v, registry %s", r.Code, Fixable(r.Code), r.Fix)
		}
	}
}

package cli

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	nodeoracle "github.com/sessionls/sessionls/internal/randjsonl/oracle"
	"github.com/sessionls/sessionls/internal/textfmt"
)

var budgetCases = []struct {
	session string
	budget  int64
	code    int
}{
	{"clean", 100000, 0},
	{"clean", 300, 0},
	{"clean", 10, 1}, // the newest unit does not fit
	{"demo", 500, 1}, // does not load
	{"units", 200, 0},
	{"units", 600, 0},
	{"crlf_ok", 150, 0},
	{"crlf", 1000, 1},
	{"empty", 100, 1}, // no messages: "context budget cannot be empty"
	{"badrecords", 1000, 1},
}

func TestBudgetGolden(t *testing.T) {
	atRepoRoot(t)
	for _, bc := range budgetCases {
		for _, format := range []string{formatText, formatJSON} {
			name := bc.session + "-" + strconv.FormatInt(bc.budget, 10) + "." + format
			t.Run(name, func(t *testing.T) {
				r := sessionls(t, "budget", "--format", format, "--max-chars", strconv.FormatInt(bc.budget, 10), sessionPath(bc.session))
				r.wantCode(t, bc.code)
				golden(t, "budget/"+name, r.stdout+stderrSection(r.stderr))
			})
		}
	}
}

// stderrSection appends what went to stderr to a golden, visibly apart.
func stderrSection(s string) string {
	if s == "" {
		return ""
	}
	return "--- stderr ---\n" + s
}

// The JSON keys and their order are an interface: checked on the raw text.
func TestBudgetJSONExactKeys(t *testing.T) {
	atRepoRoot(t)
	keysOf := func(raw json.RawMessage) []string { return jsonKeys(t, string(raw)) }
	for _, tc := range []struct {
		session string
		budget  string
	}{{"units", "300"}, {"clean", "10"}, {"demo", "100"}} {
		r := sessionls(t, "budget", "--format", "json", "--max-chars", tc.budget, sessionPath(tc.session))
		raw := json.RawMessage(r.stdout)
		wantEqual(t, "keysOf(raw)", keysOf(raw), []string{"file", "messages", "totalChars", "units", "budget", "cutoff", "error", "minBudget"})
		var top map[string]json.RawMessage
		if err := json.Unmarshal(raw, &top); err != nil {
			t.Fatalf("json.Unmarshal(raw, &top): %v", err)
		}
		var units []json.RawMessage
		if err := json.Unmarshal(top["units"], &units); err != nil {
			t.Fatalf(`json.Unmarshal(top["units"], &units): %v`, err)
		}
		if units == nil {
			t.Error("units is an array, never null: units is nil, want non-nil")
		}
		for _, u := range units {
			wantEqual(t, "keysOf(u)", keysOf(u), []string{"startLine", "endLine", "messages", "chars"})
		}
		if string(top["cutoff"]) != "null" {
			wantEqual(t, `keysOf(top["cutoff"])`, keysOf(top["cutoff"]), []string{"firstKeptLine", "keptUnits", "keptChars"})
			if got := string(top["error"]); got != "null" {
				t.Errorf(`string(top["error"]) = %q, want %q`, got, "null")
			}
		} else {
			if !strings.HasPrefix(string(top["error"]), `"`) {
				t.Error("error is a string when cutoff is null: strings.HasPrefix(string(top[\"error\"]), `\"`) is false, want true")
			}
		}
	}
}

func TestBudgetErrors(t *testing.T) {
	atRepoRoot(t)
	// JSON output of a budget that cannot work: exit 1, the error, the
	// units even when the budget is too small, no cutoff, and the least
	// budget that works (the newest unit's cost) where one does.
	for _, tc := range []struct {
		session, budget string
		err             string
		errIsPrefix     bool // a parse error goes on past err
		units           int
		minBudget       int64 // 0: none; no budget works for a session with no messages, or one that does not load
	}{
		{"clean", "10", "context budget cannot contain the smallest consistent message unit", false, 5, 43},
		{"empty", "10", "context budget cannot be empty", false, 0, 0},
		{"demo", "1000", "invalid session record at line 7", true, 0, 0},
	} {
		r := sessionls(t, "budget", "--format", "json", "--max-chars", tc.budget, sessionPath(tc.session))
		r.wantCode(t, 1, tc.session)
		var bj budgetJSON
		r.decodeJSON(t, &bj)
		if bj.Error == nil {
			t.Fatalf("%s: bj.Error is nil, want non-nil", tc.session)
		}
		if tc.errIsPrefix {
			wantPrefix(t, tc.session+": *bj.Error", *bj.Error, tc.err)
		} else if *bj.Error != tc.err {
			t.Errorf("%s: *bj.Error = %q, want %q", tc.session, *bj.Error, tc.err)
		}
		if len(bj.Units) != tc.units {
			t.Errorf("%s: len(bj.Units) = %d, want %d: %+v", tc.session, len(bj.Units), tc.units, bj.Units)
		}
		if bj.Cutoff != nil {
			t.Errorf("%s: bj.Cutoff = %+v, want nil", tc.session, *bj.Cutoff)
		}
		switch {
		case tc.minBudget == 0 && bj.MinBudget != nil:
			t.Errorf("%s: *bj.MinBudget = %v, want nil", tc.session, *bj.MinBudget)
		case tc.minBudget != 0 && bj.MinBudget == nil:
			t.Errorf("%s: bj.MinBudget is nil, want %v", tc.session, tc.minBudget)
		case tc.minBudget != 0 && *bj.MinBudget != tc.minBudget:
			t.Errorf("%s: the newest unit's cost: *bj.MinBudget = %v, want %v", tc.session, *bj.MinBudget, tc.minBudget)
		}
	}

	r := sessionls(t, "budget", "--max-chars", "10", sessionPath("clean"))
	r.wantCode(t, 1)
	if r.stderr != "sessionls: testdata/sessions/clean.jsonl: context budget cannot contain the smallest consistent message unit; the least budget that works is 43 (the newest unit, line 7)\n" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "sessionls: testdata/sessions/clean.jsonl: context budget cannot contain the smallest consistent message unit; the least budget that works is 43 (the newest unit, line 7)\n")
	}
	r = sessionls(t, "budget", "--max-chars", "43", sessionPath("clean"))
	r.wantCode(t, 0, "the least budget that works works")

	data := readFile(t, sessionPath("clean"))
	e, out, errb := testEnv(string(data), nil)
	r = runWith(t, e, out, errb, "budget", "--format", "json", "--max-chars", "300", "-")
	r.wantCode(t, 0)
	r.wantStdout(t, `"file": "-"`, `"firstKeptLine": 6`)

	// Text output of a file that does not load: the units of its valid
	// lines, marked as what it would cost once it loads (as the editors show).
	r = sessionls(t, "budget", "--max-chars", "1000", sessionPath("demo"))
	r.wantCode(t, 1)
	wantPrefix(t, "stdout", r.stdout, "testdata/sessions/demo.jsonl: the file does not load (line 7 is invalid)")
	r.wantStdout(t, "once it loads, its valid lines would cost (invalid lines not counted): 10 messages in 6 units, 1,351 chars\n")
	wantNotContains(t, "stdout", r.stdout, "cuts here")
	wantPrefix(t, "stderr", r.stderr, "sessionls: testdata/sessions/demo.jsonl: invalid session record at line 7")

	// No budget: the units and totals, nothing cut, exit 0 (the README
	// shows the budget as optional).
	r = sessionls(t, "budget", sessionPath("clean"))
	r.wantCode(t, 0)
	wantPrefix(t, "stdout", r.stdout, "testdata/sessions/clean.jsonl: 7 messages in 5 units, 719 chars\n")
	r.wantStdout(t, "no budget: give --budget N")
	wantNotContains(t, "stdout", r.stdout, "cuts here")

	for _, args := range [][]string{
		{"budget", "--max-chars", "0", sessionPath("clean")},
		{"budget", "--max-chars", "-4", sessionPath("clean")},
		{"budget", "--max-chars", "abc", sessionPath("clean")},
		{"budget", "--max-chars", "1.5", sessionPath("clean")},
		{"budget", "--max-chars", "10"},
		{"budget", "--max-chars", "10", "--format", "sarif", sessionPath("clean")},
		{"budget", "--max-chars", "10", sessionPath("clean"), sessionPath("demo")},
		{"trim", sessionPath("clean")},
		{"trim", "--max-chars", "0", sessionPath("clean")},
	} {
		r := sessionls(t, args...)
		r.wantCode(t, 2, args)
		if want := "Usage: sessionls " + args[0]; !strings.Contains(r.stderr, want) {
			t.Errorf("%v: r.stderr = %q, want it to contain %q", args, r.stderr, want)
		}
		if r.stdout != "" {
			t.Errorf("%v: r.stdout = %q, want %q", args, r.stdout, "")
		}
	}
}

// oracleResult is one file's answer from `node runtime.mjs batch`.
type oracleResult struct {
	Lines []struct {
		Line    int
		Verdict string
	}
	Budget struct {
		Loads      bool
		Error      string
		Line       int
		Messages   int
		TotalChars int64
		Units      []unitJSON
		Cuts       []struct {
			Budget        int64
			Error         string
			FirstKeptLine int
			KeptUnits     int
			KeptChars     int64
		}
	}
}

// oracle runs the runtime's own functions (testdata/oracle/runtime.mjs) in
// one node process over every session, for the given budgets.
func oracle(t *testing.T, budgets []int64) (paths []string, results []oracleResult) {
	t.Helper()
	node := nodeoracle.Node(t)
	paths, err := filepath.Glob("testdata/sessions/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !(len(paths) >= 7) {
		t.Fatalf("sessions: %v: len(paths) >= 7 is false, want true", paths)
	}
	type item struct {
		Path    string  `json:"path"`
		Budgets []int64 `json:"budgets"`
	}
	var list []item
	for _, p := range paths {
		list = append(list, item{p, budgets})
	}
	listFile := filepath.Join(t.TempDir(), "list.json")
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, listFile, b, 0o644)
	out, err := exec.Command(node, "testdata/oracle/runtime.mjs", "batch", listFile).Output()
	if err != nil {
		t.Fatalf("node oracle: %v", err)
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("json.Unmarshal(out, &results): %v", err)
	}
	if want := len(paths); len(results) != want {
		t.Fatalf("len(results) = %d, want %d: %+v", len(results), want, results)
	}
	return paths, results
}

// TestBudgetMatchesNodeOracle compares every unit, cost and cutoff with the
// runtime's own functions run by node.
func TestBudgetMatchesNodeOracle(t *testing.T) {
	atRepoRoot(t)
	budgets := []int64{1, 40, 100, 200, 300, 500, 1000, 1 << 40}
	paths, results := oracle(t, budgets)
	for i, s := range paths {
		want := results[i].Budget
		for j, b := range budgets {
			bs := strconv.FormatInt(b, 10)
			r := sessionls(t, "budget", "--format", "json", "--max-chars", bs, s)
			var got budgetJSON
			r.decodeJSON(t, &got)
			where := s + " budget " + bs
			if !want.Loads {
				r.wantCode(t, 1, where)
				if got.Error == nil {
					t.Fatalf("%v: got.Error is nil, want non-nil", where)
				}
				if !strings.Contains(*got.Error, " at line "+strconv.Itoa(want.Line)+":") {
					t.Errorf(`%s: %q should name physical line %d: strings.Contains(*got.Error, " at line "+strconv.Itoa(want.Line)+":") is false, want true`, where, *got.Error, want.Line)
				}
				if !strings.HasPrefix(*got.Error, strings.Split(want.Error, " at line")[0]) {
					t.Errorf(`%s: %q vs node %q: strings.HasPrefix(*got.Error, strings.Split(want.Error, " at line")[0]) is false, want true`, where, *got.Error, want.Error)
				}
				if len(got.Units) != 0 {
					t.Errorf("%v: len(got.Units) = %d, want %d: %+v", where, len(got.Units), 0, got.Units)
				}
				if got.MinBudget != nil {
					t.Errorf("%v: got.MinBudget == nil is false, want true", where)
				}
				continue
			}
			// minBudget is the least budget node's trimContext accepts.
			if len(want.Units) == 0 {
				if got.MinBudget != nil {
					t.Errorf("%v: got.MinBudget == nil is false, want true", where)
				}
			} else if got.MinBudget == nil {
				t.Errorf("%v: got.MinBudget is nil, want non-nil", where)
			} else {
				least := *got.MinBudget
				if expected := want.Units[len(want.Units)-1].Chars; least != expected {
					t.Errorf("%v: least = %v, want %v", where, least, expected)
				}
				tooSmall := want.Cuts[j].Error == analysis.ErrBudgetTooSmall.Error()
				if want := b < least; tooSmall != want {
					t.Errorf("%s: minBudget %d, node says too small: %v: tooSmall = %v, want %v", where, least, tooSmall, tooSmall, want)
				}
			}
			if got.Messages != want.Messages {
				t.Errorf("%v: got.Messages = %v, want %v", where, got.Messages, want.Messages)
			}
			if got.TotalChars != want.TotalChars {
				t.Errorf("%v: got.TotalChars = %v, want %v", where, got.TotalChars, want.TotalChars)
			}
			if !reflect.DeepEqual(got.Units, want.Units) {
				t.Errorf("%v: got.Units = %+v, want %+v", where, got.Units, want.Units)
			}
			cut := want.Cuts[j]
			if cut.Budget != b {
				t.Fatalf("cut.Budget = %v, want %v", cut.Budget, b)
			}
			if cut.Error != "" {
				r.wantCode(t, 1, where)
				if got.Error == nil {
					t.Fatalf("%v: got.Error is nil, want non-nil", where)
				}
				if *got.Error != cut.Error {
					t.Errorf("%v: *got.Error = %q, want %q", where, *got.Error, cut.Error)
				}
				if got.Cutoff != nil {
					t.Errorf("%v: got.Cutoff == nil is false, want true", where)
				}
				continue
			}
			r.wantCode(t, 0, where)
			if got.Cutoff == nil {
				t.Fatalf("%v: got.Cutoff is nil, want non-nil", where)
			}
			if want := (cutoffJSON{cut.FirstKeptLine, cut.KeptUnits, cut.KeptChars, nil}); !reflect.DeepEqual(*got.Cutoff, want) {
				t.Errorf("%v: *got.Cutoff = %+v, want %+v", where, *got.Cutoff, want)
			}
		}
	}
}

// TestCostsByHand pins a few costs computed with node's JSON.stringify, so a
// change in costs is caught even where node is missing.
//
//	node -e 'const m={role:"user",content:"Great, thanks."};console.log(JSON.stringify(m).length+1)'
func TestCostsByHand(t *testing.T) {
	atRepoRoot(t)
	units := func(session string) []unitJSON {
		r := sessionls(t, "budget", "--format", "json", "--max-chars", "1000000", sessionPath(session))
		var bj budgetJSON
		r.decodeJSON(t, &bj)
		return bj.Units
	}
	clean := units("clean")
	// {"role":"user","content":"List the files in the repo and summarize the README."} + 1
	wantEqual(t, "clean[0]", clean[0], unitJSON{1, 1, 1, 81, nil})
	// Lines 4-5: the README result holds «», a tab escape and 🎉 (2 UTF-16 units).
	wantEqual(t, "clean[2]", clean[2], unitJSON{4, 5, 2, 247, nil})
	// {"role":"user","content":"Great, thanks."} + 1
	wantEqual(t, "clean[4]", clean[4], unitJSON{7, 7, 1, 43, nil})
	u := units("units")
	// Line 16 re-serialized: \u2028 stays literal (1), the surrogate pair is 2
	// units, \u0001 stays escaped (6).
	wantEqual(t, "u[len(u)-1]", u[len(u)-1], unitJSON{16, 16, 1, 53, nil})
	crlf := units("crlf_ok")
	// The CR before each LF is JSON whitespace: not counted.
	wantEqual(t, "crlf[0]", crlf[0], unitJSON{1, 1, 1, 43, nil})
}

// TestCheckVerdictsMatchNodeOracle: the lines check reports as refused
// (invalid-json, invalid-record, or a named cause of damage) are exactly the lines node's JSON.parse and the
// runtime's parseSessionMessage refuse.
func TestCheckVerdictsMatchNodeOracle(t *testing.T) {
	atRepoRoot(t)
	paths, results := oracle(t, nil)
	for i, s := range paths {
		want := map[int]string{}
		for _, v := range results[i].Lines {
			if v.Verdict != "valid" {
				want[v.Line] = v.Verdict
			}
		}
		got := map[int]string{}
		for _, f := range checkJSON(t, s) {
			if analysis.IsRefusal(f.Code) {
				// A named cause of damage is a line JSON.parse refuses.
				code := f.Code
				if code != "invalid-record" {
					code = "invalid-json"
				}
				got[f.Line] = code
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: got %+v, want %+v", s, got, want)
		}
	}
}

func TestBudgetOutcomeJSON(t *testing.T) {
	msgs := []analysis.Message{{Line: 1, Cost: 10}, {Line: 3, Cost: 20}, {Line: 4, Cost: 5}}
	units := []analysis.Unit{
		{First: 0, Last: 0, StartLine: 1, EndLine: 1, Chars: 10, FromNewest: 35},
		{First: 1, Last: 2, StartLine: 3, EndLine: 4, Chars: 25, FromNewest: 25},
	}
	ok := &analysis.Report{Lines: 4, Messages: msgs, Units: units, TotalChars: 35,
		Cutoff: &analysis.Cutoff{Budget: 30, FirstUnit: 1, FirstKeptLine: 3, KeptUnits: 1, KeptMessages: 2, KeptChars: 25}}
	b, err := textfmt.JSON(outcome(ok, 30, analysis.Options{}).json("f.jsonl", 30))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"file":"f.jsonl","messages":3,"totalChars":35,"units":[{"startLine":1,"endLine":1,"messages":1,"chars":10},{"startLine":3,"endLine":4,"messages":2,"chars":25}],"budget":30,"cutoff":{"firstKeptLine":3,"keptUnits":1,"keptChars":25},"error":null,"minBudget":25}` {
		t.Errorf("string(b) = %q, want %q", got, `{"file":"f.jsonl","messages":3,"totalChars":35,"units":[{"startLine":1,"endLine":1,"messages":1,"chars":10},{"startLine":3,"endLine":4,"messages":2,"chars":25}],"budget":30,"cutoff":{"firstKeptLine":3,"keptUnits":1,"keptChars":25},"error":null,"minBudget":25}`)
	}

	small := &analysis.Report{Lines: 4, Messages: msgs, Units: units, TotalChars: 35, CutoffErr: analysis.ErrBudgetTooSmall}
	b, _ = textfmt.JSON(outcome(small, 5, analysis.Options{}).json("f.jsonl", 5))
	if got := string(b); got != `{"file":"f.jsonl","messages":3,"totalChars":35,"units":[{"startLine":1,"endLine":1,"messages":1,"chars":10},{"startLine":3,"endLine":4,"messages":2,"chars":25}],"budget":5,"cutoff":null,"error":"context budget cannot contain the smallest consistent message unit","minBudget":25}` {
		t.Errorf("string(b) = %q, want %q", got, `{"file":"f.jsonl","messages":3,"totalChars":35,"units":[{"startLine":1,"endLine":1,"messages":1,"chars":10},{"startLine":3,"endLine":4,"messages":2,"chars":25}],"budget":5,"cutoff":null,"error":"context budget cannot contain the smallest consistent message unit","minBudget":25}`)
	}

	invalid := &analysis.Report{Lines: 9, FirstInvalidLine: 8, InvalidLines: 2, Messages: msgs, Units: units, TotalChars: 35,
		Findings: []analysis.Finding{
			{Line: 7, Code: analysis.CodeOrphanToolResult, Message: "not this"},
			{Line: 8, Code: analysis.CodeInvalidJSON, Message: "invalid session JSON at line 8: unexpected end"},
			{Line: 9, Code: analysis.CodeInvalidRecord, Message: "nor this"},
		}}
	b, _ = textfmt.JSON(outcome(invalid, 5, analysis.Options{}).json("f.jsonl", 5))
	if got := string(b); got != `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"invalid session JSON at line 8: unexpected end","minBudget":null}` {
		t.Errorf("string(b) = %q, want %q", got, `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"invalid session JSON at line 8: unexpected end","minBudget":null}`)
	}

	huge := &analysis.Report{Width16: analysis.MaxStringLength + 1}
	b, _ = textfmt.JSON(outcome(huge, 5, analysis.Options{}).json("f.jsonl", 5))
	if got := string(b); got != `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"RangeError: Invalid string length (the file is longer than node's maximum string of 0x1fffffe8 UTF-16 units, so readFile(path, \"utf8\") throws)","minBudget":null}` {
		t.Errorf("string(b) = %q, want %q", got, `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"RangeError: Invalid string length (the file is longer than node's maximum string of 0x1fffffe8 UTF-16 units, so readFile(path, \"utf8\") throws)","minBudget":null}`)
	}

	empty := &analysis.Report{Lines: 1, CutoffErr: analysis.ErrEmptyContext}
	b, _ = textfmt.JSON(outcome(empty, 5, analysis.Options{}).json("f.jsonl", 5))
	if got := string(b); got != `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"context budget cannot be empty","minBudget":null}` {
		t.Errorf("string(b) = %q, want %q", got, `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"context budget cannot be empty","minBudget":null}`)
	}
}

// TestBudgetOutcomeText: a file that does not load still lists its valid
// lines' units, marked as what it would cost once it loads; a budget too
// small names the least one that works.
func TestBudgetOutcomeText(t *testing.T) {
	msgs := []analysis.Message{{Line: 1, Cost: 10}, {Line: 3, Cost: 20}, {Line: 4, Cost: 12345}}
	units := []analysis.Unit{
		{First: 0, Last: 0, StartLine: 1, EndLine: 1, Chars: 10, FromNewest: 12375},
		{First: 1, Last: 2, StartLine: 3, EndLine: 1004, Chars: 12365, FromNewest: 12365},
	}
	text := func(o budgetOutcome, budget int64) string {
		t.Helper()
		var b strings.Builder
		if err := o.text(&b, "f.jsonl", budget); err != nil {
			t.Fatalf(`o.text(&b, "f.jsonl", budget): %v`, err)
		}
		return b.String()
	}
	invalid := &analysis.Report{Lines: 1004, FirstInvalidLine: 2, InvalidLines: 1, Units: units, TotalChars: 12375,
		Findings: []analysis.Finding{{Line: 2, Code: analysis.CodeInvalidJSON, Message: "invalid session JSON at line 2: unexpected end"}}}
	if got := text(outcome(invalid, 5000, analysis.Options{}), 5000); got != `f.jsonl: the file does not load (line 2 is invalid), so the runtime holds no messages and budget 5,000 cuts nothing
once it loads, its valid lines would cost (invalid lines not counted): 3 messages in 2 units, 12,375 chars
  unit  start line  end line  messages   chars  from newest
     1           1         1         1      10       12,375
     2           3      1004         2  12,365       12,365
` {
		t.Errorf("text(outcome(invalid, 5000, analysis.Options{}), 5000) = %q, want %q", got, `f.jsonl: the file does not load (line 2 is invalid), so the runtime holds no messages and budget 5,000 cuts nothing
once it loads, its valid lines would cost (invalid lines not counted): 3 messages in 2 units, 12,375 chars
  unit  start line  end line  messages   chars  from newest
     1           1         1         1      10       12,375
     2           3      1004         2  12,365       12,365
`)
	}

	small := &analysis.Report{Lines: 1004, Messages: msgs, Units: units, TotalChars: 12375, CutoffErr: analysis.ErrBudgetTooSmall}
	o := outcome(small, 5000, analysis.Options{})
	if got := o.errorText(); got != "context budget cannot contain the smallest consistent message unit; the least budget that works is 12,365 (the newest unit, lines 3–1004)" {
		t.Errorf("o.errorText() = %q, want %q", got, "context budget cannot contain the smallest consistent message unit; the least budget that works is 12,365 (the newest unit, lines 3–1004)")
	}
	if got := text(o, 5000); got != `f.jsonl: 3 messages in 2 units, 12,375 chars
  unit  start line  end line  messages   chars  from newest
     1           1         1         1      10       12,375
     2           3      1004         2  12,365       12,365
` {
		t.Errorf("text(o, 5000) = %q, want %q", got, `f.jsonl: 3 messages in 2 units, 12,375 chars
  unit  start line  end line  messages   chars  from newest
     1           1         1         1      10       12,375
     2           3      1004         2  12,365       12,365
`)
	}

	// The widest values there are still line up (the padding has room).
	wide := &analysis.Report{Lines: 1, Messages: msgs[:1], TotalChars: math.MaxInt64,
		Units:  []analysis.Unit{{StartLine: 1, EndLine: 1, Chars: math.MaxInt64, FromNewest: math.MaxInt64}},
		Cutoff: &analysis.Cutoff{Budget: math.MaxInt64, FirstKeptLine: 1, KeptUnits: 1, KeptMessages: 1, KeptChars: math.MaxInt64}}
	if got := text(outcome(wide, math.MaxInt64, analysis.Options{}), math.MaxInt64); got != `f.jsonl: 1 message in 1 unit, 9,223,372,036,854,775,807 chars
  unit  start line  end line  messages                      chars                from newest
     1           1         1         1  9,223,372,036,854,775,807  9,223,372,036,854,775,807
budget 9,223,372,036,854,775,807 keeps 1 of 1 units (1 message, 9,223,372,036,854,775,807 chars) from line 1
` {
		t.Errorf("text(outcome(wide, math.MaxInt64, analysis.Options{}), math.MaxInt64) = %q, want %q", got, `f.jsonl: 1 message in 1 unit, 9,223,372,036,854,775,807 chars
  unit  start line  end line  messages                      chars                from newest
     1           1         1         1  9,223,372,036,854,775,807  9,223,372,036,854,775,807
budget 9,223,372,036,854,775,807 keeps 1 of 1 units (1 message, 9,223,372,036,854,775,807 chars) from line 1
`)
	}

	// Only a budget that is too small gets the hint.
	empty := &analysis.Report{Lines: 1, CutoffErr: analysis.ErrEmptyContext}
	if got := outcome(empty, 5, analysis.Options{}).errorText(); got != "context budget cannot be empty" {
		t.Errorf("outcome(empty, 5, analysis.Options{}).errorText() = %q, want %q", got, "context budget cannot be empty")
	}
	if got := outcome(invalid, 5, analysis.Options{}).errorText(); got != "invalid session JSON at line 2: unexpected end" {
		t.Errorf("outcome(invalid, 5, analysis.Options{}).errorText() = %q, want %q", got, "invalid session JSON at line 2: unexpected end")
	}
}

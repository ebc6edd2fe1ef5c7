package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	nodeoracle "github.com/sessionls/sessionls/internal/randjsonl/oracle"
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

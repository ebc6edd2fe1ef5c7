package cli

import (
	"encoding/json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"os"
	"os/exec"
	"path/filepath"
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
				assert.Equal(t, bc.code, r.code, "stderr %q", r.stderr)
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
		assert.Equal(t, []string{"file", "messages", "totalChars", "units", "budget", "cutoff", "error", "minBudget"}, keysOf(raw))
		var top map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &top))
		var units []json.RawMessage
		require.NoError(t, json.Unmarshal(top["units"], &units))
		assert.NotNil(t, units, "units is an array, never null")
		for _, u := range units {
			assert.Equal(t, []string{"startLine", "endLine", "messages", "chars"}, keysOf(u))
		}
		if string(top["cutoff"]) != "null" {
			assert.Equal(t, []string{"firstKeptLine", "keptUnits", "keptChars"}, keysOf(top["cutoff"]))
			assert.Equal(t, "null", string(top["error"]))
		} else {
			assert.True(t, strings.HasPrefix(string(top["error"]), `"`), "error is a string when cutoff is null")
		}
	}
}

func TestBudgetErrors(t *testing.T) {
	atRepoRoot(t)
	r := sessionls(t, "budget", "--format", "json", "--max-chars", "10", sessionPath("clean"))
	assert.Equal(t, 1, r.code)
	var bj budgetJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &bj))
	require.NotNil(t, bj.Error)
	assert.Equal(t, "context budget cannot contain the smallest consistent message unit", *bj.Error)
	assert.Len(t, bj.Units, 5, "units are listed even when the budget is too small")
	assert.True(t, bj.Cutoff == nil)
	require.NotNil(t, bj.MinBudget)
	assert.Equal(t, int64(43), *bj.MinBudget, "the newest unit's cost")
	r = sessionls(t, "budget", "--max-chars", "10", sessionPath("clean"))
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "sessionls: testdata/sessions/clean.jsonl: context budget cannot contain the smallest consistent message unit; the least budget that works is 43 (the newest unit, line 7)\n", r.stderr)
	r = sessionls(t, "budget", "--max-chars", "43", sessionPath("clean"))
	assert.Equal(t, 0, r.code, "the least budget that works works: %s", r.stderr)

	r = sessionls(t, "budget", "--format", "json", "--max-chars", "10", sessionPath("empty"))
	assert.Equal(t, 1, r.code)
	bj = budgetJSON{}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &bj))
	require.NotNil(t, bj.Error)
	assert.Equal(t, "context budget cannot be empty", *bj.Error)
	assert.True(t, bj.MinBudget == nil, "no budget works for a session with no messages")

	r = sessionls(t, "budget", "--format", "json", "--max-chars", "1000", sessionPath("demo"))
	assert.Equal(t, 1, r.code)
	bj = budgetJSON{}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &bj))
	require.NotNil(t, bj.Error)
	assert.True(t, strings.HasPrefix(*bj.Error, "invalid session record at line 7"), *bj.Error)
	assert.Len(t, bj.Units, 0)
	assert.True(t, bj.MinBudget == nil)

	data, err := os.ReadFile(sessionPath("clean"))
	require.NoError(t, err)
	e, out, errb := testEnv(string(data), nil)
	r = runWith(t, e, out, errb, "budget", "--format", "json", "--max-chars", "300", "-")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"file": "-"`)
	assert.Contains(t, r.stdout, `"firstKeptLine": 6`)

	// Text output of a file that does not load: the units of its valid
	// lines, marked as what it would cost once it loads (as the editors show).
	r = sessionls(t, "budget", "--max-chars", "1000", sessionPath("demo"))
	assert.Equal(t, 1, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "testdata/sessions/demo.jsonl: the file does not load (line 7 is invalid)"), r.stdout)
	assert.Contains(t, r.stdout, "once it loads, its valid lines would cost (invalid lines not counted): 10 messages in 6 units, 1,351 chars\n")
	assert.NotContains(t, r.stdout, "cuts here")
	assert.True(t, strings.HasPrefix(r.stderr, "sessionls: testdata/sessions/demo.jsonl: invalid session record at line 7"), r.stderr)

	// No budget: the units and totals, nothing cut, exit 0 (the README
	// shows the budget as optional).
	r = sessionls(t, "budget", sessionPath("clean"))
	assert.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "testdata/sessions/clean.jsonl: 7 messages in 5 units, 719 chars\n"), r.stdout)
	assert.Contains(t, r.stdout, "no budget: give --budget N")
	assert.NotContains(t, r.stdout, "cuts here")

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
		assert.Equal(t, 2, r.code, "%v", args)
		assert.Contains(t, r.stderr, "Usage: sessionls "+args[0], "%v", args)
		assert.Equal(t, "", r.stdout, "%v", args)
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
	require.NoError(t, err)
	require.True(t, len(paths) >= 7, "sessions: %v", paths)
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
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(listFile, b, 0o644))
	out, err := exec.Command(node, "testdata/oracle/runtime.mjs", "batch", listFile).Output()
	require.NoError(t, err, "node oracle")
	require.NoError(t, json.Unmarshal(out, &results))
	require.Len(t, results, len(paths))
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
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), "%s %d: %q", s, b, r.stderr)
			where := s + " budget " + bs
			if !want.Loads {
				assert.Equal(t, 1, r.code, where)
				require.NotNil(t, got.Error, where)
				assert.True(t, strings.Contains(*got.Error, " at line "+strconv.Itoa(want.Line)+":"),
					"%s: %q should name physical line %d", where, *got.Error, want.Line)
				assert.True(t, strings.HasPrefix(*got.Error, strings.Split(want.Error, " at line")[0]), "%s: %q vs node %q", where, *got.Error, want.Error)
				assert.Len(t, got.Units, 0, where)
				assert.True(t, got.MinBudget == nil, where)
				continue
			}
			// minBudget is the least budget node's trimContext accepts.
			if len(want.Units) == 0 {
				assert.True(t, got.MinBudget == nil, where)
			} else if assert.NotNil(t, got.MinBudget, where) {
				least := *got.MinBudget
				assert.Equal(t, want.Units[len(want.Units)-1].Chars, least, where)
				tooSmall := want.Cuts[j].Error == analysis.ErrBudgetTooSmall.Error()
				assert.Equal(t, b < least, tooSmall, "%s: minBudget %d, node says too small: %v", where, least, tooSmall)
			}
			assert.Equal(t, want.Messages, got.Messages, where)
			assert.Equal(t, want.TotalChars, got.TotalChars, where)
			assert.Equal(t, want.Units, got.Units, where)
			cut := want.Cuts[j]
			require.Equal(t, b, cut.Budget)
			if cut.Error != "" {
				assert.Equal(t, 1, r.code, where)
				require.NotNil(t, got.Error, where)
				assert.Equal(t, cut.Error, *got.Error, where)
				assert.True(t, got.Cutoff == nil, where)
				continue
			}
			assert.Equal(t, 0, r.code, where)
			require.NotNil(t, got.Cutoff, where)
			assert.Equal(t, cutoffJSON{cut.FirstKeptLine, cut.KeptUnits, cut.KeptChars, nil}, *got.Cutoff, where)
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
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &bj), r.stderr)
		return bj.Units
	}
	clean := units("clean")
	// {"role":"user","content":"List the files in the repo and summarize the README."} + 1
	assert.Equal(t, unitJSON{1, 1, 1, 81, nil}, clean[0])
	// Lines 4-5: the README result holds «», a tab escape and 🎉 (2 UTF-16 units).
	assert.Equal(t, unitJSON{4, 5, 2, 247, nil}, clean[2])
	// {"role":"user","content":"Great, thanks."} + 1
	assert.Equal(t, unitJSON{7, 7, 1, 43, nil}, clean[4])
	u := units("units")
	// Line 16 re-serialized: \u2028 stays literal (1), the surrogate pair is 2
	// units, \u0001 stays escaped (6).
	assert.Equal(t, unitJSON{16, 16, 1, 53, nil}, u[len(u)-1])
	crlf := units("crlf_ok")
	// The CR before each LF is JSON whitespace: not counted.
	assert.Equal(t, unitJSON{1, 1, 1, 43, nil}, crlf[0])
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
		assert.Equal(t, want, got, s)
	}
}

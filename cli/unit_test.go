package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		ok   bool
	}{
		{"1/1", 1, 1, true}, {"2/4", 2, 4, true}, {"4/4", 4, 4, true},
		{"0/4", 0, 0, false}, {"5/4", 0, 0, false}, {"1/0", 0, 0, false},
		{"-1/3", 0, 0, false}, {"2", 0, 0, false}, {"a/b", 0, 0, false}, {"1/2/3", 0, 0, false}, {"", 0, 0, false},
	} {
		i, n, err := parseShard(tc.in)
		if tc.ok {
			require.NoError(t, err, tc.in)
			assert.Equal(t, [2]int{tc.i, tc.n}, [2]int{i, n}, tc.in)
		} else {
			var ue usageError
			assert.True(t, errors.As(err, &ue), "%q: want a usage error, got %v", tc.in, err)
		}
	}
}

func TestShardOfIsStableAndSpreads(t *testing.T) {
	const n = 4
	counts := make([]int, n)
	for i := range 400 {
		p := fmt.Sprintf("sessions/s%03d.jsonl", i)
		s := shardOf(p, n)
		require.Equal(t, s, shardOf(p, n))
		// Path spelling does not move a file: cleaned, slash form.
		require.Equal(t, s, shardOf("./"+p, n))
		counts[s]++
	}
	for s, c := range counts {
		assert.Greater(t, c, 50, "shard %d holds %d of 400 files", s+1, c)
	}
	// FNV-1a 32 of "a": 0xe40c292c.
	assert.Equal(t, int(uint32(0xe40c292c)%7), shardOf("a", 7))
}

func TestParseDisabled(t *testing.T) {
	m, err := parseDisabled([]string{"swept-message", " duplicate-call-id", ""})
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"swept-message": true, "duplicate-call-id": true}, m)
	_, err = parseDisabled([]string{"swept-message", "no-such-code"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown code "no-such-code"`)
	for _, c := range analysis.Codes() {
		assert.Contains(t, err.Error(), c)
	}
}

func TestProgressLine(t *testing.T) {
	assert.Equal(t, "checked 120/3,400 files · 412 MB/s", progressLine(120, 3400, 824_000_000, 2*time.Second))
	assert.Equal(t, "checked 0/1 files · 0 MB/s", progressLine(0, 1, 0, 0))
}

func TestProgressOnlyOnATerminalAfterASecond(t *testing.T) {
	var done, bytesRead = newCounter(3), newCounter(5_000_000)
	t.Run("not a terminal", func(t *testing.T) {
		e, _, errb := testEnv("", nil)
		p := newProgress(e, 10, done, bytesRead)
		time.Sleep(3 * progressInterval)
		p.stop()
		assert.Empty(t, errb.String())
	})
	t.Run("terminal, fast run", func(t *testing.T) {
		e, _, errb := testEnv("", nil)
		e.stderr = &lockedBuffer{b: errb}
		e.stderrTTY = true
		p := newProgress(e, 10, done, bytesRead)
		time.Sleep(3 * progressInterval)
		p.stop()
		assert.Empty(t, errb.String(), "nothing before the first second")
	})
	t.Run("terminal, slow run", func(t *testing.T) {
		e, _, errb := testEnv("", nil)
		lb := &lockedBuffer{b: errb}
		e.stderr = lb
		e.stderrTTY = true
		// The first reading is the start; every later one is 5 s on.
		start, calls := time.Now(), newCounter(0)
		e.now = func() time.Time {
			if calls.Add(1) == 1 {
				return start
			}
			return start.Add(5 * time.Second)
		}
		p := newProgress(e, 10, done, bytesRead)
		time.Sleep(350 * time.Millisecond)
		p.stop()
		out := lb.String()
		assert.Contains(t, out, "checked 3/10 files · ")
		// Refreshed at most ten times a second, and erased at the end.
		assert.LessOrEqual(t, strings.Count(out, "checked"), 4)
		assert.True(t, strings.HasSuffix(out, "\r\x1b[K"), "progress line not cleared: %q", out)
	})
}

func TestGitHubEscaping(t *testing.T) {
	assert.Equal(t, "100%25 a%0D%0Ab: c, d", string(ghEscapeData(nil, "100% a\r\nb: c, d")))
	assert.Equal(t, "a%3Ab%2Cc%25%0A", string(ghEscapeProperty(nil, "a:b,c%\n")))
	assert.Equal(t, "x:", string(ghEscapeData([]byte("x"), ":")), "appends, escaping only the message's characters")
}

// TestGitHubFormatAllocations: the github format costs no allocation per
// finding (it built two strings.Replacer per finding, 38 allocations: 300k
// findings took 20 times as long as the text format).
func TestGitHubFormatAllocations(t *testing.T) {
	findings := make([]analysis.Finding, 1000)
	for i := range findings {
		findings[i] = analysis.Finding{Line: i + 1, Severity: analysis.SeverityError, Code: analysis.CodeInvalidJSON,
			Message: "invalid session JSON at line 7: 100% broken, really\nso"}
	}
	g := &githubFormatter{w: io.Discard, buf: bufio.NewWriter(io.Discard)}
	allocs := testing.AllocsPerRun(5, func() {
		require.NoError(t, g.file("dir/a,b.jsonl", findings, nil, nil))
	})
	assert.LessOrEqual(t, allocs, 10.0, "allocations for %d findings", len(findings))
}

func TestSARIFURI(t *testing.T) {
	assert.Equal(t, "testdata/sessions/demo.jsonl", sarifURI("testdata/sessions/demo.jsonl"))
	assert.Equal(t, "dir%20with%20space/a%25b.jsonl", sarifURI("dir with space/a%b.jsonl"))
	assert.Equal(t, "./c:d.jsonl", sarifURI("c:d.jsonl"), "a colon in the first segment must not read as a scheme")
	assert.Equal(t, "file:///tmp/x%20y.jsonl", sarifURI("/tmp/x y.jsonl"))
}

func TestVersionFromBuildInfo(t *testing.T) {
	mk := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	assert.Equal(t, "v1.2.3", versionFromBuildInfo(mk("v1.2.3", "vcs.revision", "abc")))
	assert.Equal(t, "0123456789ab", versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "false")))
	assert.Equal(t, "0123456789ab-dirty", versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "true")))
	assert.Equal(t, "devel", versionFromBuildInfo(mk("")))
}

func TestCopyFromLine(t *testing.T) {
	src := "l1\r\n\nl3\r\nl4 «x»\n\nl6"
	for _, tc := range []struct {
		line int
		want string
	}{
		{1, src}, {2, "\nl3\r\nl4 «x»\n\nl6"}, {3, "l3\r\nl4 «x»\n\nl6"}, {6, "l6"},
	} {
		var b bytes.Buffer
		// A one-byte reader exercises every chunk boundary.
		require.NoError(t, copyFromLine(&b, &oneByteReader{strings.NewReader(src)}, tc.line))
		assert.Equal(t, tc.want, b.String(), "line %d", tc.line)
	}
	var b bytes.Buffer
	err := copyFromLine(&b, strings.NewReader("a\nb"), 5)
	var re readError
	assert.True(t, errors.As(err, &re), "a file shorter than expected is a read error: %v", err)
}

func syntheticFindings() []analysis.Finding {
	return []analysis.Finding{
		{Line: 3, Span: line.Span{StartCol: 4, EndCol: 9}, Severity: analysis.SeverityError, Code: analysis.CodeInvalidJSON,
			Message: "invalid session JSON at line 3: 100% wrong\nreally"},
		{Line: 5, Span: line.Span{StartCol: 0, EndCol: 2}, Severity: analysis.SeverityWarning, Code: analysis.CodeOrphanToolResult,
			Message: `no earlier assistant declares "x<y>"`,
			Related: []analysis.Related{{Line: 2, Span: line.Span{StartCol: 1, EndCol: 3}, Message: "declared here"}}},
		{Line: 7, Severity: analysis.SeverityInfo, Code: analysis.CodeBudgetCutoff, Message: "cut"},
	}
}

func TestFormattersOnSyntheticFindings(t *testing.T) {
	fs := syntheticFindings()
	// Line 3 has a safe fix (a byte order mark), line 5 an unsafe one (the
	// line deleted).
	fixes := fileFixes{
		{title: "Remove the byte order mark", safety: fix.Safe,
			regions: []fixRegion{{startLine: 3, startCol: 1, endLine: 3, endCol: 2, offset: 20, length: 3}}},
		{title: "Delete the orphan tool result (its content is lost)", safety: fix.Unsafe,
			regions: []fixRegion{{startLine: 5, startCol: 1, endLine: 6, endCol: 1, offset: 40, length: 9, insert: "x"}}},
		{},
	}
	render := func(name string, color bool) string {
		var b bytes.Buffer
		f, err := newFormatter(name, &b, color, "9.9.9")
		require.NoError(t, err)
		require.NoError(t, f.file("dir/a,b:c.jsonl", fs, fixes, nil))
		require.NoError(t, f.file("ok.jsonl", nil, nil, nil))
		require.NoError(t, f.end(summary{errors: 1, warnings: 1, infos: 1, filesWithFindings: 1, filesChecked: 2, fixable: 1, unsafeFixable: 1}))
		return b.String()
	}
	assert.Equal(t, `dir/a,b:c.jsonl:3:5: error[invalid-json] [fix] invalid session JSON at line 3: 100% wrong\x0areally
dir/a,b:c.jsonl:5:1: warning[orphan-tool-result] [unsafe fix] no earlier assistant declares "x<y>"
dir/a,b:c.jsonl:7:1: info[budget-cutoff] cut
Found 1 error, 1 warning, 1 info in 1 of 2 files.
1 fixable with --fix (1 more with --fix --unsafe-fixes).
`, render(formatText, false))
	colored := render(formatText, true)
	assert.Contains(t, colored, "\x1b[1;31merror[invalid-json]\x1b[0m")

	assert.Equal(t, `::error file=dir/a%2Cb%3Ac.jsonl,line=3,col=5,endLine=3,endColumn=10,title=sessionls(invalid-json)::invalid session JSON at line 3: 100%25 wrong%0Areally
::warning file=dir/a%2Cb%3Ac.jsonl,line=5,col=1,endLine=5,endColumn=3,title=sessionls(orphan-tool-result)::no earlier assistant declares "x<y>"
::notice file=dir/a%2Cb%3Ac.jsonl,line=7,endLine=7,title=sessionls(budget-cutoff)::cut
`, render(formatGitHub, false))

	js := render(formatJSON, false)
	var arr []map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &arr), js)
	require.Len(t, arr, 3)
	assert.Equal(t, map[string]any{"file": "dir/a,b:c.jsonl", "line": 3.0, "column": 5.0, "endLine": 3.0, "endColumn": 10.0,
		"severity": "error", "code": "invalid-json", "message": "invalid session JSON at line 3: 100% wrong\nreally", "fix": "safe"}, arr[0])
	assert.Equal(t, "unsafe", arr[1]["fix"])
	assert.Contains(t, arr[2], "fix")
	assert.Nil(t, arr[2]["fix"], "no fix: null")
	assert.Contains(t, js, `x<y>`, "no HTML escaping")
	assert.True(t, strings.HasPrefix(js, `[`+"\n"+`  {"file":"dir/a,b:c.jsonl","line":3,"column":5,"endLine":3,"endColumn":10,"severity":"error","code":"invalid-json",`), js)

	var empty bytes.Buffer
	f, _ := newFormatter(formatJSON, &empty, false, "")
	require.NoError(t, f.end(summary{}))
	assert.Equal(t, "[]\n", empty.String())

	sarif := validateSARIF(t, []byte(render(formatSARIF, false)), 3)
	results := sarif["runs"].([]any)[0].(map[string]any)["results"].([]any)
	b, err := json.Marshal(results[1].(map[string]any)["fixes"])
	require.NoError(t, err)
	assert.Equal(t, `[{"artifactChanges":[{"artifactLocation":{"uri":"dir/a,b:c.jsonl"},"replacements":[{"deletedRegion":{"byteLength":9,"byteOffset":40,"endColumn":1,"endLine":6,"startColumn":1,"startLine":5},"insertedContent":{"text":"x"}}]}],"description":{"text":"Delete the orphan tool result (its content is lost)"},"properties":{"safety":"unsafe"}}]`, string(b))
	assert.NotContains(t, results[2], "fixes")
	_, err = newFormatter("xml", io.Discard, false, "")
	var ue usageError
	assert.True(t, errors.As(err, &ue))
}

func TestTextSummary(t *testing.T) {
	for _, tc := range []struct {
		s    summary
		want string
	}{
		{summary{filesChecked: 4}, "All checks passed (4 files).\n"},
		{summary{filesChecked: 1}, "All checks passed (1 file).\n"},
		{summary{errors: 3, warnings: 2, filesWithFindings: 1, filesChecked: 4}, "Found 3 errors, 2 warnings in 1 of 4 files.\n"},
		{summary{infos: 2, filesWithFindings: 2, filesChecked: 2}, "Found 0 errors, 0 warnings, 2 info in 2 of 2 files.\n"},
		{summary{filesChecked: 1, ioErrors: []string{"x"}}, "All checks passed (1 file); 1 path could not be read.\n"},
		{summary{errors: 1, filesWithFindings: 1, filesChecked: 3, ioErrors: []string{"x", "y"}}, "Found 1 error, 0 warnings in 1 of 3 files; 2 paths could not be read.\n"},
		{summary{errors: 1, filesWithFindings: 1, filesChecked: 1, fixable: 1}, "Found 1 error, 0 warnings in 1 of 1 file.\n1 fixable with --fix.\n"},
		{summary{errors: 2, filesWithFindings: 1, filesChecked: 1, unsafeFixable: 2}, "Found 2 errors, 0 warnings in 1 of 1 file.\n2 fixable with --fix --unsafe-fixes.\n"},
		{summary{filesChecked: 2, fixMode: true, fixed: 3, filesFixed: 2}, "All checks passed (2 files).\nFixed 3 findings in 2 files; 0 remain.\n"},
		{summary{errors: 1, filesWithFindings: 1, filesChecked: 1, fixMode: true, fixed: 1, filesFixed: 1, moreUnsafe: 1},
			"Found 1 error, 0 warnings in 1 of 1 file.\nFixed 1 finding in 1 file; 1 remains (1 more fixable with --unsafe-fixes).\n"},
		{summary{warnings: 2, filesWithFindings: 1, filesChecked: 1, fixMode: true}, "Found 0 errors, 2 warnings in 1 of 1 file.\nNothing fixed; 2 remain.\n"},
		{summary{filesChecked: 1, fixMode: true}, "All checks passed (1 file).\n"},
	} {
		var b bytes.Buffer
		f, err := newFormatter(formatText, &b, false, "")
		require.NoError(t, err)
		require.NoError(t, f.end(tc.s))
		assert.Equal(t, tc.want, b.String())
	}
}

// validateSARIF checks a SARIF 2.1.0 log by hand against the schema's
// required properties and the constraints GitHub code scanning enforces.
func validateSARIF(t *testing.T, data []byte, wantResults int) map[string]any {
	t.Helper()
	var log map[string]any
	require.NoError(t, json.Unmarshal(data, &log), "SARIF is not JSON")
	assert.Equal(t, "2.1.0", log["version"])
	assert.NotEmpty(t, log["$schema"])
	runs, ok := log["runs"].([]any)
	require.True(t, ok && len(runs) == 1, "runs must be an array of one run")
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	for _, k := range []string{"name", "version", "informationUri"} {
		assert.NotEmpty(t, driver[k], "tool.driver.%s", k)
	}
	assert.Equal(t, "sessionls", driver["name"])
	rulesArr := driver["rules"].([]any)
	var ruleIDs []string
	for _, r := range rulesArr {
		rm := r.(map[string]any)
		id, _ := rm["id"].(string)
		require.NotEmpty(t, id, "rule without id")
		ruleIDs = append(ruleIDs, id)
		assert.NotEmpty(t, rm["shortDescription"].(map[string]any)["text"], "rule %s shortDescription.text", id)
		lvl := rm["defaultConfiguration"].(map[string]any)["level"]
		assert.Contains(t, []any{"none", "note", "warning", "error"}, lvl, "rule %s level", id)
	}
	assert.Equal(t, analysis.Codes(), ruleIDs, "a rule for every code")
	assert.Equal(t, "utf16CodeUnits", run["columnKind"])
	invs := run["invocations"].([]any)
	require.Len(t, invs, 1)
	_, hasSuccess := invs[0].(map[string]any)["executionSuccessful"].(bool)
	assert.True(t, hasSuccess, "invocation.executionSuccessful is required")
	results, ok := run["results"].([]any)
	require.True(t, ok, "results must be an array (empty when clean)")
	require.Len(t, results, wantResults)
	for i, r := range results {
		rm := r.(map[string]any)
		id, _ := rm["ruleId"].(string)
		assert.Contains(t, ruleIDs, id, "result %d ruleId", i)
		if idx, ok := rm["ruleIndex"].(float64); ok {
			assert.Equal(t, id, ruleIDs[int(idx)], "result %d ruleIndex", i)
		}
		assert.Contains(t, []any{"note", "warning", "error"}, rm["level"], "result %d level", i)
		assert.NotEmpty(t, rm["message"].(map[string]any)["text"], "result %d message.text", i)
		locs := rm["locations"].([]any)
		require.Len(t, locs, 1)
		pl := locs[0].(map[string]any)["physicalLocation"].(map[string]any)
		uri, _ := pl["artifactLocation"].(map[string]any)["uri"].(string)
		assert.NotEmpty(t, uri)
		assert.False(t, filepath.IsAbs(uri), "uri %q should be relative", uri)
		reg := pl["region"].(map[string]any)
		sl, el := reg["startLine"].(float64), reg["endLine"].(float64)
		assert.GreaterOrEqual(t, sl, 1.0)
		assert.GreaterOrEqual(t, el, sl)
		sc, hasSC := reg["startColumn"].(float64)
		ec, hasEC := reg["endColumn"].(float64)
		assert.Equal(t, hasSC, hasEC, "result %d: both columns or neither (whole line)", i)
		if hasSC {
			assert.GreaterOrEqual(t, sc, 1.0)
			if el == sl {
				assert.GreaterOrEqual(t, ec, sc, "result %d region", i)
			}
		}
		validateSARIFFixes(t, i, rm["fixes"])
	}
	return log
}

// validateSARIFFixes checks a result's fixes (SARIF 2.1.0 3.55-3.57): a
// description, artifact changes with a location and replacements, each
// with a deletedRegion whose text and byte forms are both complete.
func validateSARIFFixes(t *testing.T, i int, v any) {
	t.Helper()
	if v == nil {
		return
	}
	fixes, ok := v.([]any)
	require.True(t, ok && len(fixes) > 0, "result %d: fixes must be a non-empty array", i)
	for _, f := range fixes {
		fm := f.(map[string]any)
		assert.NotEmpty(t, fm["description"].(map[string]any)["text"], "result %d fix description", i)
		assert.Contains(t, []any{"safe", "unsafe"}, fm["properties"].(map[string]any)["safety"])
		changes := fm["artifactChanges"].([]any)
		require.NotEmpty(t, changes, "result %d artifactChanges", i)
		for _, c := range changes {
			cm := c.(map[string]any)
			assert.NotEmpty(t, cm["artifactLocation"].(map[string]any)["uri"])
			reps := cm["replacements"].([]any)
			require.NotEmpty(t, reps, "result %d replacements", i)
			for _, r := range reps {
				dr := r.(map[string]any)["deletedRegion"].(map[string]any)
				for _, k := range []string{"startLine", "startColumn", "endLine", "endColumn", "byteOffset", "byteLength"} {
					_, ok := dr[k].(float64)
					assert.True(t, ok, "result %d deletedRegion.%s", i, k)
				}
				sl, el := dr["startLine"].(float64), dr["endLine"].(float64)
				assert.GreaterOrEqual(t, sl, 1.0)
				assert.True(t, el > sl || (el == sl && dr["endColumn"].(float64) >= dr["startColumn"].(float64)), "result %d deletedRegion %v", i, dr)
				if ic, ok := r.(map[string]any)["insertedContent"]; ok {
					assert.NotEmpty(t, ic.(map[string]any)["text"])
				}
			}
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
	require.NoError(t, err)
	assert.Equal(t, `{"file":"f.jsonl","messages":3,"totalChars":35,"units":[{"startLine":1,"endLine":1,"messages":1,"chars":10},{"startLine":3,"endLine":4,"messages":2,"chars":25}],"budget":30,"cutoff":{"firstKeptLine":3,"keptUnits":1,"keptChars":25},"error":null,"minBudget":25}`, string(b))

	small := &analysis.Report{Lines: 4, Messages: msgs, Units: units, TotalChars: 35, CutoffErr: analysis.ErrBudgetTooSmall}
	b, _ = textfmt.JSON(outcome(small, 5, analysis.Options{}).json("f.jsonl", 5))
	assert.Equal(t, `{"file":"f.jsonl","messages":3,"totalChars":35,"units":[{"startLine":1,"endLine":1,"messages":1,"chars":10},{"startLine":3,"endLine":4,"messages":2,"chars":25}],"budget":5,"cutoff":null,"error":"context budget cannot contain the smallest consistent message unit","minBudget":25}`, string(b))

	invalid := &analysis.Report{Lines: 9, FirstInvalidLine: 8, InvalidLines: 2, Messages: msgs, Units: units, TotalChars: 35,
		Findings: []analysis.Finding{
			{Line: 7, Code: analysis.CodeOrphanToolResult, Message: "not this"},
			{Line: 8, Code: analysis.CodeInvalidJSON, Message: "invalid session JSON at line 8: unexpected end"},
			{Line: 9, Code: analysis.CodeInvalidRecord, Message: "nor this"},
		}}
	b, _ = textfmt.JSON(outcome(invalid, 5, analysis.Options{}).json("f.jsonl", 5))
	assert.Equal(t, `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"invalid session JSON at line 8: unexpected end","minBudget":null}`, string(b))

	huge := &analysis.Report{Width16: analysis.MaxStringLength + 1}
	b, _ = textfmt.JSON(outcome(huge, 5, analysis.Options{}).json("f.jsonl", 5))
	assert.Equal(t, `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"RangeError: Invalid string length (the file is longer than node's maximum string of 0x1fffffe8 UTF-16 units, so readFile(path, \"utf8\") throws)","minBudget":null}`, string(b))

	empty := &analysis.Report{Lines: 1, CutoffErr: analysis.ErrEmptyContext}
	b, _ = textfmt.JSON(outcome(empty, 5, analysis.Options{}).json("f.jsonl", 5))
	assert.Equal(t, `{"file":"f.jsonl","messages":0,"totalChars":0,"units":[],"budget":5,"cutoff":null,"error":"context budget cannot be empty","minBudget":null}`, string(b))
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
		require.NoError(t, o.text(&b, "f.jsonl", budget))
		return b.String()
	}
	invalid := &analysis.Report{Lines: 1004, FirstInvalidLine: 2, InvalidLines: 1, Units: units, TotalChars: 12375,
		Findings: []analysis.Finding{{Line: 2, Code: analysis.CodeInvalidJSON, Message: "invalid session JSON at line 2: unexpected end"}}}
	assert.Equal(t, `f.jsonl: the file does not load (line 2 is invalid), so the runtime holds no messages and budget 5,000 cuts nothing
once it loads, its valid lines would cost (invalid lines not counted): 3 messages in 2 units, 12,375 chars
  unit  start line  end line  messages   chars  from newest
     1           1         1         1      10       12,375
     2           3      1004         2  12,365       12,365
`, text(outcome(invalid, 5000, analysis.Options{}), 5000))

	small := &analysis.Report{Lines: 1004, Messages: msgs, Units: units, TotalChars: 12375, CutoffErr: analysis.ErrBudgetTooSmall}
	o := outcome(small, 5000, analysis.Options{})
	assert.Equal(t, "context budget cannot contain the smallest consistent message unit; the least budget that works is 12,365 (the newest unit, lines 3–1004)", o.errorText())
	assert.Equal(t, `f.jsonl: 3 messages in 2 units, 12,375 chars
  unit  start line  end line  messages   chars  from newest
     1           1         1         1      10       12,375
     2           3      1004         2  12,365       12,365
`, text(o, 5000))

	// The widest values there are still line up (the padding has room).
	wide := &analysis.Report{Lines: 1, Messages: msgs[:1], TotalChars: math.MaxInt64,
		Units:  []analysis.Unit{{StartLine: 1, EndLine: 1, Chars: math.MaxInt64, FromNewest: math.MaxInt64}},
		Cutoff: &analysis.Cutoff{Budget: math.MaxInt64, FirstKeptLine: 1, KeptUnits: 1, KeptMessages: 1, KeptChars: math.MaxInt64}}
	assert.Equal(t, `f.jsonl: 1 message in 1 unit, 9,223,372,036,854,775,807 chars
  unit  start line  end line  messages                      chars                from newest
     1           1         1         1  9,223,372,036,854,775,807  9,223,372,036,854,775,807
budget 9,223,372,036,854,775,807 keeps 1 of 1 units (1 message, 9,223,372,036,854,775,807 chars) from line 1
`, text(outcome(wide, math.MaxInt64, analysis.Options{}), math.MaxInt64))

	// Only a budget that is too small gets the hint.
	empty := &analysis.Report{Lines: 1, CutoffErr: analysis.ErrEmptyContext}
	assert.Equal(t, "context budget cannot be empty", outcome(empty, 5, analysis.Options{}).errorText())
	assert.Equal(t, "invalid session JSON at line 2: unexpected end", outcome(invalid, 5, analysis.Options{}).errorText())
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

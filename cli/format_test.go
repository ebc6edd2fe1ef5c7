// Tests of the output formats (text, json, github, SARIF) on synthetic
// findings, and the SARIF validator the CLI tests share.

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/line"
)

func TestGitHubEscaping(t *testing.T) {
	if got := string(ghEscapeData(nil, "100% a\r\nb: c, d")); got != "100%25 a%0D%0Ab: c, d" {
		t.Errorf(`string(ghEscapeData(nil, "100%% a\r\nb: c, d")) = %q, want %q`, got, "100%25 a%0D%0Ab: c, d")
	}
	if got := string(ghEscapeProperty(nil, "a:b,c%\n")); got != "a%3Ab%2Cc%25%0A" {
		t.Errorf(`string(ghEscapeProperty(nil, "a:b,c%%\n")) = %q, want %q`, got, "a%3Ab%2Cc%25%0A")
	}
	if got := string(ghEscapeData([]byte("x"), ":")); got != "x:" {
		t.Errorf(`appends, escaping only the message's characters: string(ghEscapeData([]byte("x"), ":")) = %q, want %q`, got, "x:")
	}
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
		if err := g.file("dir/a,b.jsonl", findings, nil, nil); err != nil {
			t.Fatalf(`g.file("dir/a,b.jsonl", findings, nil, nil): %v`, err)
		}
	})
	if allocs > 10.0 {
		t.Errorf("allocations for %d findings: allocs = %v, want <= %v", len(findings), allocs, 10.0)
	}
}

func TestSARIFURI(t *testing.T) {
	if got := sarifURI("testdata/sessions/demo.jsonl"); got != "testdata/sessions/demo.jsonl" {
		t.Errorf(`sarifURI("testdata/sessions/demo.jsonl") = %q, want %q`, got, "testdata/sessions/demo.jsonl")
	}
	if got := sarifURI("dir with space/a%b.jsonl"); got != "dir%20with%20space/a%25b.jsonl" {
		t.Errorf(`sarifURI("dir with space/a%%b.jsonl") = %q, want %q`, got, "dir%20with%20space/a%25b.jsonl")
	}
	if got := sarifURI("c:d.jsonl"); got != "./c:d.jsonl" {
		t.Errorf(`a colon in the first segment must not read as a scheme: sarifURI("c:d.jsonl") = %q, want %q`, got, "./c:d.jsonl")
	}
	if got := sarifURI("/tmp/x y.jsonl"); got != "file:///tmp/x%20y.jsonl" {
		t.Errorf(`sarifURI("/tmp/x y.jsonl") = %q, want %q`, got, "file:///tmp/x%20y.jsonl")
	}
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
		if err != nil {
			t.Fatal(err)
		}
		if err := f.file("dir/a,b:c.jsonl", fs, fixes, nil); err != nil {
			t.Fatalf(`f.file("dir/a,b:c.jsonl", fs, fixes, nil): %v`, err)
		}
		if err := f.file("ok.jsonl", nil, nil, nil); err != nil {
			t.Fatalf(`f.file("ok.jsonl", nil, nil, nil): %v`, err)
		}
		if err := f.end(summary{errors: 1, warnings: 1, infos: 1, filesWithFindings: 1, filesChecked: 2, fixable: 1, unsafeFixable: 1}); err != nil {
			t.Fatalf("f.end(summary{errors: 1, warnings: 1, infos: 1, filesWithFindings: 1, filesChecked: 2, fixable: 1, unsafeFixable: 1}): %v", err)
		}
		return b.String()
	}
	if got := render(formatText, false); got != `dir/a,b:c.jsonl:3:5: error[invalid-json] [fix] invalid session JSON at line 3: 100% wrong\x0areally
dir/a,b:c.jsonl:5:1: warning[orphan-tool-result] [unsafe fix] no earlier assistant declares "x<y>"
dir/a,b:c.jsonl:7:1: info[budget-cutoff] cut
Found 1 error, 1 warning, 1 info in 1 of 2 files.
1 fixable with --fix (1 more with --fix --unsafe-fixes).
` {
		t.Errorf("render(formatText, false) = %q, want %q", got, `dir/a,b:c.jsonl:3:5: error[invalid-json] [fix] invalid session JSON at line 3: 100% wrong\x0areally
dir/a,b:c.jsonl:5:1: warning[orphan-tool-result] [unsafe fix] no earlier assistant declares "x<y>"
dir/a,b:c.jsonl:7:1: info[budget-cutoff] cut
Found 1 error, 1 warning, 1 info in 1 of 2 files.
1 fixable with --fix (1 more with --fix --unsafe-fixes).
`)
	}
	colored := render(formatText, true)
	if !strings.Contains(colored, "\x1b[1;31merror[invalid-json]\x1b[0m") {
		t.Errorf("colored = %q, want it to contain %q", colored, "\x1b[1;31merror[invalid-json]\x1b[0m")
	}

	if got := render(formatGitHub, false); got != `::error file=dir/a%2Cb%3Ac.jsonl,line=3,col=5,endLine=3,endColumn=10,title=sessionls(invalid-json)::invalid session JSON at line 3: 100%25 wrong%0Areally
::warning file=dir/a%2Cb%3Ac.jsonl,line=5,col=1,endLine=5,endColumn=3,title=sessionls(orphan-tool-result)::no earlier assistant declares "x<y>"
::notice file=dir/a%2Cb%3Ac.jsonl,line=7,endLine=7,title=sessionls(budget-cutoff)::cut
` {
		t.Errorf("render(formatGitHub, false) = %q, want %q", got, `::error file=dir/a%2Cb%3Ac.jsonl,line=3,col=5,endLine=3,endColumn=10,title=sessionls(invalid-json)::invalid session JSON at line 3: 100%25 wrong%0Areally
::warning file=dir/a%2Cb%3Ac.jsonl,line=5,col=1,endLine=5,endColumn=3,title=sessionls(orphan-tool-result)::no earlier assistant declares "x<y>"
::notice file=dir/a%2Cb%3Ac.jsonl,line=7,endLine=7,title=sessionls(budget-cutoff)::cut
`)
	}

	js := render(formatJSON, false)
	var arr []map[string]any
	if err := json.Unmarshal([]byte(js), &arr); err != nil {
		t.Fatalf("%v: json.Unmarshal([]byte(js), &arr): %v", js, err)
	}
	if len(arr) != 3 {
		t.Fatalf("len(arr) = %d, want %d: %+v", len(arr), 3, arr)
	}
	if want := (map[string]any{"file": "dir/a,b:c.jsonl", "line": 3.0, "column": 5.0, "endLine": 3.0, "endColumn": 10.0,
		"severity": "error", "code": "invalid-json", "message": "invalid session JSON at line 3: 100% wrong\nreally", "fix": "safe"}); !reflect.DeepEqual(arr[0], want) {
		t.Errorf("arr[0] = %+v, want %+v", arr[0], want)
	}
	if !reflect.DeepEqual(arr[1]["fix"], "unsafe") {
		t.Errorf(`arr[1]["fix"] = %+v, want %q`, arr[1]["fix"], "unsafe")
	}
	if _, ok := arr[2]["fix"]; !ok {
		t.Errorf("arr[2] = %+v, want it to hold the key %q", arr[2], "fix")
	}
	if arr[2]["fix"] != nil {
		t.Errorf(`no fix: null: arr[2]["fix"] = %+v, want nil`, arr[2]["fix"])
	}
	if !strings.Contains(js, `x<y>`) {
		t.Errorf("no HTML escaping: js = %q, want it to contain %q", js, `x<y>`)
	}
	if !strings.HasPrefix(js, `[`+"\n"+`  {"file":"dir/a,b:c.jsonl","line":3,"column":5,"endLine":3,"endColumn":10,"severity":"error","code":"invalid-json",`) {
		t.Errorf("%v: strings.HasPrefix(js, `[`+\"\\n\"+`  {\"file\":\"dir/a,b:c.jsonl\",\"line\":3,\"column\":5,\"endLine\":3,\"endColumn\":10,\"severity\":\"error\",\"code\":\"invalid-json\",`) is false, want true", js)
	}

	var empty bytes.Buffer
	f, _ := newFormatter(formatJSON, &empty, false, "")
	if err := f.end(summary{}); err != nil {
		t.Fatalf("f.end(summary{}): %v", err)
	}
	if got := empty.String(); got != "[]\n" {
		t.Errorf("empty.String() = %q, want %q", got, "[]\n")
	}

	sarif := validateSARIF(t, []byte(render(formatSARIF, false)), 3)
	results := sarif["runs"].([]any)[0].(map[string]any)["results"].([]any)
	b, err := json.Marshal(results[1].(map[string]any)["fixes"])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `[{"artifactChanges":[{"artifactLocation":{"uri":"dir/a,b:c.jsonl"},"replacements":[{"deletedRegion":{"byteLength":9,"byteOffset":40,"endColumn":1,"endLine":6,"startColumn":1,"startLine":5},"insertedContent":{"text":"x"}}]}],"description":{"text":"Delete the orphan tool result (its content is lost)"},"properties":{"safety":"unsafe"}}]` {
		t.Errorf("string(b) = %q, want %q", got, `[{"artifactChanges":[{"artifactLocation":{"uri":"dir/a,b:c.jsonl"},"replacements":[{"deletedRegion":{"byteLength":9,"byteOffset":40,"endColumn":1,"endLine":6,"startColumn":1,"startLine":5},"insertedContent":{"text":"x"}}]}],"description":{"text":"Delete the orphan tool result (its content is lost)"},"properties":{"safety":"unsafe"}}]`)
	}
	if m, ok := results[2].(map[string]any); !ok {
		t.Errorf("results[2] = %v, want an object", results[2])
	} else if _, has := m["fixes"]; has {
		t.Errorf("results[2] = %v, want no fixes", m)
	}
	_, err = newFormatter("xml", io.Discard, false, "")
	var ue usageError
	if !errors.As(err, &ue) {
		t.Error("errors.As(err, &ue) is false, want true")
	}
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
		if err != nil {
			t.Fatal(err)
		}
		if err := f.end(tc.s); err != nil {
			t.Fatalf("f.end(tc.s): %v", err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("b.String() = %q, want %q", got, tc.want)
		}
	}
}

// validateSARIF checks a SARIF 2.1.0 log by hand against the schema's
// required properties and the constraints GitHub code scanning enforces.
func validateSARIF(t *testing.T, data []byte, wantResults int) map[string]any {
	t.Helper()
	var log map[string]any
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("SARIF is not JSON: json.Unmarshal(data, &log): %v", err)
	}
	if !reflect.DeepEqual(log["version"], "2.1.0") {
		t.Errorf(`log["version"] = %+v, want %q`, log["version"], "2.1.0")
	}
	if emptyJSON(log["$schema"]) {
		t.Error(`log["$schema"] is empty, want some`)
	}
	runs, ok := log["runs"].([]any)
	if !(ok && len(runs) == 1) {
		t.Fatal("runs must be an array of one run: ok && len(runs) == 1 is false, want true")
	}
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	for _, k := range []string{"name", "version", "informationUri"} {
		if emptyJSON(driver[k]) {
			t.Errorf("tool.driver.%s: driver[k] is empty, want some", k)
		}
	}
	if !reflect.DeepEqual(driver["name"], "sessionls") {
		t.Errorf(`driver["name"] = %+v, want %q`, driver["name"], "sessionls")
	}
	rulesArr := driver["rules"].([]any)
	var ruleIDs []string
	for _, r := range rulesArr {
		rm := r.(map[string]any)
		id, _ := rm["id"].(string)
		if id == "" {
			t.Fatal("rule without id: id is empty, want some")
		}
		ruleIDs = append(ruleIDs, id)
		if got := rm["shortDescription"].(map[string]any)["text"]; emptyJSON(got) {
			t.Errorf(`rule %s shortDescription.text: rm["shortDescription"].(map[string]any)["text"] is empty, want some`, id)
		}
		lvl := rm["defaultConfiguration"].(map[string]any)["level"]
		if !slices.Contains([]any{"none", "note", "warning", "error"}, lvl) {
			t.Errorf("rule %s level = %v, want none, note, warning or error", id, lvl)
		}
	}
	wantEqual(t, "a rule for every code: ruleIDs", ruleIDs, analysis.Codes())
	if !reflect.DeepEqual(run["columnKind"], "utf16CodeUnits") {
		t.Errorf(`run["columnKind"] = %+v, want %q`, run["columnKind"], "utf16CodeUnits")
	}
	invs := run["invocations"].([]any)
	if len(invs) != 1 {
		t.Fatalf("len(invs) = %d, want %d: %+v", len(invs), 1, invs)
	}
	_, hasSuccess := invs[0].(map[string]any)["executionSuccessful"].(bool)
	if !hasSuccess {
		t.Error("invocation.executionSuccessful is required: hasSuccess is false, want true")
	}
	results, ok := run["results"].([]any)
	if !ok {
		t.Fatal("results must be an array (empty when clean): ok is false, want true")
	}
	if len(results) != wantResults {
		t.Fatalf("len(results) = %d, want %d: %+v", len(results), wantResults, results)
	}
	for i, r := range results {
		rm := r.(map[string]any)
		id, _ := rm["ruleId"].(string)
		if !slices.Contains(ruleIDs, id) {
			t.Errorf("result %d ruleId: ruleIDs = %+v, want it to contain %q", i, ruleIDs, id)
		}
		if idx, ok := rm["ruleIndex"].(float64); ok {
			if got := ruleIDs[int(idx)]; got != id {
				t.Errorf("result %d ruleIndex: ruleIDs[int(idx)] = %q, want %q", i, got, id)
			}
		}
		if !slices.Contains([]any{"note", "warning", "error"}, rm["level"]) {
			t.Errorf("result %d level = %v, want note, warning or error", i, rm["level"])
		}
		if got := rm["message"].(map[string]any)["text"]; emptyJSON(got) {
			t.Errorf(`result %d message.text: rm["message"].(map[string]any)["text"] is empty, want some`, i)
		}
		locs := rm["locations"].([]any)
		if len(locs) != 1 {
			t.Fatalf("len(locs) = %d, want %d: %+v", len(locs), 1, locs)
		}
		pl := locs[0].(map[string]any)["physicalLocation"].(map[string]any)
		uri, _ := pl["artifactLocation"].(map[string]any)["uri"].(string)
		if uri == "" {
			t.Error("uri is empty, want some")
		}
		if filepath.IsAbs(uri) {
			t.Errorf("uri %q should be relative: filepath.IsAbs(uri) is true, want false", uri)
		}
		reg := pl["region"].(map[string]any)
		sl, el := reg["startLine"].(float64), reg["endLine"].(float64)
		if sl < 1.0 {
			t.Errorf("sl = %v, want >= %v", sl, 1.0)
		}
		if el < sl {
			t.Errorf("el = %v, want >= %v", el, sl)
		}
		sc, hasSC := reg["startColumn"].(float64)
		ec, hasEC := reg["endColumn"].(float64)
		if hasEC != hasSC {
			t.Errorf("result %d: both columns or neither (whole line): hasEC = %v, want %v", i, hasEC, hasSC)
		}
		if hasSC {
			if sc < 1.0 {
				t.Errorf("sc = %v, want >= %v", sc, 1.0)
			}
			if el == sl {
				if ec < sc {
					t.Errorf("result %d region: ec = %v, want >= %v", i, ec, sc)
				}
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
	if !(ok && len(fixes) > 0) {
		t.Fatalf("result %d: fixes must be a non-empty array: ok && len(fixes) > 0 is false, want true", i)
	}
	for _, f := range fixes {
		fm := f.(map[string]any)
		if got := fm["description"].(map[string]any)["text"]; emptyJSON(got) {
			t.Errorf(`result %d fix description: fm["description"].(map[string]any)["text"] is empty, want some`, i)
		}
		if safety := fm["properties"].(map[string]any)["safety"]; !slices.Contains([]any{"safe", "unsafe"}, safety) {
			t.Errorf("result %d fix safety = %v, want safe or unsafe", i, safety)
		}
		changes := fm["artifactChanges"].([]any)
		if len(changes) == 0 {
			t.Fatalf("result %d artifactChanges: changes is empty, want some", i)
		}
		for _, c := range changes {
			cm := c.(map[string]any)
			if got := cm["artifactLocation"].(map[string]any)["uri"]; emptyJSON(got) {
				t.Error(`cm["artifactLocation"].(map[string]any)["uri"] is empty, want some`)
			}
			reps := cm["replacements"].([]any)
			if len(reps) == 0 {
				t.Fatalf("result %d replacements: reps is empty, want some", i)
			}
			for _, r := range reps {
				dr := r.(map[string]any)["deletedRegion"].(map[string]any)
				for _, k := range []string{"startLine", "startColumn", "endLine", "endColumn", "byteOffset", "byteLength"} {
					_, ok := dr[k].(float64)
					if !ok {
						t.Errorf("result %d deletedRegion.%s: ok is false, want true", i, k)
					}
				}
				sl, el := dr["startLine"].(float64), dr["endLine"].(float64)
				if sl < 1.0 {
					t.Errorf("sl = %v, want >= %v", sl, 1.0)
				}
				if !(el > sl || (el == sl && dr["endColumn"].(float64) >= dr["startColumn"].(float64))) {
					t.Errorf(`result %d deletedRegion %v: el > sl || (el == sl && dr["endColumn"].(float64) >= dr["startColumn"].(float64)) is false, want true`, i, dr)
				}
				if ic, ok := r.(map[string]any)["insertedContent"]; ok {
					if got := ic.(map[string]any)["text"]; emptyJSON(got) {
						t.Error(`ic.(map[string]any)["text"] is empty, want some`)
					}
				}
			}
		}
	}
}

// emptyJSON reports whether a decoded JSON value is what testify called
// empty: null, "", 0, false, [] or {}.
func emptyJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case float64:
		return v == 0
	case bool:
		return !v
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

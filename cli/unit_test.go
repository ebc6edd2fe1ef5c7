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
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

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
			if err != nil {
				t.Fatalf("%v: %v", tc.in, err)
			}
			if want, got := ([2]int{tc.i, tc.n}), ([2]int{i, n}); !reflect.DeepEqual(got, want) {
				t.Errorf("%v: [2]int{i, n} = %+v, want %+v", tc.in, got, want)
			}
		} else {
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("%q: want a usage error, got %v: errors.As(err, &ue) is false, want true", tc.in, err)
			}
		}
	}
}

func TestShardOfIsStableAndSpreads(t *testing.T) {
	const n = 4
	counts := make([]int, n)
	for i := range 400 {
		p := fmt.Sprintf("sessions/s%03d.jsonl", i)
		s := shardOf(p, n)
		if got := shardOf(p, n); got != s {
			t.Fatalf("shardOf(p, n) = %v, want %v", got, s)
		}
		// Path spelling does not move a file: cleaned, slash form.
		if got := shardOf("./"+p, n); got != s {
			t.Fatalf(`shardOf("./"+p, n) = %v, want %v`, got, s)
		}
		counts[s]++
	}
	for s, c := range counts {
		if c <= 50 {
			t.Errorf("shard %d holds %d of 400 files: c = %v, want > %v", s+1, c, c, 50)
		}
	}
	// FNV-1a 32 of "a": 0xe40c292c.
	if want, got := int(uint32(0xe40c292c)%7), shardOf("a", 7); got != want {
		t.Errorf(`shardOf("a", 7) = %v, want %v`, got, want)
	}
}

func TestProgressLine(t *testing.T) {
	if got := progressLine(120, 3400, 824_000_000, 2*time.Second); got != "checked 120/3,400 files · 412 MB/s" {
		t.Errorf("progressLine(120, 3400, 824_000_000, 2*time.Second) = %q, want %q", got, "checked 120/3,400 files · 412 MB/s")
	}
	if got := progressLine(0, 1, 0, 0); got != "checked 0/1 files · 0 MB/s" {
		t.Errorf("progressLine(0, 1, 0, 0) = %q, want %q", got, "checked 0/1 files · 0 MB/s")
	}
}

func TestProgressOnlyOnATerminalAfterASecond(t *testing.T) {
	var done, bytesRead = newCounter(3), newCounter(5_000_000)
	// Nothing when stderr is not a terminal, nor on one before the first second.
	for _, tc := range []struct {
		name string
		tty  bool
	}{{"not a terminal", false}, {"terminal, fast run", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, errb := testEnv("", nil)
			lb := &lockedBuffer{b: errb}
			e.stderr = lb
			e.stderrTTY = tc.tty
			p := newProgress(e, 10, done, bytesRead)
			time.Sleep(3 * progressInterval)
			p.stop()
			if got := lb.String(); got != "" {
				t.Errorf("stderr = %q, want empty", got)
			}
		})
	}
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
		if !strings.Contains(out, "checked 3/10 files · ") {
			t.Errorf("out = %q, want it to contain %q", out, "checked 3/10 files · ")
		}
		// Refreshed at most ten times a second, and erased at the end.
		if got := strings.Count(out, "checked"); got > 4 {
			t.Errorf(`strings.Count(out, "checked") = %v, want <= %v`, got, 4)
		}
		if !strings.HasSuffix(out, "\r\x1b[K") {
			t.Errorf(`progress line not cleared: %q: strings.HasSuffix(out, "\r\x1b[K") is false, want true`, out)
		}
	})
}

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

func TestVersionFromBuildInfo(t *testing.T) {
	mk := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	if got := versionFromBuildInfo(mk("v1.2.3", "vcs.revision", "abc")); got != "v1.2.3" {
		t.Errorf(`versionFromBuildInfo(mk("v1.2.3", "vcs.revision", "abc")) = %q, want %q`, got, "v1.2.3")
	}
	if got := versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "false")); got != "0123456789ab" {
		t.Errorf(`versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "false")) = %q, want %q`, got, "0123456789ab")
	}
	if got := versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "true")); got != "0123456789ab-dirty" {
		t.Errorf(`versionFromBuildInfo(mk("(devel)", "vcs.revision", "0123456789abcdef", "vcs.modified", "true")) = %q, want %q`, got, "0123456789ab-dirty")
	}
	if got := versionFromBuildInfo(mk("")); got != "devel" {
		t.Errorf(`versionFromBuildInfo(mk("")) = %q, want %q`, got, "devel")
	}
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
		if err := copyFromLine(&b, &oneByteReader{strings.NewReader(src)}, tc.line); err != nil {
			t.Fatalf("copyFromLine(&b, &oneByteReader{strings.NewReader(src)}, tc.line): %v", err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("line %d: b.String() = %q, want %q", tc.line, got, tc.want)
		}
	}
	var b bytes.Buffer
	err := copyFromLine(&b, strings.NewReader("a\nb"), 5)
	var re readError
	if !errors.As(err, &re) {
		t.Errorf("a file shorter than expected is a read error: %v: errors.As(err, &re) is false, want true", err)
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

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
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

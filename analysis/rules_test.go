package analysis

import (
	"slices"
	"strings"
	"testing"
)

// allCodes is every Code constant, in the order the registry must keep:
// the SARIF ruleIndex of published logs depends on it.
var allCodes = []string{CodeInvalidJSON, CodeInvalidRecord, CodeOrphanToolResult,
	CodeMissingToolResult, CodeDuplicateCallID, CodeSweptMessage,
	CodeFileTooLarge, CodeDeepNesting, CodeBudgetCutoff, CodeBudgetExceeded,
	CodeTruncatedRecord, CodeInterleavedRecord, CodeZeroFilled, CodeSplitRecord,
	CodeCodexResumeRefused, CodeCodexSkippedLine, CodeCodexCompaction,
	CodeBrokenParentChain, CodeDuplicateUUID, CodeMalformedRecord}

// dialectCodes are made only by a dialect's package (analysis/dialect/...),
// whose tests check that its findings take the registry's severity.
var dialectCodes = map[string]bool{CodeCodexResumeRefused: true, CodeCodexSkippedLine: true, CodeCodexCompaction: true,
	CodeBrokenParentChain: true, CodeDuplicateUUID: true, CodeMalformedRecord: true}

func TestRegistryCoversEveryCodeInOrder(t *testing.T) {
	got := Codes()
	if strings.Join(got, ",") != strings.Join(allCodes, ",") {
		t.Fatalf("Codes() = %v\nwant      %v", got, allCodes)
	}
	for i, r := range Rules() {
		t.Run(r.Code, func(t *testing.T) {
			if r.Code != got[i] {
				t.Errorf("Rules()[%d] is %s, Codes()[%d] is %s", i, r.Code, i, got[i])
			}
			if r.Severity < SeverityError || r.Severity > SeverityInfo {
				t.Errorf("severity %d", r.Severity)
			}
			if r.Summary == "" || strings.Contains(r.Summary, "\n") || !strings.HasSuffix(r.Summary, ".") {
				t.Errorf("summary %q: want one sentence on one line", r.Summary)
			}
			if len(r.Doc) < 200 || !strings.Contains(r.Doc, "Example") {
				t.Errorf("doc too thin (%d bytes, want a paragraph with an example): %q", len(r.Doc), r.Doc)
			}
			if (r.Fix == FixNone) != (len(r.Fixes) == 0) {
				t.Errorf("fixability %s with %d fixes", r.Fix, len(r.Fixes))
			}
			if len(r.Fixes) > 0 && !strings.Contains(r.Help(), r.Fixes[0].Title) {
				t.Errorf("Help() does not list the fixes: %q", r.Help())
			}
			rr, idx, ok := RuleFor(r.Code)
			if !ok || idx != i || rr.Summary != r.Summary {
				t.Errorf("RuleFor(%s) = %v, %d, %v", r.Code, rr.Code, idx, ok)
			}
		})
	}
	if _, idx, ok := RuleFor("no-such-code"); ok || idx != -1 {
		t.Errorf("RuleFor(unknown) = %d, %v", idx, ok)
	}
}

func TestRulesHandsOutCopies(t *testing.T) {
	rs := Rules()
	rs[0].Severity = SeverityInfo
	rs[0].Fixes[0].Safe = !rs[0].Fixes[0].Safe
	fresh := Rules()
	if fresh[0].Severity != SeverityError || fresh[0].Fixes[0].Safe == rs[0].Fixes[0].Safe {
		t.Fatal("changing the result of Rules changed the registry")
	}
	ks := FixKinds()
	ks[0].Safe = !ks[0].Safe
	ks[0].Rules[0].Code = "changed"
	if fresh := FixKinds(); fresh[0].Safe == ks[0].Safe || fresh[0].Rules[0].Code == "changed" {
		t.Fatal("changing the result of FixKinds changed the fix table")
	}
}

func TestFixability(t *testing.T) {
	want := map[string]Fixability{CodeInvalidJSON: FixSometimes, CodeInvalidRecord: FixSometimes, CodeOrphanToolResult: FixAlways,
		CodeTruncatedRecord: FixSometimes, CodeInterleavedRecord: FixSometimes, CodeZeroFilled: FixSometimes, CodeSplitRecord: FixSometimes,
		CodeMissingToolResult: FixSometimes, CodeBrokenParentChain: FixSometimes}
	for _, r := range Rules() {
		if r.Fix != want[r.Code] {
			t.Errorf("%s: fixability %s, want %s", r.Code, r.Fix, want[r.Code])
		}
	}
	// Each rule lists the kinds of the fix table that repair its
	// findings, in the table's order, with the table's safety.
	for _, r := range Rules() {
		var want []Fix
		engine := false // an engine's kind (not a dialect's alone) repairs it
		for _, k := range FixKinds() {
			for _, d := range k.Rules {
				if d.Code == r.Code {
					want = append(want, Fix{Title: d.Doc, Safe: k.Safe})
					engine = engine || len(k.Dialects) == 0
				}
			}
		}
		if !slices.Equal(r.Fixes, want) {
			t.Errorf("%s: fixes %v, the fix table has %v", r.Code, r.Fixes, want)
		}
		if got := HasFixes(r.Code); got != engine {
			t.Errorf("%s: HasFixes %v, want %v", r.Code, got, engine)
		}
	}
	r, _, _ := RuleFor(CodeInvalidJSON)
	var safe, unsafe int
	for _, f := range r.Fixes {
		if f.Safe {
			safe++
		} else {
			unsafe++
		}
	}
	if safe == 0 || unsafe == 0 {
		t.Errorf("invalid-json: %d safe and %d unsafe fixes, want both kinds", safe, unsafe)
	}
}

// TestFindingsTakeTheRegistrySeverity makes a finding of every code the
// engine can produce from a small input and checks its severity.
func TestFindingsTakeTheRegistrySeverity(t *testing.T) {
	deep := `{"role":"assistant","content":"","toolCalls":[{"id":"d","name":"n","input":` +
		strings.Repeat("[", DeepNestingLimit+5) + strings.Repeat("]", DeepNestingLimit+5) + `}]}`
	lines := []string{
		"[",                              // invalid-json
		`{"role":"system","content":""}`, // invalid-record
		"{",                              // truncated-record
		// interleaved-record: another append at byte 524,288 of a record, and the rest
		`{"role":"tool","content":"` + strings.Repeat("x", ChunkSize-26) + `{"role":"user","content":"s"}`,
		`xx","toolCallId":"a","isError":false}`,
		"{\"role\":\"user\",\"content\":\"a" + strings.Repeat("\x00", 16) + "\"}", // zero-filled
		`{"role":"user","content":"split`, `here"}`,                               // split-record
	}
	text := strings.Join(lines, "\n")
	valid := strings.Join([]string{
		`{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":{}},{"id":"a","name":"n","input":{}},{"id":"m","name":"n","input":{}}]}`,
		`{"role":"user","content":"between"}`,
		`{"role":"tool","content":"","toolCallId":"a","isError":false}`,
		`{"role":"tool","content":"","toolCallId":"orphan","isError":false}`,
		deep,
	}, "\n")
	seen := map[string]bool{}
	check := func(r *Report) {
		for _, f := range r.Findings {
			seen[f.Code] = true
			if rule, _, _ := RuleFor(f.Code); f.Severity != rule.Severity {
				t.Errorf("%s finding has severity %s, the registry says %s", f.Code, f.Severity, rule.Severity)
			}
		}
	}
	check(Analyze([]byte(text), Options{}))
	check(Analyze([]byte(valid), Options{Budget: 1}))
	check(Analyze([]byte(valid), Options{Budget: 1 << 40}))
	check(&Report{Findings: []Finding{tooLargeFinding(MaxStringLength + 1)}})
	for _, c := range Codes() {
		if !seen[c] && !dialectCodes[c] {
			t.Errorf("no finding of %s was made: extend the inputs", c)
		}
	}
}

func TestLoadFailure(t *testing.T) {
	text := "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"bot\",\"content\":\"\"}\n{\n"
	want := `invalid session record at line 3 (the runtime's line 2): unknown role "bot"; the runtime refuses to load the file here`
	for _, disabled := range []map[string]bool{nil, {CodeInvalidRecord: true, CodeInvalidJSON: true}} {
		r := Analyze([]byte(text), Options{Disabled: disabled})
		lf := r.LoadFailure()
		if lf == nil || lf.Line != 3 || lf.Message != want || lf.Error() != want {
			t.Fatalf("disabled %v: LoadFailure() = %+v\nwant message %q", disabled, lf, want)
		}
		if got := lf.Summary(); got != "the file does not load (line 3 is invalid)" {
			t.Errorf("Summary() = %q", got)
		}
		if disabled == nil && r.Findings[0].Message != want {
			t.Errorf("the finding says %q, LoadFailure %q", r.Findings[0].Message, want)
		}
	}
	if lf := Analyze([]byte(jU()+"\n"), Options{}).LoadFailure(); lf != nil {
		t.Errorf("a file that loads has LoadFailure %+v", lf)
	}
	big := &Report{Width16: MaxStringLength + 1}
	lf := big.LoadFailure()
	if lf == nil || lf.Line != 0 || !strings.HasPrefix(lf.Message, "RangeError: Invalid string length") {
		t.Fatalf("too long: %+v", lf)
	}
	if got, want := lf.Summary(), "the file does not load (536,870,889 UTF-16 units, more than readFile can hold in one string)"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	// A report made by hand (no engine): the finding, else the line.
	hand := &Report{FirstInvalidLine: 2, Findings: []Finding{{Line: 2, Code: CodeInvalidJSON, Message: "m"}}}
	if got := hand.LoadFailure().Message; got != "m" {
		t.Errorf("hand-made report: %q", got)
	}
	hand.Findings = nil
	if got := hand.LoadFailure().Message; got != "invalid session at line 2" {
		t.Errorf("hand-made report without findings: %q", got)
	}
}

// TestLoadFailureFollowsEdits types on the invalid line of a Document, the
// path where the report is patched rather than recomputed.
func TestLoadFailureFollowsEdits(t *testing.T) {
	d := NewDocument("{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"bot\",\"content\":\"\"}\n", Options{Disabled: map[string]bool{CodeInvalidRecord: true}})
	if got := d.Report().LoadFailure().Message; !strings.Contains(got, `unknown role "bot"`) {
		t.Fatalf("before the edit: %q", got)
	}
	// "bot" -> "bat": still invalid, on the same line.
	if err := d.Apply([]Change{{Range: &Range{Start: Position{1, 10}, End: Position{1, 11}}, Text: "a"}}); err != nil {
		t.Fatal(err)
	}
	if got := d.Report().LoadFailure().Message; !strings.Contains(got, `unknown role "bat"`) {
		t.Fatalf("after the edit: %q", got)
	}
	if d.patched == 0 {
		t.Error("the report was recomputed: this test is meant to take the patch path")
	}
}

// TestSeverityIn: a tool call without its result is a warning in the
// runtime's files and an error where the API refuses the next request;
// a caller cannot change the registry through the map it gets.
func TestSeverityIn(t *testing.T) {
	for _, tc := range []struct {
		code, dialect string
		want          Severity
	}{
		{CodeMissingToolResult, "seed", SeverityWarning},
		{CodeMissingToolResult, "claude-code", SeverityError},
		{CodeOrphanToolResult, "codex", SeverityError},
		{CodeDuplicateCallID, "codex", SeverityWarning},
		{CodeDuplicateCallID, "claude-code", SeverityError},
		{CodeInvalidJSON, "claude-code", SeverityError},
	} {
		r, _, ok := RuleFor(tc.code)
		if !ok {
			t.Fatalf("no rule %s", tc.code)
		}
		if got := r.SeverityIn(tc.dialect); got != tc.want {
			t.Errorf("%s in %s: %s, want %s", tc.code, tc.dialect, got, tc.want)
		}
		if r.In == nil {
			continue
		}
		r.In["seed"] = SeverityInfo
		if again, _, _ := RuleFor(tc.code); again.SeverityIn("seed") == SeverityInfo {
			t.Errorf("%s: changing a returned rule changed the registry", tc.code)
		}
	}
}

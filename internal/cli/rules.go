package cli

import "github.com/sessionls/sessionls/analysis"

// rule describes a finding code for --help and the SARIF rules.
type rule struct {
	code     string
	severity analysis.Severity
	short    string
}

// describedRules holds what the analysis package documents only in
// comments: each code's default severity and a one-line description.
// TestRulesDescribeEveryCode fails when the engine adds a code missing here.
func describedRules() map[string]rule {
	rs := []rule{
		{analysis.CodeInvalidJSON, analysis.SeverityError, "A line that JSON.parse rejects: the runtime refuses the whole file."},
		{analysis.CodeInvalidRecord, analysis.SeverityError, "A line that parses but is not a valid session message: the runtime refuses the whole file."},
		{analysis.CodeOrphanToolResult, analysis.SeverityWarning, "A tool result that no earlier assistant message declares."},
		{analysis.CodeMissingToolResult, analysis.SeverityWarning, "A declared tool call that never gets its result."},
		{analysis.CodeDuplicateCallID, analysis.SeverityWarning, "A tool call id declared a second time."},
		{analysis.CodeSweptMessage, analysis.SeverityInfo, "A message swept into a tool-call unit that is not one of its results."},
		{analysis.CodeFileTooLarge, analysis.SeverityWarning, "A file longer than the runtime can read into one string."},
		{analysis.CodeBudgetCutoff, analysis.SeverityInfo, "Where the character budget cuts the session."},
		{analysis.CodeBudgetExceeded, analysis.SeverityError, "A budget for which trimContext throws: the newest unit does not fit, or the session is empty."},
		{"deep-nesting", analysis.SeverityWarning, "A message nested so deeply that node's JSON.stringify may overflow its stack, and trimContext would throw."},
	}
	m := make(map[string]rule, len(rs))
	for _, r := range rs {
		m[r.code] = r
	}
	return m
}

// rules lists a rule for every code the engine has, in analysis.Codes()
// order (that order is the SARIF ruleIndex).
func rules() []rule {
	known := describedRules()
	var out []rule
	for _, c := range analysis.Codes() {
		r, ok := known[c]
		if !ok {
			r = rule{code: c, severity: analysis.SeverityWarning, short: "See `sessionls check --help`."}
		}
		out = append(out, r)
	}
	return out
}

func lookupRule(code string) (rule, int, bool) {
	for i, r := range rules() {
		if r.code == code {
			return r, i, true
		}
	}
	return rule{}, -1, false
}

// sarifLevel maps a severity to SARIF's result level.
func sarifLevel(s analysis.Severity) string {
	switch s {
	case analysis.SeverityError:
		return "error"
	case analysis.SeverityWarning:
		return "warning"
	}
	return "note"
}

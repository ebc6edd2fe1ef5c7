package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sessionls/sessionls/analysis"
)

// rulesDoc is docs/rules.md: every rule of the registry, one section per
// code (its anchor is the code itself, the target of the editors' and
// SARIF's links: analysis.Rule.DocURL).
func rulesDoc(_ []byte, rs []analysis.Rule) ([]byte, error) {
	var b strings.Builder
	b.WriteString("# Finding codes\n\n")
	b.WriteString("<!-- Generated from the rule registry (analysis/rules.go) by `go generate ./analysis`; do not edit. -->\n\n")
	b.WriteString("Every finding `sessionls check` reports and every diagnostic the editors show has one of these codes.\n")
	b.WriteString("Severity, fixability and the fixes come from the same registry as `sessionls rules`.\n\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "## %s\n\n", r.Code)
		fmt.Fprintf(&b, "Severity: %s%s · fix: %s\n\n", r.Severity, severityIn(r), r.Fix)
		fmt.Fprintf(&b, "%s\n\n", r.Summary)
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(r.Help()))
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n"), nil
}

// severityIn names the dialects where the code has another severity, in
// the dialects' order: " (error in claude-code and codex files)".
func severityIn(r analysis.Rule) string {
	if len(r.In) == 0 {
		return ""
	}
	by := map[analysis.Severity][]string{}
	var sevs []analysis.Severity
	for _, d := range slices.Sorted(maps.Keys(r.In)) {
		s := r.In[d]
		if by[s] == nil {
			sevs = append(sevs, s)
		}
		by[s] = append(by[s], d)
	}
	var parts []string
	for _, s := range sevs {
		parts = append(parts, fmt.Sprintf("%s in %s files", s, strings.Join(by[s], " and ")))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

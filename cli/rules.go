package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/analysis"
)

// rules lists the rule of every code, in analysis.Codes() order (that
// order is the SARIF ruleIndex).
func rules() []analysis.Rule { return analysis.Rules() }

// lookupRule returns code's rule and its SARIF ruleIndex.
func lookupRule(code string) (analysis.Rule, int, bool) { return analysis.RuleFor(code) }

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

// ruleJSON is one element of `rules --format json`; keys and order are
// the interface.
type ruleJSON struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Fix      string `json:"fix"`
	Summary  string `json:"summary"`
	Doc      string `json:"doc"`
}

func newRulesCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules [flags]",
		Short: "List the finding codes with their severity, fixability and meaning",
		Long: `List every finding code sessionls reports: its default severity, whether
an edit can fix it (none, sometimes, always) and what it means.

Formats:
  text  a table: code, severity, fix, summary
  json  [{"code","severity","fix","summary","doc"}, ...]; doc is markdown:
        what the runtime does, why it matters, an example, and the fixes`,
		Example: `  sessionls rules
  sessionls rules --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRules(e, format)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, "output `FORMAT`: text or json")
	return cmd
}

func runRules(e *env, format string) error {
	var out []byte
	switch format {
	case formatText:
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CODE\tSEVERITY\tFIX\tSUMMARY")
		for _, r := range rules() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Code, r.Severity, r.Fix, r.Summary)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("formatting the rules: %w", err)
		}
		out = []byte(b.String())
	case formatJSON:
		rs := make([]ruleJSON, 0, len(rules()))
		for _, r := range rules() {
			rs = append(rs, ruleJSON{Code: r.Code, Severity: r.Severity.String(), Fix: r.Fix.String(), Summary: r.Summary, Doc: r.Help()})
		}
		b, err := marshalIndent(rs)
		if err != nil {
			return fmt.Errorf("encoding the rules: %w", err)
		}
		out = b
	default:
		return usagef("invalid --format %q (want text or json)", format)
	}
	if _, err := e.stdout.Write(out); err != nil {
		return writeFailed(e, err)
	}
	return nil
}

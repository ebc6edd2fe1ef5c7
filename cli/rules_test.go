package cli

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sessionls/sessionls/analysis"
)

func TestRulesGolden(t *testing.T) {
	atRepoRoot(t)
	for _, format := range []string{formatText, formatJSON} {
		t.Run(format, func(t *testing.T) {
			r := sessionls(t, "rules", "--format", format)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "", r.stderr)
			golden(t, "rules/rules."+format, r.stdout)
		})
	}
}

func TestRulesTextListsEveryCode(t *testing.T) {
	r := sessionls(t, "rules")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 1+len(analysis.Codes()), r.stdout)
	assert.Equal(t, []string{"CODE", "SEVERITY", "FIX", "SUMMARY"}, strings.Fields(lines[0]))
	for i, rule := range analysis.Rules() {
		f := strings.Fields(lines[i+1])
		require.GreaterOrEqual(t, len(f), 4, lines[i+1])
		assert.Equal(t, []string{rule.Code, rule.Severity.String(), rule.Fix.String()}, f[:3])
		assert.True(t, strings.HasSuffix(lines[i+1], "  "+rule.Summary), lines[i+1])
	}
}

func TestRulesJSON(t *testing.T) {
	r := sessionls(t, "rules", "--format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	require.Len(t, got, len(analysis.Codes()))
	for i, rule := range analysis.Rules() {
		assert.Equal(t, map[string]any{
			"code": rule.Code, "severity": rule.Severity.String(), "fix": rule.Fix.String(),
			"summary": rule.Summary, "doc": rule.Help(),
		}, got[i])
	}
	assert.Contains(t, got[0]["doc"], "(unsafe", "invalid-json's doc names its unsafe fix")
}

func TestRulesUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"bad format", []string{"rules", "--format", "sarif"}, `invalid --format "sarif" (want text or json)`},
		{"argument", []string{"rules", "invalid-json"}, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sessionls(t, tc.args...)
			assert.Equal(t, ExitError, r.code)
			assert.Equal(t, "", r.stdout)
			assert.Contains(t, r.stderr, tc.msg)
		})
	}
}

func TestRulesWriteError(t *testing.T) {
	e, _, errb := testEnv("", nil)
	e.stdout = failingWriter{}
	code := run(t.Context(), e, []string{"rules"})
	assert.Equal(t, ExitError, code)
	assert.Contains(t, errb.String(), "cannot write the report")
}

// failingWriter is a stdout whose reader went away.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

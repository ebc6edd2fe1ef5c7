package cli

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
)

func TestRulesGolden(t *testing.T) {
	atRepoRoot(t)
	for _, format := range []string{formatText, formatJSON} {
		t.Run(format, func(t *testing.T) {
			r := sessionls(t, "rules", "--format", format)
			r.mustCode(t, 0)
			if r.stderr != "" {
				t.Errorf("r.stderr = %q, want %q", r.stderr, "")
			}
			golden(t, "rules/rules."+format, r.stdout)
		})
	}
}

func TestRulesTextListsEveryCode(t *testing.T) {
	r := sessionls(t, "rules")
	r.mustCode(t, 0)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if want := 1 + len(analysis.Codes()); len(lines) != want {
		t.Fatalf("%v: len(lines) = %d, want %d: %+v", r.stdout, len(lines), want, lines)
	}
	wantEqual(t, "strings.Fields(lines[0])", strings.Fields(lines[0]), []string{"CODE", "SEVERITY", "FIX", "SUMMARY"})
	for i, rule := range analysis.Rules() {
		f := strings.Fields(lines[i+1])
		if got := len(f); got < 4 {
			t.Fatalf("%v: len(f) = %v, want >= %v", lines[i+1], got, 4)
		}
		wantEqual(t, "f[:3]", f[:3], []string{rule.Code, rule.Severity.String(), rule.Fix.String()})
		if !strings.HasSuffix(lines[i+1], "  "+rule.Summary) {
			t.Errorf(`%v: strings.HasSuffix(lines[i+1], "  "+rule.Summary) is false, want true`, lines[i+1])
		}
	}
}

func TestRulesJSON(t *testing.T) {
	r := sessionls(t, "rules", "--format", "json")
	r.mustCode(t, 0)
	var got []map[string]any
	r.decodeJSON(t, &got)
	if want := len(analysis.Codes()); len(got) != want {
		t.Fatalf("len(got) = %d, want %d: %+v", len(got), want, got)
	}
	for i, rule := range analysis.Rules() {
		if want := (map[string]any{
			"code": rule.Code, "severity": rule.Severity.String(), "fix": rule.Fix.String(),
			"summary": rule.Summary, "doc": rule.Help(),
		}); !reflect.DeepEqual(got[i], want) {
			t.Errorf("got[i] = %+v, want %+v", got[i], want)
		}
	}
	if got2, ok := got[0]["doc"].(string); !ok || !strings.Contains(got2, "(unsafe") {
		t.Errorf(`invalid-json's doc names its unsafe fix: got[0]["doc"] = %q, want a string containing %q`, got2, "(unsafe")
	}
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
			r.wantCode(t, ExitError)
			if r.stdout != "" {
				t.Errorf("r.stdout = %q, want %q", r.stdout, "")
			}
			if !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("r.stderr = %q, want it to contain %q", r.stderr, tc.msg)
			}
		})
	}
}

func TestRulesWriteError(t *testing.T) {
	e, _, errb := testEnv("", nil)
	e.stdout = failingWriter{}
	code := run(t.Context(), e, []string{"rules"})
	if code != ExitError {
		t.Errorf("code = %v, want %v", code, ExitError)
	}
	if got := errb.String(); !strings.Contains(got, "cannot write the report") {
		t.Errorf("errb.String() = %q, want it to contain %q", got, "cannot write the report")
	}
}

// failingWriter is a stdout whose reader went away.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

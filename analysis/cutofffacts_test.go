package analysis

import (
	"strings"
	"testing"
)

func TestCutoffFacts(t *testing.T) {
	// Four units of 38, 38, 38 and 47 chars (newest last).
	session := strings.Join([]string{
		`{"role":"user","content":"first one"}`,
		`{"role":"user","content":"second on"}`,
		``,
		`{"role":"user","content":"third one"}`,
		`{"role":"user","content":"fourth one, longer"}`,
	}, "\n") + "\n"
	for _, tc := range []struct {
		name     string
		opts     Options
		trimmed  int
		min      int64
		minOK    bool
		errorEnd string
	}{
		{"no budget", Options{}, 0, 47, true, ""},
		{"cuts two units", Options{Budget: 90}, 2, 47, true, ""},
		{"keeps everything", Options{Budget: 1 << 20}, 0, 47, true, ""},
		{"too small", Options{Budget: 10}, 0, 47, true, "; the least budget that works is 47"},
		{"messages skipped", Options{Budget: 90, SkipMessages: true}, 2, 47, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Analyze([]byte(session), tc.opts)
			if got := r.MessageCount(); got != 4 {
				t.Errorf("MessageCount = %d, want 4", got)
			}
			if got := r.TrimmedMessages(); got != tc.trimmed {
				t.Errorf("TrimmedMessages = %d, want %d", got, tc.trimmed)
			}
			if n, ok := r.MinBudget(); n != tc.min || ok != tc.minOK {
				t.Errorf("MinBudget = %d, %v, want %d, %v", n, ok, tc.min, tc.minOK)
			}
			got := r.BudgetErrorText()
			if (tc.errorEnd == "") != (got == "") || !strings.HasSuffix(got, tc.errorEnd) {
				t.Errorf("BudgetErrorText = %q, want one ending %q", got, tc.errorEnd)
			}
		})
	}
	// A file that does not load: no budget works.
	r := Analyze([]byte("{\"role\":\"user\",\"content\":\"a\"}\n{bad\n"), Options{Budget: 100})
	if _, ok := r.MinBudget(); ok {
		t.Error("MinBudget of a file that does not load is ok")
	}
}

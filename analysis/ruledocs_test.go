package analysis

import (
	"os"
	"strings"
	"testing"
)

// Every code links to a section of docs/rules.md that exists.
func TestRuleDocURL(t *testing.T) {
	doc, err := os.ReadFile("../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		u := RuleDocURL(r.Code)
		if u != rulesDoc+"#"+r.Code {
			t.Errorf("RuleDocURL(%q) = %q", r.Code, u)
		}
		if !strings.Contains(string(doc), "\n## "+r.Code+"\n") {
			t.Errorf("docs/rules.md has no section %q (go generate ./analysis)", r.Code)
		}
	}
	if u := RuleDocURL("no-such-code"); u != "" {
		t.Errorf("an unknown code links to %q", u)
	}
}

package dialect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/claude"
	"github.com/sessionls/sessionls/analysis/dialect/codex"
)

// TestCodes: each dialect's Codes names registry codes only, and its
// corpus, with and without a budget (one that cuts and one that nothing
// fits in), reports no code Codes lacks.
func TestCodes(t *testing.T) {
	registry := analysis.Codes()
	for _, tc := range []struct {
		d      Dialect
		codes  map[string]string
		corpus string
	}{
		{claude.Dialect{}, claude.Codes(), "claude-code"},
		{codex.Dialect{}, codex.Codes(), "codex"},
	} {
		t.Run(tc.d.Name(), func(t *testing.T) {
			for c, meaning := range tc.codes {
				if !slices.Contains(registry, c) {
					t.Errorf("Codes names %q, which is not in the registry", c)
				}
				if meaning == "" {
					t.Errorf("Codes gives %q no meaning", c)
				}
			}
			files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "dialects", tc.corpus, "*.jsonl"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no corpus: %v", err)
			}
			seen := map[string]bool{}
			for _, path := range files {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, budget := range []int64{0, 500, 1} {
					for _, f := range tc.d.Analyze(data, analysis.Options{Budget: budget}).Findings {
						seen[f.Code] = true
						if _, ok := tc.codes[f.Code]; !ok {
							t.Errorf("%s (budget %d): line %d reports %s, which Codes lacks", filepath.Base(path), budget, f.Line, f.Code)
						}
					}
				}
			}
			if len(seen) < 8 {
				t.Errorf("the corpus reports only %v: too few codes for the check to mean much", seen)
			}
		})
	}
}

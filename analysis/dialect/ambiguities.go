package dialect

import (
	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// Ambiguer is what a dialect implements to name the runs of a file whose
// interleaved pieces pair into valid records more than one way, each with
// its candidate fixes, in the file's lines before any fix (fix.Plan's
// ambiguities): check lists them and --pick applies one; the language
// server offers each as a quick fix. Optional: a dialect without it offers
// no candidates (FixAll still reports the runs).
type Ambiguer interface {
	Ambiguities(data []byte, findings []analysis.Finding) []fix.Ambiguity
}

// Ambiguities implements Ambiguer.
func (Seed) Ambiguities(data []byte, findings []analysis.Finding) []fix.Ambiguity {
	_, ambs := fix.Plan(data, findings)
	return ambs
}

package claude

import (
	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// Ambiguities are the runs of data's lines whose interleaved pieces pair
// into valid records more than one way, each with its candidate fixes (in
// data's lines, before any fix): what check lists and --pick applies, and
// the language server offers as quick fixes. The front ends ask for it
// through an optional interface (dialect.Dialect's Plan has no room for
// them).
func (Dialect) Ambiguities(data []byte, findings []analysis.Finding) []fix.Ambiguity {
	_, ambs := plan(data, findings)
	return ambs
}

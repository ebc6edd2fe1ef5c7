package codex

import (
	"cmp"
	"slices"

	"github.com/sessionls/sessionls/analysis"
)

// sortFindings orders findings by line, keeping the order found within a
// line.
func sortFindings(fs []analysis.Finding) {
	slices.SortStableFunc(fs, func(a, b analysis.Finding) int { return cmp.Compare(a.Line, b.Line) })
}

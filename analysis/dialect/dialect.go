// Package dialect names the session formats sessionls reads and picks one
// per file. The runtime of docs/semantics.md ("seed") is one dialect among
// others (Claude Code, Codex CLI; issue 21): each reads its own records
// into the engine's one model (analysis.Report: messages, tool calls and
// their results, units, findings from the one rule registry) and repairs
// them with analysis/fix's terms, so the front ends show every dialect the
// same way.
//
// The seed dialect is the engine itself, unchanged: Seed adds no work to
// its path.
package dialect

import (
	"context"
	"io"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/claude"
	"github.com/sessionls/sessionls/analysis/dialect/codex"
	"github.com/sessionls/sessionls/analysis/fix"
)

// Dialect is one session format. Implementations are stateless values.
type Dialect interface {
	// Name is the value of the `dialect` setting that selects it.
	Name() string
	// Sniff reports whether one line, the first line of a file that
	// JSON.parse accepts, is a record of this format. It must be cheap and
	// never claim a seed message.
	Sniff(line []byte) bool
	// AnalyzeReader reads and analyses a whole file in bounded memory
	// (the CLI's path): what the format's loader does with it, its
	// findings, costs and, with opts.Budget, the cutoff.
	AnalyzeReader(ctx context.Context, r io.Reader, opts analysis.Options) (*analysis.Report, error)
	// Analyze analyses a document held in memory (the language server's
	// path). The report does not refer to data's memory.
	Analyze(data []byte, opts analysis.Options) *analysis.Report
	// Plan computes the fixes of a report's findings, in the file's bytes
	// (each at most one per finding), for quick fixes and --diff.
	Plan(data []byte, findings []analysis.Finding) []fix.Fix
	// FixAll applies every safe fix (and the unsafe ones with unsafe) until
	// nothing changes, keeping every intact record byte for byte.
	FixAll(ctx context.Context, data []byte, opts analysis.Options, unsafe bool) (fix.Result, error)
}

// Seed is the runtime of docs/semantics.md: the engine as it is.
type Seed struct{}

// Name implements Dialect.
func (Seed) Name() string { return "seed" }

// Sniff implements Dialect: any line is a seed record until another
// dialect claims it, so Detect asks Seed last.
func (Seed) Sniff([]byte) bool { return true }

// AnalyzeReader implements Dialect.
func (Seed) AnalyzeReader(ctx context.Context, r io.Reader, opts analysis.Options) (*analysis.Report, error) {
	return analysis.AnalyzeReader(ctx, r, opts)
}

// Analyze implements Dialect.
func (Seed) Analyze(data []byte, opts analysis.Options) *analysis.Report {
	return analysis.Analyze(data, opts)
}

// Plan implements Dialect.
func (Seed) Plan(data []byte, findings []analysis.Finding) []fix.Fix {
	return fix.Compute(data, findings)
}

// FixAll implements Dialect.
func (Seed) FixAll(ctx context.Context, data []byte, opts analysis.Options, unsafe bool) (fix.Result, error) {
	return fix.FixAllContext(ctx, data, opts, unsafe)
}

// All lists the dialects, in the order Detect asks them (Seed last).
func All() []Dialect {
	return []Dialect{claude.Dialect{}, codex.Dialect{}, Seed{}}
}

// ByName returns the dialect a setting names.
func ByName(name string) (Dialect, bool) {
	for _, d := range All() {
		if d.Name() == name {
			return d, true
		}
	}
	return nil, false
}

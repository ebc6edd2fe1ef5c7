// Package dialectfake is a dialect for the front ends' tests: the seed
// dialect under another name, which counts what it is asked, so that a
// test of the CLI or the language server sees a file of another dialect go
// through its Dialect, and only through it.
package dialectfake

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
)

// Counting reads as the engine does (the seed dialect) and counts each
// call of the Dialect's methods. Copies share the counts.
type Counting struct {
	dialect.Seed
	// Claim, when not nil, is what a line must contain for Sniff to claim
	// its file; nil claims every line, as the seed dialect does.
	Claim []byte

	Sniffs, Reads, Analyses, Plans, FixAlls *atomic.Int64
}

// New returns a Counting dialect whose counts start at zero.
func New(claim []byte) Counting {
	return Counting{
		Claim:  claim,
		Sniffs: new(atomic.Int64), Reads: new(atomic.Int64), Analyses: new(atomic.Int64),
		Plans: new(atomic.Int64), FixAlls: new(atomic.Int64),
	}
}

// Name implements dialect.Dialect.
func (Counting) Name() string { return "fake" }

// Sniff implements dialect.Dialect.
func (d Counting) Sniff(line []byte) bool {
	d.Sniffs.Add(1)
	return d.Claim == nil || bytes.Contains(line, d.Claim)
}

// AnalyzeReader implements dialect.Dialect.
func (d Counting) AnalyzeReader(ctx context.Context, r io.Reader, o analysis.Options) (*analysis.Report, error) {
	d.Reads.Add(1)
	return d.Seed.AnalyzeReader(ctx, r, o)
}

// Analyze implements dialect.Dialect.
func (d Counting) Analyze(data []byte, o analysis.Options) *analysis.Report {
	d.Analyses.Add(1)
	return d.Seed.Analyze(data, o)
}

// Plan implements dialect.Dialect.
func (d Counting) Plan(data []byte, fs []analysis.Finding) []fix.Fix {
	d.Plans.Add(1)
	return d.Seed.Plan(data, fs)
}

// FixAll implements dialect.Dialect.
func (d Counting) FixAll(ctx context.Context, data []byte, o analysis.Options, unsafe bool) (fix.Result, error) {
	d.FixAlls.Add(1)
	return d.Seed.FixAll(ctx, data, o, unsafe)
}

package codex

import (
	"context"
	"fmt"
	"io"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// records decodes the lines JSON.parse accepts as codex's loader reads
// them (in the engine's parsing workers) and collects them in line order.
type records struct {
	counter interface{ Count(string) (int, error) }
	c       *collector
}

// Decode implements analysis.RecordReader.
func (r *records) Decode(l []byte) any { return decodeLine(l, r.counter, true) }

// Record implements analysis.RecordReader.
func (r *records) Record(rec *analysis.Record) {
	f, _ := rec.Value.(facts)
	r.c.add(rec.Line, f)
}

// jsonOptions are the options of the JSON-level analysis under opts.
func jsonOptions(opts analysis.Options, rr *records) analysis.Options {
	// SkipMessages: the records are collected as they come (rr), not kept.
	return analysis.Options{
		JSONOnly: true, Records: rr, SkipMessages: true,
		Disabled: opts.Disabled, MaxFindingsPerCode: opts.MaxFindingsPerCode, OmittedLines: opts.OmittedLines,
	}
}

// analyze is the whole analysis of data in memory (the language server's
// path).
func analyze(data []byte, opts analysis.Options) *analysis.Report {
	c := newCollector()
	rr := &records{counter: counterOf(opts), c: c}
	rep := analysis.Analyze(data, jsonOptions(opts, rr))
	ts := newTextScan()
	ts.feed(data)
	ts.finish()
	return c.finish(rep, ts, opts)
}

// analyzeStream reads r through the engine's JSON-level stream (bounded by
// the longest line, parsed across cores), with codex's reading of the text
// (UTF-8, whitespace lines) alongside.
func analyzeStream(ctx context.Context, r io.Reader, opts analysis.Options) (*analysis.Report, error) {
	c := newCollector()
	rr := &records{counter: counterOf(opts), c: c}
	ts := newTextScan()
	rep, err := analysis.AnalyzeReader(ctx, io.TeeReader(r, ts), jsonOptions(opts, rr))
	if err != nil {
		return nil, fmt.Errorf("reading the rollout: %w", err)
	}
	ts.finish()
	return c.finish(rep, ts, opts), nil
}

// finish completes the JSON-level report rep with the collected history
// and checks: the engine's findings on lines codex skips are said in its
// terms, those on whitespace-only lines (which codex skips before parsing)
// dropped, and whether codex loads the file set.
func (c *collector) finish(rep *analysis.Report, ts *textScan, opts analysis.Options) *analysis.Report {
	// A whitespace-only line is skipped by codex before parsing: the
	// engine's finding on it goes, unless it may be a piece of a damaged
	// record (after a refused line that is not whitespace only, through
	// refused lines: a record's first piece is never whitespace only).
	refused := map[int]bool{}
	for _, f := range rep.Findings {
		if analysis.IsRefusal(f.Code) {
			refused[f.Line] = true
		}
	}
	piece := map[int]bool{}
	for ln := range refused {
		if ts.blank[ln] || piece[ln] {
			continue
		}
		for k := ln + 1; refused[k] && ts.blank[k]; k++ {
			piece[k] = true
		}
	}
	kept := rep.Findings[:0]
	invalid := 0
	for _, f := range rep.Findings {
		switch {
		case f.Code == analysis.CodeFileTooLarge:
			continue // node's string limit; codex reads into a Rust String
		case analysis.IsRefusal(f.Code) && ts.blank[f.Line] && !piece[f.Line]:
			continue
		case analysis.IsRefusal(f.Code):
			invalid++
			f.Message = "codex skips this line when it resumes the session (serde_json cannot parse it): " + f.Message
		}
		kept = append(kept, f)
	}
	rep.Findings = kept
	rep.InvalidLines = invalid + c.skipped
	rep.SetLoad(0, "")
	switch {
	case ts.badOff >= 0:
		c.refuse(rep, ts.badLine, ts.badCol, fmt.Sprintf("codex cannot read the file: byte 0x%02X at offset %s is not UTF-8, so tokio::fs::read_to_string fails (\"stream did not contain valid UTF-8\") and codex resume refuses the whole session",
			ts.badByte, textfmt.Thousands(ts.badOff)))
	case !ts.nonBlank:
		c.refuse(rep, 1, -1, "codex refuses the file: \"empty session file\" (it holds only whitespace)")
	case !c.haveMeta:
		c.refuse(rep, 1, -1, "codex refuses the file: \"failed to parse thread ID from rollout file\" (no session_meta line it can read)")
	}
	c.closeSegment(0)
	checks := c.findings
	sortFindings(checks)
	for i := range checks {
		if r, _, ok := analysis.RuleFor(checks[i].Code); ok {
			checks[i].Severity = r.SeverityIn(Dialect{}.Name())
		}
	}
	rep.Usage, rep.Compactions = c.usage, c.compactions
	if c.tokErr != nil {
		rep.TokensErr = c.tokErr
	}
	rep.CompleteUnits(c.msgs, units(c.msgs, c.lastOut), checks, opts)
	return rep
}

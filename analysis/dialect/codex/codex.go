// Package codex is the Codex CLI dialect (issue 21): rollouts that Codex
// CLI writes to ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, read as its
// loader reads them (codex-rs RolloutRecorder::load_rollout_items and
// get_rollout_history; docs/semantics.md, "Codex CLI"), checked for what
// the Responses API rejects when the history is sent again, and repaired.
//
// A rollout line is {"timestamp", "type", "payload"}; the history the
// model sees is the response_item lines (messages, reasoning, calls and
// their outputs), replaced at each compacted line. The report maps it into
// the engine's model: a message per item sent to the model (a call is an
// assistant message declaring one call, an output a tool message), units
// in which a call keeps every message up to its last output (parallel calls
// stay with their outputs), Report.Usage from token_count events and
// Report.Compactions from compacted lines. The JSON level (damage, its
// causes and repairs) is the engine's (analysis.Options.JSONOnly); the
// records are decoded in its parsing workers.
package codex

import (
	"bytes"
	"context"
	"io"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// Dialect is the Codex CLI dialect. It is stateless.
type Dialect struct{}

// Name implements dialect.Dialect.
func (Dialect) Name() string { return "codex" }

// Sniff implements dialect.Dialect: a rollout line, an object with a
// string "timestamp", a "type" that is a RolloutItem type and a "payload"
// object. A seed message has a "role" and no "payload", so it is never
// claimed.
func (Dialect) Sniff(l []byte) bool {
	l = bytes.TrimSpace(l)
	if len(l) == 0 || l[0] != '{' || !bytes.Contains(l, []byte(`"payload"`)) {
		return false
	}
	o, ok := object(l)
	if !ok || o.kindOf("payload") != '{' {
		return false
	}
	if _, ok := o.str("timestamp"); !ok {
		return false
	}
	if _, isSeed := o["role"]; isSeed {
		return false
	}
	t, _ := o.str("type")
	return rolloutType(t)
}

// AnalyzeReader implements dialect.Dialect. It reads the stream through
// the engine's JSON-level analysis, holding one line at a time (the
// engine's bounds) and a few words per message.
func (Dialect) AnalyzeReader(ctx context.Context, r io.Reader, opts analysis.Options) (*analysis.Report, error) {
	return analyzeStream(ctx, r, opts)
}

// Analyze implements dialect.Dialect.
func (Dialect) Analyze(data []byte, opts analysis.Options) *analysis.Report {
	return analyze(data, opts)
}

// Plan implements dialect.Dialect.
func (Dialect) Plan(data []byte, findings []analysis.Finding) []fix.Fix {
	fixes, _, _ := plan(data, findings)
	return fixes
}

// FixAll implements dialect.Dialect.
func (Dialect) FixAll(ctx context.Context, data []byte, opts analysis.Options, unsafe bool) (fix.Result, error) {
	return fixAll(ctx, data, opts, unsafe)
}

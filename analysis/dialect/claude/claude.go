// Package claude reads Claude Code's session transcripts
// (~/.claude/projects/<project>/<session>.jsonl; dialect "claude-code"):
// what Claude Code resumes from them, what the Messages API will refuse in
// the next request, what each message costs, the usage the model reported
// per turn, and the repairs that make a session resumable again.
//
// Claude Code's loader is closed source: the rules here follow its
// observed behaviour (public issue threads, release notes) and the
// Messages API's documented rules; docs/semantics.md ("Claude Code") gives
// each rule with its source.
//
// Every line is first read at JSON.parse's level by the engine
// (analysis.Options.JSONOnly): invalid JSON and the damage classes (a cut
// record, interleaved appends, zeroed data, a record split by raw line
// breaks) are found and repaired exactly as for the runtime's sessions.
// The records that parse are then decoded (across cores) into the few
// members the conversation needs, and the report is completed with the
// engine's one model (analysis.Report.Complete).
package claude

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/jsonscan"
)

// Dialect is Claude Code's transcript format.
type Dialect struct{}

// Name implements dialect.Dialect.
func (Dialect) Name() string { return "claude-code" }

// knownTypes are the record types Claude Code writes (observed); Sniff
// takes a record of one of them, or any record with Claude Code's
// identifying members.
var knownTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true,
	"file-history-snapshot": true, "queue-operation": true, "progress": true,
	"attachment": true, "permission-mode": true, "custom-title": true,
}

// Sniff implements dialect.Dialect: an object with a string "type" and
// Claude Code's members (uuid, parentUuid, sessionId, leafUuid, messageId),
// and neither a top-level "role" (the runtime's messages) nor a "payload"
// (Codex CLI's rollout lines).
func (Dialect) Sniff(l []byte) bool {
	at := jsonscan.SkipWS(l, 0)
	if at >= len(l) || l[at] != '{' {
		return false
	}
	o := objectAt(l, at)
	typ, _, ok := o.str(l, "type")
	if !ok {
		return false
	}
	if _, seed := o.get("role"); seed {
		return false
	}
	if _, codex := o.get("payload"); codex {
		return false
	}
	for _, k := range []string{"uuid", "parentUuid", "sessionId", "leafUuid", "messageId"} {
		if _, ok := o.get(k); ok {
			return true
		}
	}
	return knownTypes[typ] && typ != "user" && typ != "assistant" && typ != "system"
}

// AnalyzeReader implements dialect.Dialect. The stream is read by the
// engine in bounded chunks; the dialect keeps what it needs of each record
// (its ids, kinds, spans and costs: a few hundred bytes), not the records,
// since which records are the conversation is known only at the end (the
// chain runs back from the last one). Measured: a 32 MiB transcript of
// 28,730 records peaks at about 55 MB resident.
func (d Dialect) AnalyzeReader(ctx context.Context, r io.Reader, opts analysis.Options) (*analysis.Report, error) {
	rd := newReader(opts)
	rep, err := analysis.AnalyzeReader(ctx, r, jsonOptions(opts, rd))
	if err != nil {
		return nil, err
	}
	complete(rep, rd.entries, opts)
	return rep, nil
}

// Analyze implements dialect.Dialect.
func (d Dialect) Analyze(data []byte, opts analysis.Options) *analysis.Report {
	rd := newReader(opts)
	rep := analysis.Analyze(data, jsonOptions(opts, rd))
	complete(rep, rd.entries, opts)
	return rep
}

// refusedLines are the lines a report's refusal findings name.
func refusedLines(rep *analysis.Report) map[int]bool {
	out := map[int]bool{}
	for _, f := range rep.Findings {
		if analysis.IsRefusal(f.Code) {
			out[f.Line] = true
		}
	}
	for _, o := range rep.Omitted {
		if analysis.IsRefusal(o.Code) {
			for l := range o.Lines.All() {
				out[l] = true
			}
		}
	}
	return out
}

// skipNote ends the finding of a line JSON.parse refuses: what Claude Code
// does with it.
const skipNote = "; Claude Code skips the line when it resumes the session (observed: the release notes of v2.1.121 say a corrupt line is skipped; earlier versions stopped reading there), so the record it held is lost"

// complete finishes the JSON-level report rep with the conversation.
func complete(rep *analysis.Report, entries []*entry, opts analysis.Options) {
	refused := refusedLines(rep)
	for i := range rep.Findings {
		if f := &rep.Findings[i]; analysis.IsRefusal(f.Code) {
			f.Message += skipNote
		}
	}
	// The loader skips refused lines: the file still resumes.
	rep.SetLoad(0, "")
	c := read(entries)
	checks := c.check(refused)
	msgs := c.messages()
	for _, e := range entries {
		if e.tokErr != nil && rep.TokensErr == nil {
			rep.TokensErr = &analysis.TokenError{Line: e.ln, Err: e.tokErr}
		}
	}
	rep.Usage = c.usage()
	rep.Compactions = c.compactions()
	rep.Records = nil
	rep.Complete(msgs, checks, opts)
}

// usage lists the reported usage of each response of the main
// conversation (not a subagent's sidechain), in file order, at its first
// record: a streamed response's records share message.id and repeat the
// usage, the last one complete. Responses before a compaction boundary are
// listed too. Anthropic counts cached input beside input: InputTokens is
// the input not read from the cache (input_tokens plus
// cache_creation_input_tokens), CachedInputTokens what was
// (cache_read_input_tokens), and ContextTokens their sum. The file does
// not record the context window: ContextWindow is the documented window of
// the model the response names (the function ContextWindow).
func (c *conv) usage() []analysis.Usage {
	var out []analysis.Usage
	at := map[string]int{} // message.id → index in out
	for _, e := range c.entries {
		if !e.api || e.role != "assistant" || e.usage == nil || e.sidechain {
			continue
		}
		in := e.usage.input + e.usage.cacheCreation
		u := analysis.Usage{
			Line: e.ln, InputTokens: in, CachedInputTokens: e.usage.cacheRead,
			OutputTokens: e.usage.output, ContextTokens: in + e.usage.cacheRead,
			ContextWindow: ContextWindow(e.model),
		}
		if k, ok := at[e.msgID]; ok && e.msgID != "" {
			u.Line = out[k].Line
			out[k] = u
			continue
		}
		at[e.msgID] = len(out)
		out = append(out, u)
	}
	return out
}

// compactions lists the compaction boundaries of the file, in line order,
// each with the cost of the summary that follows it (the isCompactSummary
// record naming it as parent). The report's messages are the conversation
// Claude Code resumes, which starts at the last boundary on its chain: no
// message of it precedes a boundary (Replaced is 0).
func (c *conv) compactions() []analysis.Compaction {
	var out []analysis.Compaction
	for _, e := range c.entries {
		if !e.boundary {
			continue
		}
		cp := analysis.Compaction{Line: e.ln}
		if e.hasUUID {
			for _, x := range c.children(e) {
				if x.compact && x.api {
					cp.Chars = x.cost
					break
				}
			}
		}
		out = append(out, cp)
	}
	return out
}

// Plan implements dialect.Dialect: the JSON-level repairs of the lines
// JSON.parse refuses (fix.PlanJSON), and the conversation's own.
func (d Dialect) Plan(data []byte, findings []analysis.Finding) []fix.Fix {
	fixes, _ := plan(data, findings)
	return fixes
}

// maxRounds bounds FixAll's rounds: each round's fixes never break another
// line, and a fix waits a round only when another overlaps it.
const maxRounds = 8

// FixAll implements dialect.Dialect.
func (d Dialect) FixAll(ctx context.Context, data []byte, opts analysis.Options, unsafe bool) (fix.Result, error) {
	res := fix.Result{Data: data}
	for round := 0; ; round++ {
		rep, err := d.AnalyzeReader(ctx, bytes.NewReader(res.Data), opts)
		if err != nil {
			return fix.Result{}, err
		}
		res.Report = rep
		all, ambs := plan(res.Data, rep.Findings)
		fixes := disjoint(fix.Select(all, unsafe))
		if len(fixes) == 0 || round == maxRounds {
			res.Ambiguities = ambs
			return res, nil
		}
		res.Origin = fix.Origins(res.Data, fixes, res.Origin)
		res.Data = fix.Apply(res.Data, fixes)
		res.Fixed += len(fixes)
		for _, f := range fixes {
			res.Lost = res.Lost.Add(f.Lost)
		}
	}
}

// disjoint keeps, of fixes in line order, those whose lines no earlier
// kept fix owns (a fix of the conversation may own several lines: the
// record it adds or deletes and the parentUuid it re-points); the others
// wait for the next round.
func disjoint(fixes []fix.Fix) []fix.Fix {
	var out []fix.Fix
	last := 0
	for _, f := range fixes {
		if f.Line <= last {
			continue
		}
		out = append(out, f)
		last = max(f.EndLine, f.Line)
	}
	return out
}

// ContextWindow is the size, in tokens, of the context window of a Claude
// model as Claude Code records its name (message.model), for showing a
// turn's Usage.ContextTokens as a fill: 1,000,000 for a model Claude Code runs
// with the 1M-token window (its name then ends in "[1m]"), 200,000
// otherwise. The file does not record the window itself; this is the
// documented window of the Claude models, not a reading of the file.
func ContextWindow(model string) int64 {
	if strings.HasSuffix(strings.ToLower(model), "[1m]") {
		return 1_000_000
	}
	return 200_000
}

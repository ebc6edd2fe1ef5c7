package analysis

// Complete finishes a JSON-only report (Options.JSONOnly) with a dialect's
// reading of its records, so that every front end shows it as it shows the
// runtime's: msgs is the conversation the format's loader would send, in
// the engine's model (roles, calls and the results answering them, each
// message's Cost and, when counted, Tokens), in order; checks are the
// dialect's findings (codes from the registry). opts are the options the
// dialect was given, not the JSON-only ones: Complete groups msgs into
// units by trimContext's rules (as BuildUnits does: a tool result takes
// everything from the nearest earlier message declaring its ToolCallID
// through itself), links results to calls (AnsweredCall, Results), sums
// the totals, shows msgs to opts.Observer, finds opts' budget cutoff when
// the report Loads, and sorts every finding by line. Checks of a code
// opts.Disabled turns off are dropped; past opts.MaxFindingsPerCode they
// are counted in Omitted. With opts.SkipMessages the report keeps no
// messages (units and totals are complete).
//
// The dialect decides what loads: it sets FirstInvalidLine (0 when its
// loader skips the lines JSON.parse refuses) before calling Complete.
func (r *Report) Complete(msgs []Message, checks []Finding, opts Options) {
	r.complete(msgs, nil, checks, opts)
}

// CompleteUnits is Complete with the dialect's own grouping of msgs into
// units (oldest first, covering msgs in order, Chars, Tokens and the
// FromNewest sums filled in), for a format whose calls are messages of
// their own (Codex CLI: a parallel call's output can follow the next
// call, which trimContext's rule would part from its own call).
func (r *Report) CompleteUnits(msgs []Message, units []Unit, checks []Finding, opts Options) {
	if units == nil {
		units = []Unit{}
	}
	r.complete(msgs, units, checks, opts)
}

func (r *Report) complete(msgs []Message, units []Unit, checks []Finding, opts Options) {
	var l linker
	var nodes nodeList
	limit := newFindingLimit(opts)
	r.TotalChars, r.TotalTokens = 0, 0
	for i := range msgs {
		m := &msgs[i]
		nd := l.add(m)
		nodes.add(nd, m.Tokens)
		r.TotalChars += m.Cost
		r.TotalTokens += m.Tokens
		if opts.Observer != nil {
			opts.Observer.Observe(m, int(nd.owner))
		}
	}
	if units != nil {
		r.Units = units
	} else {
		r.Units = buildUnits(&nodes)
	}
	r.Messages = nil
	if !opts.SkipMessages {
		r.Messages = msgs
		linkAnswers(r.Messages, &nodes)
	}
	fs := r.Findings
	for _, f := range checks {
		if !opts.Disabled[f.Code] && limit.keep(f.Code, f.Line) {
			fs = append(fs, f)
		}
	}
	if limit != nil {
		r.Omitted = append(r.Omitted, limit.omitted...)
	}
	// The JSON level's file-too-large finding is already among them.
	opts.Disabled = withDisabled(opts.Disabled, CodeFileTooLarge)
	r.Findings = sizeAndBudget(r, opts, fs)
}

// withDisabled is disabled with code turned off too (a copy).
func withDisabled(disabled map[string]bool, code string) map[string]bool {
	out := make(map[string]bool, len(disabled)+1)
	for k, v := range disabled {
		out[k] = v
	}
	out[code] = true
	return out
}

package cli

import (
	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/config"
)

// budgetFlags are the budget flags budget and trim share: a character or
// a token budget, and the tokenizer. Each overrides its key of the file's
// configuration (budget, max-tokens, tokenizer).
type budgetFlags struct {
	// optional: no budget at all is fine (budget lists the units and
	// totals and cuts nothing); trim needs one.
	optional  bool
	maxChars  int64
	maxTokens int64
	tokens    bool // budget --tokens: count tokens without a token budget
	tokenizer string
	dialect   string // --dialect
}

func (f *budgetFlags) register(cmd *cobra.Command, withTokens bool) {
	fs := cmd.Flags()
	fs.Var(positive(&f.maxChars, "characters"), "budget", "the budget `N` in characters (positive; default: the budget of the file's sessionls.toml; --max-chars is its old spelling, still accepted)")
	fs.Var(positive(&f.maxTokens, "tokens"), "max-tokens", "the budget `N` in tokens (positive; instead of --budget): units are packed by their token counts, with the same rules (default: the max-tokens of the file's sessionls.toml)")
	if withTokens {
		fs.BoolVar(&f.tokens, "tokens", false, "count tokens too: per unit and in total (the text counted is JSON.stringify of each message, whose length is its cost)")
	}
	addDialectFlag(fs, &f.dialect)
	fs.StringVar(&f.tokenizer, "tokenizer", string(tokens.Default), "the `ENCODING` tokens are counted with: o200k_base or cl100k_base (implies --tokens; default: the tokenizer of the file's sessionls.toml)")
	aliasFlags(fs)
}

// resolve layers the flags over file's configuration and returns the
// engine options, the budget (in characters, or in tokens when
// opts.TokenBudget is set) and the file's dialect (nil: auto, detected
// when it is read). Without a budget flag, the configuration's budget
// applies, else its max-tokens.
func (f *budgetFlags) resolve(e *env, cf *configFlags, cmd *cobra.Command, file string) (analysis.Options, int64, dialect.Dialect, error) {
	fs := cmd.Flags()
	charsFlag := givenFlag(fs, "budget")
	chars, toks := charsFlag != "", fs.Changed("max-tokens")
	if chars && toks {
		return analysis.Options{}, 0, nil, usagef("%s and --max-tokens cannot be used together", charsFlag)
	}
	r, err := cf.resolver(e)
	if err != nil {
		return analysis.Options{}, 0, nil, err
	}
	s, err := settingsFor(r, file, file == "-")
	if err != nil {
		return analysis.Options{}, 0, nil, configFailed(e, err)
	}
	// A budget flag of one kind clears the other kind's configured budget.
	l := config.FlagLayer()
	switch {
	case chars:
		l.Set("budget", f.maxChars, "--budget")
		l.Set("max-tokens", int64(0), "--budget")
	case toks:
		l.Set("max-tokens", f.maxTokens, "--max-tokens")
		l.Set("budget", int64(0), "--max-tokens")
	}
	if fs.Changed("tokenizer") {
		l.Set("tokenizer", f.tokenizer, "--tokenizer")
	}
	if err := layerDialect(fs, f.dialect, &l); err != nil {
		return analysis.Options{}, 0, nil, err
	}
	s.Layer(l)
	d, err := settingDialect(s)
	if err != nil {
		return analysis.Options{}, 0, nil, configFailed(e, err)
	}
	opts := s.PackOptions()
	opts.SkipMessages = true
	budget := max(opts.Budget, opts.TokenBudget)
	if budget == 0 && !f.optional {
		return analysis.Options{}, 0, nil, usagef("--budget or --max-tokens is required (no budget or max-tokens in a sessionls.toml for %s)", file)
	}
	if opts.TokenBudget > 0 || f.tokens || fs.Changed("tokenizer") {
		enc, err := tokens.ParseEncoding(s.Tokenizer.V)
		if err != nil {
			return opts, 0, nil, usagef("--tokenizer: %v", err)
		}
		c, err := tokens.New(enc)
		if err != nil {
			return opts, 0, nil, err
		}
		opts.Tokens = c
	}
	return opts, budget, d, nil
}

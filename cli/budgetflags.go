package cli

import (
	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/tokens"
)

// budgetFlags are the budget flags budget and trim share: a character or
// a token budget, and the tokenizer. Each overrides its key of the file's
// configuration (budget, max-tokens, tokenizer).
type budgetFlags struct {
	// optional: no budget at all is fine (budget lists the units and
	// totals and cuts nothing); trim needs one.
	optional bool
	tokens   bool // budget --tokens: count tokens without a token budget
	settings *settingFlags
}

// register adds the flags that choose command's settings (--config,
// --isolated, and from config's table --budget, --max-tokens, --tokenizer,
// --dialect) and, withTokens, --tokens.
func (f *budgetFlags) register(cmd *cobra.Command, command string, withTokens bool) {
	fs := cmd.Flags()
	f.settings = addSettingFlags(fs, command)
	if withTokens {
		fs.BoolVar(&f.tokens, "tokens", false, "count tokens too: per unit and in total (the text counted is JSON.stringify of each message, whose length is its cost)")
	}
}

// resolve layers the flags over file's configuration and returns the
// engine options, the budget (in characters, or in tokens when
// opts.TokenBudget is set) and the file's dialect (nil: auto, detected
// when it is read). Without a budget flag, the configuration's budget
// applies, else its max-tokens.
func (f *budgetFlags) resolve(e *env, file string) (analysis.Options, int64, dialect.Dialect, error) {
	charsFlag := f.settings.given("budget")
	chars, toks := charsFlag != "", f.settings.given("max-tokens") != ""
	if chars && toks {
		return analysis.Options{}, 0, nil, usagef("%s and --max-tokens cannot be used together", charsFlag)
	}
	r, err := f.settings.resolver(e)
	if err != nil {
		return analysis.Options{}, 0, nil, err
	}
	s, err := settingsFor(r, file, file == "-")
	if err != nil {
		return analysis.Options{}, 0, nil, configFailed(e, err)
	}
	// A budget flag of one kind clears the other kind's configured budget.
	l := f.settings.layer()
	switch {
	case chars:
		l.Set("max-tokens", int64(0), "--budget")
	case toks:
		l.Set("budget", int64(0), "--max-tokens")
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
	if opts.TokenBudget > 0 || f.tokens || f.settings.given("tokenizer") != "" {
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

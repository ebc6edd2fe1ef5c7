package analysis

import (
	"errors"

	"github.com/sessionls/sessionls/internal/textfmt"
)

// The facts about a budget that every front end shows (the CLI's budget and
// check, the server's lenses, diagnostics and status): computed here, once,
// so that no two of them can disagree.

// MessageCount is the number of valid messages: Messages', or with
// Options.SkipMessages (Messages empty) the units'.
func (r *Report) MessageCount() int {
	if len(r.Messages) > 0 || len(r.Units) == 0 {
		return len(r.Messages)
	}
	return r.Units[len(r.Units)-1].Last + 1
}

// TrimmedMessages is how many messages the cutoff drops: those above the
// first kept line (blank lines are not messages); 0 without a cutoff.
func (r *Report) TrimmedMessages() int {
	if r.Cutoff == nil {
		return 0
	}
	return max(r.MessageCount()-r.Cutoff.KeptMessages, 0)
}

// MinBudget is the least budget trimContext accepts for the file: the
// newest unit's cost (it never skips that unit), in tokens when the budget
// is in tokens. ok is false when no budget works: the file does not load,
// or it holds no messages.
func (r *Report) MinBudget() (n int64, ok bool) {
	if !r.Loads() || len(r.Units) == 0 {
		return 0, false
	}
	u := r.Units[len(r.Units)-1]
	if r.budgetByTokens {
		return u.Tokens, true
	}
	return u.Chars, true
}

// BudgetErrorText is the runtime's error for the budget (CutoffErr, its
// own wording) and, when the budget is too small, the least budget that
// works: "context budget cannot contain the smallest consistent message
// unit; the least budget that works is 719". "" without an error.
func (r *Report) BudgetErrorText() string {
	if r.CutoffErr == nil {
		return ""
	}
	s := r.CutoffErr.Error()
	if n, ok := r.MinBudget(); ok && errors.Is(r.CutoffErr, ErrBudgetTooSmall) {
		s += "; the least budget that works is " + textfmt.Thousands(n)
	}
	return s
}

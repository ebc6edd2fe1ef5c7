package analysis

// Cut packs units from the newest as trimContext does for budget: it keeps
// units[c.FirstUnit:], stopping at the first unit (from the newest) that
// does not fit, never skipping it to take older ones.
//
// It fails with ErrEmptyContext when there are no units, and with
// ErrBudgetTooSmall when the newest unit alone exceeds the budget (a budget
// of zero or less cannot hold any message, as in the runtime). msgs are the
// messages the units index into; they give the first kept line.
func Cut(units []Unit, msgs []Message, budget int64) (Cutoff, error) {
	return cut(units, msgs, budget, false)
}

// CutTokens packs units by their tokens (Unit.Tokens) with exactly Cut's
// rules, for a budget in tokens.
func CutTokens(units []Unit, msgs []Message, budget int64) (Cutoff, error) {
	return cut(units, msgs, budget, true)
}

func cut(units []Unit, msgs []Message, budget int64, byTokens bool) (Cutoff, error) {
	c := Cutoff{Budget: budget, FirstUnit: len(units), ByTokens: byTokens}
	if len(units) == 0 {
		return c, ErrEmptyContext
	}
	if budget <= 0 {
		return c, ErrBudgetTooSmall
	}
	for k := len(units) - 1; k >= 0; k-- {
		u := units[k]
		size, kept := u.Chars, c.KeptChars
		if byTokens {
			size, kept = u.Tokens, c.KeptTokens
		}
		if kept+size > budget {
			if c.KeptUnits == 0 {
				return c, ErrBudgetTooSmall
			}
			break
		}
		c.KeptChars += u.Chars
		c.KeptTokens += u.Tokens
		c.KeptUnits++
		c.KeptMessages += u.Len()
		c.FirstUnit = k
	}
	first := units[c.FirstUnit]
	c.FirstKeptLine = first.StartLine
	if first.First >= 0 && first.First < len(msgs) {
		c.FirstKeptLine = msgs[first.First].Line
	}
	return c, nil
}

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
	c := Cutoff{Budget: budget, FirstUnit: len(units)}
	if len(units) == 0 {
		return c, ErrEmptyContext
	}
	if budget <= 0 {
		return c, ErrBudgetTooSmall
	}
	for k := len(units) - 1; k >= 0; k-- {
		u := units[k]
		if c.KeptChars+u.Chars > budget {
			if c.KeptUnits == 0 {
				return c, ErrBudgetTooSmall
			}
			break
		}
		c.KeptChars += u.Chars
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

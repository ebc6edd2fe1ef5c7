package cli

import (
	"fmt"
	"strconv"
)

// positiveFlag is an int64 flag that accepts only whole numbers >= 1, of
// its unit ("characters", "tokens"): the budgets.
type positiveFlag struct {
	v    *int64
	unit string
}

// positive is the flag that sets *v, a count of unit.
func positive(v *int64, unit string) *positiveFlag { return &positiveFlag{v: v, unit: unit} }

func (p *positiveFlag) String() string {
	if p.v == nil {
		return "0"
	}
	return strconv.FormatInt(*p.v, 10)
}

func (p *positiveFlag) Type() string { return "int" }

func (p *positiveFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return fmt.Errorf("want a positive whole number of %s", p.unit)
	}
	*p.v = n
	return nil
}

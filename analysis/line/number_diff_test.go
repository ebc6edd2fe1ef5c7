package line

import (
	"flag"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

var numDiffSeed = flag.Uint64("numdiff.seed", 0, "extra seed for TestDiffNodeNumbers (0: only the fixed seed)")

// logSize returns a length from lo to hi, uniform in its logarithm, so
// that short and long lengths are both common.
func logSize(r *rand.Rand, lo, hi int) int {
	return int(math.Round(float64(lo) * math.Pow(float64(hi)/float64(lo), r.Float64())))
}

// longLiterals returns number literals of 700 to 100,000 digits and
// exponents up to ±10^9 and past int64, in the classes where a reader that
// is not exact goes wrong.
func longLiterals(r *rand.Rand) []string {
	var lits []string
	for _, c := range longNumberCases() {
		lits = append(lits, c.lit)
	}
	z := func(n int) string { return strings.Repeat("0", n) }

	// Just below, at and just above the midpoints between neighbouring
	// doubles, subnormal to MaxFloat64, padded to 700–100,000 digits.
	doubles := interestingDoubles(r, 30)
	for range 10 {
		doubles = append(doubles, math.Float64frombits(r.Uint64()&(1<<52-1))) // subnormals
	}
	for _, a := range doubles {
		mid, point := midpoint(a)
		for side := -1; side <= 1; side++ {
			pad := logSize(r, 700, 100000)
			digits, point := mid, point
			switch side {
			case -1:
				digits, point = below(mid, point, pad)
			case 1:
				digits = above(mid, pad)
			}
			lits = append(lits, layout(r.IntN(6), r.IntN(2) == 0, digits, int64(point), pad*r.IntN(2)))
		}
	}

	// Random digits whose exponent balances their length, landing
	// anywhere in and just outside the double range.
	for range 80 {
		digits := randDigits(r, logSize(r, 700, 100000))
		if r.IntN(3) == 0 {
			digits = strings.TrimRight(digits, "0") + z(logSize(r, 1, 50000))
			digits = strings.TrimRight(digits, "0") + "1"
		}
		point := int64(r.IntN(660) - 335)
		lits = append(lits, layout(r.IntN(6), r.IntN(2) == 0, digits, point, logSize(r, 1, 100000)*r.IntN(2)))
	}

	// Huge exponents: ±10^9 and beyond int32 and int64, on mantissas
	// short, long, with leading zeros and zero itself.
	exps := []string{
		"1000000000", "999999999", "1000000001", "2147483647", "2147483648", "4294967296",
		"9223372036854775807", "9223372036854775808", "18446744073709551616", strings.Repeat("9", 30),
		strings.Repeat("1", 1000), z(1000) + "1000000000", "1" + z(99999),
	}
	mantissas := []string{
		"1", "0", "0.0", "1." + z(100000) + "1", "0." + z(99999) + "1", "0." + z(100000),
		randDigits(r, 100000), "9." + strings.Repeat("9", 5000), "1" + z(100000),
	}
	for _, e := range exps {
		for _, m := range mantissas {
			sign := []string{"", "-"}[r.IntN(2)]
			es := []string{"e", "E", "e+", "E+", "e-", "E-"}[r.IntN(6)]
			lits = append(lits, sign+m+es+e)
		}
	}

	// Zero however written.
	lits = append(lits, "-0", "-0.0", "0e0", "-0e-5", "0e999999999999", "-0."+z(100000),
		"-0.000e+1000000000", "0."+z(700)+"E-"+strings.Repeat("9", 40), "-0"+"e"+z(5000))

	// Long random literals with modest exponents: mostly out of range or
	// plainly inside it.
	for range 40 {
		lit := randDigits(r, logSize(r, 700, 100000))
		if r.IntN(2) == 0 {
			p := 1 + r.IntN(len(lit)-1)
			lit = lit[:p] + "." + lit[p:]
		}
		lit += "e" + strconv.Itoa(r.IntN(2001)-1000)
		if r.IntN(2) == 0 {
			lit = "-" + lit
		}
		lits = append(lits, lit)
	}
	return lits
}

// TestDiffNodeNumbers compares the cost of long and extreme number
// literals with node's: each literal is a call's input in a valid
// assistant line, so the line's cost counts JSON.stringify(JSON.parse(lit)).
func TestDiffNodeNumbers(t *testing.T) {
	node := oracle.Node(t)
	seeds := oracle.Seeds(*numDiffSeed, 12)
	var lits []string
	for _, s := range seeds {
		lits = append(lits, longLiterals(rand.New(rand.NewPCG(s, 0x8012)))...)
	}
	const prefix = `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":`
	const suffix = `}]}`
	lines := make([][]byte, len(lits))
	size := 0 // bytes of the file, line breaks included
	for i, lit := range lits {
		lines[i] = []byte(prefix + lit + suffix)
		size += len(lines[i]) + 1
	}
	want := oracle.AskLines(t, node, lines, 2*time.Minute)
	// The cost of the line with the literal 0, less its one character.
	base := Parse([]byte(prefix+"0"+suffix)).Cost - 1
	failures := 0
	for i, w := range want {
		got := Parse(lines[i])
		if w.Verdict != "valid" || w.Cost == nil {
			t.Fatalf("node does not take line %d as valid with a cost: %s %s", i+1, w.Verdict, w.Message)
		}
		// The reference is slow on the longest literals (big.Int reads
		// decimal in quadratic time); check it on the others.
		if ref := int64(numberLen(refNumber(lits[i]))); len(lits[i]) <= 20000 && ref != *w.Cost-base {
			t.Errorf("the tests' reference costs literal %d (%d bytes) %d, node %d", i, len(lits[i]), ref, *w.Cost-base)
		}
		if got.Verdict != Valid || got.Cost != *w.Cost {
			failures++
			if failures <= 20 {
				lit := lits[i]
				if len(lit) > 120 {
					lit = lit[:60] + "…" + lit[len(lit)-60:]
				}
				t.Errorf("literal %s (%d bytes): ours %v, costs %d; node's costs %d", lit, len(lits[i]), got.Verdict, got.Cost-base, *w.Cost-base)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d literals cost differently from node", failures, len(lits))
	}

	// The text, not only its length: what JSON.stringify writes for each
	// literal, which the token counts read.
	texts := oracle.AskStringify(t, node, lines, 2*time.Minute)
	failures = 0
	for i, w := range texts {
		if w.Text == nil {
			t.Fatalf("node does not stringify line %d", i+1)
		}
		got, err := AppendStringify(nil, lines[i])
		if err != nil || string(got) != *w.Text {
			failures++
			if failures <= 20 {
				lit := lits[i]
				if len(lit) > 120 {
					lit = lit[:60] + "…" + lit[len(lit)-60:]
				}
				t.Errorf("literal %s (%d bytes): we write %.200s (%v), node %.200s", lit, len(lits[i]), got, err, *w.Text)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d literals stringify differently from node", failures, len(lits))
	}
	t.Logf("%d literals, %d bytes, compared with node (cost and text)", len(lits), size)
}

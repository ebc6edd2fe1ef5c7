package line

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/allocs"
)

// numberCases: JSON.stringify(Number(lit)) in node 20, for each literal.
var numberCases = []struct{ lit, want string }{
	{"0", "0"},
	{"-0", "0"},
	{"1", "1"},
	{"-1", "-1"},
	{"100", "100"},
	{"20", "20"},
	{"-20", "-20"},
	{"-7", "-7"},
	{"0.1", "0.1"},
	{"1e21", "1e+21"},
	{"1e-7", "1e-7"},
	{"1.5e-7", "1.5e-7"},
	{"1e-6", "0.000001"},
	{"0.000001", "0.000001"},
	{"123456789012345678", "123456789012345680"},
	{"99999999999999999999", "100000000000000000000"},
	{"999999999999999999999", "1e+21"},
	{"1e400", "null"},
	{"-1e400", "null"},
	{"1e-400", "0"},
	{"5e-324", "5e-324"},
	{"1.7976931348623157e308", "1.7976931348623157e+308"},
	{"2.2250738585072014e-308", "2.2250738585072014e-308"},
	{"123.456e2", "12345.6"},
	{"1.0", "1"},
	{"2.50", "2.5"},
	{"1e+2", "100"},
	{"0e0", "0"},
	{"-0.0", "0"},
	{"0.30000000000000004", "0.30000000000000004"},
	{"1e20", "100000000000000000000"},
	{"1.2345e20", "123450000000000000000"},
	{"1.2345e21", "1.2345e+21"},
	{"12345678901234567890123", "1.2345678901234568e+22"},
	{"0.00001234", "0.00001234"},
	{"1.7976931348623159e308", "null"},
	{"4.35", "4.35"},
	{"9007199254740993", "9007199254740992"},
	{"-5e-7", "-5e-7"},
	{"1e100", "1e+100"},
	{"123e-20", "1.23e-18"},
	{"0.1e1", "1"},
	{"100e-2", "1"},
}

func TestFormatNumber(t *testing.T) {
	for _, c := range numberCases {
		f, err := strconv.ParseFloat(c.lit, 64)
		if err != nil && f == 0 && c.want != "0" {
			t.Fatalf("ParseFloat(%q): %v", c.lit, err)
		}
		if got := FormatNumber(f); got != c.want {
			t.Errorf("FormatNumber(%s) = %q, node prints %q", c.lit, got, c.want)
		}
		if got := numberCost([]byte(c.lit)); got != len(c.want) {
			t.Errorf("numberCost(%s) = %d, want %d", c.lit, got, len(c.want))
		}
	}
}

func TestNumberLen(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 12))
	check := func(f float64) {
		t.Helper()
		if got, want := numberLen(f), len(FormatNumber(f)); got != want {
			t.Fatalf("numberLen(%v) = %d, FormatNumber writes %q", f, got, FormatNumber(f))
		}
	}
	for _, c := range numberCases {
		f, _ := strconv.ParseFloat(c.lit, 64)
		check(f)
	}
	for _, f := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), math.MaxFloat64, -math.SmallestNonzeroFloat64} {
		check(f)
	}
	// Every power of ten and its neighbours crosses the layout switches.
	for e := -330; e <= 310; e++ {
		f, _ := strconv.ParseFloat("1e"+strconv.Itoa(e), 64)
		for _, g := range []float64{f, -f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1)), 1.5 * f, 123456789 * f} {
			check(g)
		}
	}
	for range 100000 {
		check(math.Float64frombits(r.Uint64()))
		check(float64(r.IntN(2000000)-1000000) / 1000)
	}
}

// longNumberCases are the literal classes that strconv.ParseFloat misreads
// (issue 8, item 12) and the edges of the double range, with node 20's
// JSON.stringify(JSON.parse(lit)) (TestDiffNodeNumbers checks them).
func longNumberCases() []struct{ name, lit, want string } {
	z := func(n int) string { return strings.Repeat("0", n) }
	nines := func(n int) string { return strings.Repeat("9", n) }
	digits := strings.Repeat("1234567890", 100)
	// The midpoint between MaxFloat64 and 2^1024, an integer of 309 digits.
	maxMid := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 970)).String()
	return []struct{ name, lit, want string }{
		// More than 800 digits before the point: ParseFloat's decimal puts
		// the point after the 800th digit.
		{"exactly 1 in 801 digits", "1" + z(800) + "e-800", "1"},
		{"exactly -1 in 901 digits", "-1" + z(900) + "e-900", "-1"},
		{"801 nines", nines(801) + "e-801", "1"},
		{"1000 digits e-999", digits + "e-999", "1.2345678901234567"},
		{"1000 digits e-1000", digits + "e-1000", "0.12345678901234568"},
		{"1000 digits e-1010", digits + "e-1010", "1.2345678901234568e-11"},
		{"point after 900 digits", digits[:900] + ".5e-899", "1.2345678901234567"},
		{"100,000 digits e-100000", "1" + z(100000) + "e-100000", "1"},
		// Exponents past ParseFloat's 10,000 balanced by leading zeros.
		{"0.(99,999 zeros)1e100000", "0." + z(99999) + "1e100000", "1"},
		{"0.(100,000 zeros)1e100000", "0." + z(100000) + "1e100000", "0.1"},
		{"0.(100,000 zeros)5e100006", "0." + z(100000) + "5e100006", "500000"},
		{"leading zeros, -0.(20,000 zeros)25e20000", "-0." + z(20000) + "25e20000", "-0.25"},
		{"0.(12,000 zeros)1E+12300", "0." + z(12000) + "1E+12300", "1e+299"},
		{"0.(12,000 zeros)1e12400", "0." + z(12000) + "1e12400", "null"},
		// Exponents beyond int32 and int64.
		{"1e+(30 nines)", "1e+" + nines(30), "null"},
		{"1e-(30 nines)", "1e-" + nines(30), "0"},
		{"-1e(30 nines)", "-1e" + nines(30), "null"},
		{"1e2147483648", "1e2147483648", "null"},
		{"1e-9223372036854775809", "1e-9223372036854775809", "0"},
		{"1e18446744073709551617", "1e18446744073709551617", "null"},
		{"exponent with 1000 leading zeros", "1.5e-" + z(1000) + "3", "0.0015"},
		{"0.(1000 zeros)1e(25 nines)", "0." + z(1000) + "1e" + nines(25), "null"},
		{"0.(1000 zeros)1e-(25 nines)", "0." + z(1000) + "1e-" + nines(25), "0"},
		// Zero however written.
		{"-0.(1000 zeros)", "-0." + z(1000), "0"},
		{"0.(1000 zeros)e(25 nines)", "0." + z(1000) + "e" + nines(25), "0"},
		{"-0e-(30 nines)", "-0e-" + nines(30), "0"},
		// Trailing zeros.
		{"1.(1000 zeros)", "1." + z(1000), "1"},
		{"1.(1000 zeros)1", "1." + z(1000) + "1", "1"},
		// Subnormals and the ends of the range.
		{"5e-324 with 1000 zeros", "5" + z(1000) + "e-1324", "5e-324"},
		{"2.47…e-324, just over half the least subnormal", "2.4703282292062328" + z(900) + "e-324", "5e-324"},
		{"2.47…e-324, just under half the least subnormal", "2.4703282292062327" + z(900) + "e-324", "0"},
		{"MaxFloat64 with 1000 digits", "1.7976931348623157" + z(1000) + "e308", "1.7976931348623157e+308"},
		{"just under the midpoint above MaxFloat64", maxMid[:len(maxMid)-1] + "1." + nines(800), "1.7976931348623157e+308"},
		{"the midpoint above MaxFloat64", maxMid + "." + z(800), "null"},
		{"just over the midpoint above MaxFloat64", maxMid + z(800) + "1e-800", "null"},
		{"MaxFloat64 × 10", "17.976931348623157" + z(900) + "e308", "null"},
	}
}

func TestNumberCostLong(t *testing.T) {
	for _, c := range longNumberCases() {
		t.Run(c.name, func(t *testing.T) {
			f := parseNumber([]byte(c.lit))
			if got := FormatNumber(f); got != c.want {
				t.Errorf("parseNumber reads %.60s… (%d bytes) as %s, node as %s", c.lit, len(c.lit), got, c.want)
			}
			if got := numberCost([]byte(c.lit)); got != len(c.want) {
				t.Errorf("numberCost = %d, want %d (%s)", got, len(c.want), c.want)
			}
		})
	}
}

// TestNumberCostMidpoints writes the exact midpoints between neighbouring
// doubles, a hair below, exactly and a hair above, in every layout and at
// lengths from a few digits to thousands, and checks the round to nearest,
// ties to even.
func TestNumberCostMidpoints(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1212))
	for _, a := range interestingDoubles(r, 12) {
		mid, point := midpoint(a)
		for _, pad := range []int{0, 1, 800, 3000} {
			for side := -1; side <= 1; side++ {
				digits, point := mid, point
				switch side {
				case -1:
					digits, point = below(mid, point, 1+pad%7)
				case 1:
					digits = above(mid, pad)
				}
				for shape := range 6 {
					for _, neg := range []bool{false, true} {
						lit := layout(shape, neg, digits, int64(point), pad)
						want := roundsTo(a, side)
						if neg {
							want = -want
						}
						if got := parseNumber([]byte(lit)); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
							t.Fatalf("parseNumber(%.100s… %d bytes) = %v, want %v (side %d of the midpoint after %v)", lit, len(lit), got, want, side, a)
						}
						if got := numberCost([]byte(lit)); got != numberLen(want) {
							t.Fatalf("numberCost(%.100s… %d bytes) = %d, want %d (%s)", lit, len(lit), got, numberLen(want), FormatNumber(want))
						}
					}
				}
			}
		}
	}
}

// TestParseNumberShort: on literals short enough for strconv.ParseFloat
// to read them right, parseNumber agrees with it.
func TestParseNumberShort(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 121212))
	for _, c := range numberCases {
		want, _ := strconv.ParseFloat(c.lit, 64)
		if got := parseNumber([]byte(c.lit)); got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("parseNumber(%s) = %v, ParseFloat %v", c.lit, got, want)
		}
	}
	for range 200000 {
		var lit string
		switch r.IntN(3) {
		case 0:
			f := math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			lit = strconv.FormatFloat(f, "eEf"[r.IntN(3)], r.IntN(25)-1, 64)
			if strings.HasPrefix(strings.TrimPrefix(lit, "-"), "0") && len(lit) > 60 {
				continue
			}
		default:
			lit = randDigits(r, 1+r.IntN(25))
			if r.IntN(2) == 0 {
				lit = "-" + lit
			}
			if r.IntN(2) == 0 {
				lit += "." + strings.Repeat("0", r.IntN(5)) + randDigits(r, r.IntN(20))
				lit = strings.TrimSuffix(lit, ".")
			}
			if r.IntN(2) == 0 {
				lit += []string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)] + strconv.Itoa(r.IntN(700))
			}
		}
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil && !errorsIsRange(err) {
			t.Fatalf("ParseFloat(%s): %v", lit, err)
		}
		if got := parseNumber([]byte(lit)); got != want {
			t.Fatalf("parseNumber(%s) = %v, ParseFloat %v", lit, got, want)
		}
		if got := numberCost([]byte(lit)); got != numberLen(want) {
			t.Fatalf("numberCost(%s) = %d, want %d", lit, got, numberLen(want))
		}
	}
}

func errorsIsRange(err error) bool { return errors.Is(err, strconv.ErrRange) }

// TestNumberCostHuge: literals of megabytes are read in one pass, without
// a copy of them.
func TestNumberCostHuge(t *testing.T) {
	n := hugeSize()
	z := strings.Repeat("0", n)
	nines := strings.Repeat("9", n)
	const prefix = `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":`
	const suffix = `}]}`
	cases := []struct {
		name  string
		parts []string // the literal, written in one buffer when its case runs
		want  string
	}{
		{"leading zeros balanced by the exponent", []string{"0.", z, "1e+", strconv.Itoa(n + 1)}, "1"},
		{"trailing zeros balanced by the exponent", []string{"-1", z, "e-", strconv.Itoa(n)}, "-1"},
		{"a megabytes-long exponent", []string{"1e", nines}, "null"},
		{"a megabytes-long negative exponent", []string{"1.5e-", nines}, "0"},
		{"megabytes of nines", []string{"0.", nines, "e1"}, "10"},
		{"megabytes of nines, the last one off", []string{"0.", nines[:n-1], "8e", strconv.Itoa(-n)}, "0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			b.Grow(len(prefix) + n + 64 + len(suffix))
			b.WriteString(prefix)
			for _, p := range c.parts {
				b.WriteString(p)
			}
			b.WriteString(suffix)
			line := b.Bytes()
			lit := line[len(prefix) : len(line)-len(suffix)]
			var got int
			alloc := allocs.Once(func() { got = numberCost(lit) })
			if got != len(c.want) {
				t.Errorf("numberCost = %d, want %d (%s)", got, len(c.want), c.want)
			}
			if f := FormatNumber(parseNumber(lit)); f != c.want {
				t.Errorf("read as %s, want %s", f, c.want)
			}
			if alloc > 4<<10 {
				t.Errorf("allocated %d bytes for a %d-byte literal, want at most 4 KiB", alloc, len(lit))
			}
			want := Parse([]byte(prefix + c.want + suffix))
			if r := Parse(line); r.Verdict != Valid || r.Cost != want.Cost {
				t.Errorf("in a line: got %v cost %d, want valid cost %d", r.Verdict, r.Cost, want.Cost)
			}
		})
	}
}

// TestNumberCostInLine: the cost of a message counts a long literal as the
// number node prints for it.
func TestNumberCostInLine(t *testing.T) {
	const prefix = `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":`
	const suffix = `}]}`
	for _, c := range []struct{ lit, prints string }{
		{"1" + strings.Repeat("0", 800) + "e-800", "1"},
		{"-0." + strings.Repeat("0", 99999) + "125e100001", "-1.25"},
		{"0.99999999999999999999999999" + strings.Repeat("9", 5000), "1"},
	} {
		want := Parse([]byte(prefix + c.prints + suffix))
		r := Parse([]byte(prefix + c.lit + suffix))
		if r.Verdict != Valid || r.Cost != want.Cost {
			t.Errorf("input %.40s… (%d bytes): got %v cost %d, want valid cost %d (as %s)", c.lit, len(c.lit), r.Verdict, r.Cost, want.Cost, c.prints)
		}
	}
}

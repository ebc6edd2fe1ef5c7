package textfmt

import (
	"math"
	"testing"
)

func TestThousands(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"},
		{100000, "100,000"}, {1234567, "1,234,567"}, {-1234, "-1,234"}, {-999, "-999"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		if got := Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := string(AppendThousands([]byte("x="), 4096)); got != "x=4,096" {
		t.Errorf("AppendThousands = %q", got)
	}
}

func TestPluralAndLineRange(t *testing.T) {
	if got := Plural(1, "message", "messages"); got != "1 message" {
		t.Errorf("Plural(1) = %q", got)
	}
	if got := Plural(int64(0), "message", "messages"); got != "0 messages" {
		t.Errorf("Plural(0) = %q", got)
	}
	if got := Plural(2048, "unit", "units"); got != "2,048 units" {
		t.Errorf("Plural(2048) = %q", got)
	}
	if got := LineRange(3, 3); got != "line 3" {
		t.Errorf("LineRange(3, 3) = %q", got)
	}
	if got := LineRange(3, 7); got != "lines 3–7" {
		t.Errorf("LineRange(3, 7) = %q", got)
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		prefix, text string
		width        int
		indent, want string
	}{
		{"  key ", "one two three", 14, "      ", "  key one two\n      three"},
		{"  key ", "", 14, "      ", "  key "},
		{"head\n  ", "a b", 80, "  ", "head\n  a b"},
		{"", "averyveryverylongword x", 5, "-", "averyveryverylongword\n-x"},
		{"  ", "`a`, `b`, `c`", 11, "  ", "  `a`, `b`,\n  `c`"},
	}
	for _, tt := range tests {
		if got := Wrap(tt.prefix, tt.text, tt.width, tt.indent); got != tt.want {
			t.Errorf("Wrap(%q, %q, %d, %q) = %q, want %q", tt.prefix, tt.text, tt.width, tt.indent, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	got, err := JSON(map[string]string{"m": "a <b> & c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"m":"a <b> & c"}`; string(got) != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

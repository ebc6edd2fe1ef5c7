package textfmt

import "testing"

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain «text» 🎉", "plain «text» 🎉"},
		{"a\x1b[31mb\nc", `a\x1b[31mb\x0ac`},
		{"x\xffy", "x\uFFFDy"},
		{"c1 \u0085 del \x7f", `c1 \x85 del \x7f`},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package textfmt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sanitize makes a path, a name or a message safe to show: control
// characters (a hostile file may put them in a message quoting it) and C1
// controls are written as \xNN escapes instead of being interpreted, on a
// terminal or in a page. Text without them comes back as it is.
func Sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

package config

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds on a configuration file, checked before it is decoded: the file
// is hostile input (a cloned repository's), and the language server reads
// it for every document under it. Each costs the parser linear time and
// memory within them; past one the file is refused with an error at the
// place it was found.
const (
	// MaxDepth is how deeply arrays and inline tables (and table headers'
	// brackets) may nest. The schema needs 3 (overrides = [{files = [...]}]).
	MaxDepth = 16
	// MaxKeyLen is the longest key, in bytes of the file, dotted parts and
	// quotes included. The schema's longest is 10.
	MaxKeyLen = 128
	// MaxOverrides is the number of [[overrides]] tables.
	MaxOverrides = 64
	// MaxGlobBytes bounds the bytes of every glob of the file together
	// (files, exclude and each override's files): matching a path against
	// all of them costs at most about this × the path's length.
	MaxGlobBytes = 16 << 10
)

// bom is the UTF-8 byte order mark, which TOML allows at the start of a
// file (Notepad writes one).
var bom = []byte("\xef\xbb\xbf")

// stripBOM drops a leading byte order mark: positions in errors are then
// counted from the first character after it, as editors count them.
func stripBOM(data []byte) []byte {
	return bytes.TrimPrefix(data, bom)
}

// scanDepth finds the first place where arrays, inline tables and table
// headers' brackets nest deeper than MaxDepth, and returns its byte
// offset, or -1. It reads strings and comments as TOML does, so brackets
// inside them do not count; it decides nothing else (the TOML parser
// reports what is wrong with an invalid file). One pass, no allocation:
// it runs before the parser, whose recursion it bounds.
func scanDepth(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipString(data, i) - 1
		case '[', '{':
			depth++
			if depth > MaxDepth {
				return i
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return -1
}

// skipString returns the offset just after the string that starts at
// data[i] (a quote): basic "…" (backslash escapes), literal '…', and their
// multi-line forms, whose closing delimiter may be preceded by up to two
// more quotes of the same kind. An unterminated string ends at the end of
// its line (single-line) or of the file (multi-line).
func skipString(data []byte, i int) int {
	q := data[i]
	escapes := q == '"'
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	open := 1
	if multi {
		open = 3
	}
	for j := i + open; j < len(data); j++ {
		switch data[j] {
		case '\\':
			if escapes {
				j++
			}
		case q:
			if !multi {
				return j + 1
			}
			if j+2 < len(data) && data[j+1] == q && data[j+2] == q {
				j += 3
				// """" or """"": the quotes before the last three are
				// the string's.
				for k := 0; k < 2 && j < len(data) && data[j] == q; k++ {
					j++
				}
				return j
			}
		case '\n':
			if !multi {
				return j
			}
		}
	}
	return len(data)
}

// byteMessage rewrites a TOML parser message about the character at
// data[off]: the parser names the first byte there as if it were a
// Latin-1 character ("U+00FF 'ÿ'"). A byte that is not UTF-8 is named as
// a byte ("byte 0xFF (not UTF-8)"); a character of several bytes by its
// own name ("U+00FF 'ÿ'" for the bytes C3 BF, not "U+00C3 'Ã'").
func byteMessage(msg string, data []byte, off int) string {
	if off < 0 || off >= len(data) || data[off] < utf8.RuneSelf {
		return msg
	}
	b := data[off]
	latin1 := fmt.Sprintf("%#U", rune(b)) // "U+00FF 'ÿ'", or "U+0080" when not printable
	r, w := utf8.DecodeRune(data[off:])
	if r == utf8.RuneError && w == 1 {
		return strings.ReplaceAll(msg, latin1, fmt.Sprintf("byte 0x%02X (not UTF-8)", b))
	}
	return strings.ReplaceAll(msg, latin1, fmt.Sprintf("%#U", r))
}

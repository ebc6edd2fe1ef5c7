package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/sessionls/sessionls/internal/jsonscan"
)

// serdeDepthLimit is serde_json's recursion limit: its deserializer starts
// with remaining_depth 128 and fails when an array or object brings it to
// 0, so 127 levels parse and 128 do not (docs/semantics.md, "Codex CLI").
const serdeDepthLimit = 127

// serdeRejects says why serde_json::from_str::<Value> fails on a line that
// JSON.parse accepts, or "" when it parses it too. The grammar is the same
// (RFC 8259, no extensions, the same four whitespace characters); serde_json
// differs in three ways: its recursion limit, a \u escape of a lone UTF-16
// surrogate (JSON.parse makes a lone surrogate of it; a Rust String cannot
// hold one), and a number beyond a double's range (JSON.parse makes it
// Infinity; serde_json says "number out of range"). l is known to be valid
// JSON, so the scan only follows strings and brackets.
func serdeRejects(l []byte) string {
	depth := 0
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == '"':
			j, why := scanString(l, i+1)
			if why != "" {
				return why
			}
			i = j
		case c == '[' || c == '{':
			depth++
			if depth > serdeDepthLimit {
				return fmt.Sprintf("nested more than %d levels deep (serde_json's recursion limit)", serdeDepthLimit)
			}
		case c == ']' || c == '}':
			depth--
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(l) && (l[j] == '-' || l[j] == '+' || l[j] == '.' || l[j] == 'e' || l[j] == 'E' || (l[j] >= '0' && l[j] <= '9')) {
				j++
			}
			if !serdeNumber(l[i:j]) {
				return fmt.Sprintf("the number %.40s is beyond a double's range as serde_json computes it (number out of range)", l[i:j])
			}
			i = j - 1
		}
	}
	return ""
}

// scanString scans a string whose content begins at l[i] and returns the
// index of its closing quote, or why serde_json refuses its escapes.
func scanString(l []byte, i int) (int, string) {
	for ; i < len(l); i++ {
		switch l[i] {
		case '"':
			return i, ""
		case '\\':
			i++
			if i >= len(l) || l[i] != 'u' {
				continue
			}
			u := hex4(l, i+1)
			i += 4
			switch {
			case u >= 0xDC00 && u <= 0xDFFF:
				return i, fmt.Sprintf(`a lone low surrogate \u%04X (serde_json cannot hold it in a string)`, u)
			case u >= 0xD800 && u <= 0xDBFF:
				if i+6 < len(l) && l[i+1] == '\\' && l[i+2] == 'u' {
					if v := hex4(l, i+3); v >= 0xDC00 && v <= 0xDFFF {
						i += 6
						continue
					}
				}
				return i, fmt.Sprintf(`a lone high surrogate \u%04X (serde_json cannot hold it in a string)`, u)
			}
		}
	}
	return i, ""
}

func hex4(l []byte, i int) int {
	if i+4 > len(l) {
		return -1
	}
	v, err := strconv.ParseUint(string(l[i:i+4]), 16, 32)
	if err != nil {
		return -1
	}
	return int(v)
}

// obj is a JSON object's members, raw; a repeated key keeps its last value,
// as serde_json's Value map does.
type obj map[string]json.RawMessage

func object(raw json.RawMessage) (obj, bool) {
	at := jsonscan.SkipWS(raw, 0)
	if at >= len(raw) || raw[at] != '{' {
		return nil, false
	}
	o := obj{}
	closed := jsonscan.Each(raw, at, func(i int) int {
		if raw[i] != '"' {
			return -1
		}
		kEnd := jsonscan.StringEnd(raw, i+1)
		if kEnd < 0 {
			return -1
		}
		key, ok := decodeString(raw[i : kEnd+1])
		if !ok {
			return -1
		}
		i = jsonscan.SkipWS(raw, kEnd+1)
		if i >= len(raw) || raw[i] != ':' {
			return -1
		}
		vStart := jsonscan.SkipWS(raw, i+1)
		vEnd := jsonscan.SkipValue(raw, vStart)
		if vEnd < 0 {
			return -1
		}
		o[key] = raw[vStart:vEnd]
		return vEnd
	})
	if !closed {
		return nil, false
	}
	return o, true
}

// elements returns a JSON array's elements, raw.
func elements(raw json.RawMessage) ([]json.RawMessage, bool) {
	at := jsonscan.SkipWS(raw, 0)
	if at >= len(raw) || raw[at] != '[' {
		return nil, false
	}
	var out []json.RawMessage
	closed := jsonscan.Each(raw, at, func(i int) int {
		end := jsonscan.SkipValue(raw, i)
		if end < 0 {
			return -1
		}
		out = append(out, raw[i:end])
		return end
	})
	if !closed {
		return nil, false
	}
	return out, true
}

// decodeString decodes a string literal (quotes included).
func decodeString(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1]), true
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return "", false
	}
	return s, true
}

// str returns member k as a string, and whether it is one.
func (o obj) str(k string) (string, bool) {
	raw, ok := o[k]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	return decodeString(raw)
}

// kindOf is the JSON kind of member k: '"', '{', '[', 'n' (null), 'b', '0',
// or 0 when absent.
func (o obj) kindOf(k string) byte {
	raw, ok := o[k]
	if !ok || len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; c {
	case '"', '{', '[':
		return c
	case 'n':
		return 'n'
	case 't', 'f':
		return 'b'
	}
	return '0'
}

// need checks that the members ks are strings.
func (o obj) needStrings(what string, ks ...string) string {
	for _, k := range ks {
		if _, ok := o.str(k); !ok {
			return fmt.Sprintf("%s needs a string %q", what, k)
		}
	}
	return ""
}

// optString: absent, null or a string (serde's Option<String>).
func (o obj) optString(what, k string) string {
	if c := o.kindOf(k); c != 0 && c != 'n' && c != '"' {
		return fmt.Sprintf("%s.%s must be a string or null", what, k)
	}
	return ""
}

// width16 is the length of b in UTF-16 code units (b is valid UTF-8): a
// unit per character, two for one beyond the BMP (a 4-byte sequence).
func width16(b []byte) int64 {
	n := int64(utf8.RuneCount(b))
	for _, c := range b {
		if c >= 0xF0 {
			n++
		}
	}
	return n
}

// serdeNumber reports whether serde_json (its default features: no
// float_roundtrip, no arbitrary_precision) reads the number literal lit,
// valid JSON, without "number out of range". It follows serde_json's
// de.rs step for step (parse_integer, parse_long_integer, parse_decimal,
// parse_decimal_overflow, parse_exponent, parse_exponent_overflow,
// f64_from_parts): digits gather into a u64 significand while it fits,
// later ones only move the exponent, and the value is the significand as a
// double multiplied or divided by a power of ten, which is not correctly
// rounded: 1.7976931348623158e308, a finite double to JSON.parse and
// strconv, overflows there.
func serdeNumber(lit []byte) bool {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	digit := func(k int) bool { return k < len(lit) && lit[k] >= '0' && lit[k] <= '9' }
	const maxU = math.MaxUint64
	var sig uint64
	exp := int64(0) // digits dropped from a long integer
	if digit(i) && lit[i] == '0' {
		i++
	} else {
		for digit(i) {
			d := uint64(lit[i] - '0')
			if sig >= maxU/10 && (sig > maxU/10 || d > maxU%10) {
				for digit(i) { // parse_long_integer
					exp++
					i++
				}
				break
			}
			sig = sig*10 + d
			i++
		}
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		for digit(i) {
			d := uint64(lit[i] - '0')
			if sig >= maxU/10 && (sig > maxU/10 || d > maxU%10) {
				for digit(i) { // parse_decimal_overflow
					i++
				}
				break
			}
			sig = sig*10 + d
			exp--
			i++
		}
	}
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		positive := true
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			positive = lit[i] == '+'
			i++
		}
		var e int64
		for digit(i) {
			d := int64(lit[i] - '0')
			if e >= math.MaxInt32/10 && (e > math.MaxInt32/10 || d > math.MaxInt32%10) {
				// parse_exponent_overflow: an error unless the value is 0.
				return sig == 0 || !positive
			}
			e = e*10 + d
			i++
		}
		if positive {
			exp += e
		} else {
			exp -= e
		}
		exp = max(min(exp, math.MaxInt32), math.MinInt32) // saturating i32
	} else if exp == 0 && !bytes.ContainsAny(lit, ".") {
		return true // an integer: u64, i64 or -(sig as f64), all finite
	}
	return fromParts(sig, exp)
}

// fromParts is serde_json's f64_from_parts: false for number out of range.
func fromParts(sig uint64, exp int64) bool {
	pow := pow10()
	f := float64(sig) // round to nearest, ties to even, as Rust's `as f64`
	for {
		a := exp
		if a < 0 {
			a = -a
		}
		if a < int64(len(pow)) {
			if exp >= 0 {
				f *= pow[a]
				return !math.IsInf(f, 0)
			}
			f /= pow[a]
			return true
		}
		if f == 0 {
			return true
		}
		if exp >= 0 {
			return false
		}
		f /= 1e308
		exp += 308
	}
}

// pow10 is serde_json's POW10 table, 1e0 to 1e308, each the double nearest
// its power of ten (Rust's float literals; strconv.ParseFloat rounds the
// same way, where math.Pow10 need not).
var pow10 = sync.OnceValue(func() []float64 {
	t := make([]float64, 309)
	for k := range t {
		t[k], _ = strconv.ParseFloat("1e"+strconv.Itoa(k), 64)
	}
	return t
})

package claude

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/sessionls/sessionls/internal/jsonscan"
)

// A small reader of JSON text that JSON.parse has accepted (the engine's
// JSON-only pass checked every line first): it finds members and elements
// and their byte ranges without building values, so that findings and
// fixes can point at the bytes of an id or a content block. It never
// panics on any input (a bad input gives wrong ranges, not a crash), and
// it never recurses: nesting is walked with a counter.

// skipValue returns the offset just past the value that starts at b[i]:
// len(b) when it does not end within b, and i when b[i] is a delimiter.
func skipValue(b []byte, i int) int {
	if e := jsonscan.SkipValue(b, i); e >= 0 {
		return e
	}
	if i < len(b) && jsonscan.IsDelim(b[i]) {
		return i
	}
	return len(b)
}

// span is a value's bytes, b[start:end]; the zero span is no value.
type span struct{ start, end int }

// members calls fn for each member of the object at b[at] (key literal
// with its quotes, value span); a repeated key is shown each time (the
// last one is JSON.parse's value). It does nothing when b[at] is no '{',
// and stops at the first thing out of place.
func members(b []byte, at int, fn func(key []byte, v span)) {
	if at >= len(b) || b[at] != '{' {
		return
	}
	jsonscan.Each(b, at, func(i int) int {
		if b[i] != '"' {
			return -1
		}
		ke := jsonscan.StringEnd(b, i+1)
		if ke < 0 {
			return -1
		}
		key := b[i : ke+1]
		i = jsonscan.SkipWS(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		vs := jsonscan.SkipWS(b, i+1)
		ve := skipValue(b, vs)
		fn(key, span{vs, ve})
		return ve
	})
}

// elements calls fn for each element of the array at b[at].
func elements(b []byte, at int, fn func(k int, v span)) {
	if at >= len(b) || b[at] != '[' {
		return
	}
	k := 0
	jsonscan.Each(b, at, func(i int) int {
		if b[i] == ']' {
			return -1 // after a trailing ','
		}
		ve := skipValue(b, i)
		fn(k, span{i, ve})
		k++
		return ve
	})
}

// object holds the members of an object, in order; a lookup takes the
// last of a repeated key, as JSON.parse does. Keys are compared as written
// (the keys this package reads are plain ASCII; a key written with escapes
// is decoded first).
type object []member

type member struct {
	key []byte // the key's characters (without quotes), decoded if escaped
	v   span
}

func objectAt(b []byte, at int) object { return objectIn(b, at, nil) }

// objectIn is objectAt appending to arena's spare capacity, so that the
// objects of one record share one allocation.
func objectIn(b []byte, at int, arena *object) object {
	var o object
	if arena != nil {
		o = (*arena)[len(*arena):len(*arena)]
		defer func() { *arena = (*arena)[:len(*arena)+min(len(o), cap(*arena)-len(*arena))] }()
	}
	members(b, at, func(key []byte, v span) {
		k := key[1 : len(key)-1]
		if bytes.IndexByte(k, '\\') >= 0 {
			k = []byte(decodeKey(key))
		}
		o = append(o, member{k, v})
	})
	return o
}

// get is the value of key (the last one), and false when absent.
func (o object) get(key string) (span, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].key) == key {
			return o[i].v, true
		}
	}
	return span{}, false
}

// decodeKey decodes a key literal; the keys this package reads are plain
// ASCII, so the common case takes no decoding.
func decodeKey(lit []byte) string {
	if len(lit) >= 2 {
		plain := true
		for _, c := range lit[1 : len(lit)-1] {
			if c == '\\' || c >= utf8.RuneSelf {
				plain = false
				break
			}
		}
		if plain {
			return string(lit[1 : len(lit)-1])
		}
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return string(lit)
	}
	return s
}

// str is the decoded string at v, and false when v is no string. Invalid
// UTF-8 and lone surrogate escapes decode to U+FFFD (the ids this package
// compares are ASCII in practice; two ids differing only there compare
// equal).
func (o object) str(b []byte, key string) (string, span, bool) {
	v, ok := o.get(key)
	if !ok || v.start >= len(b) || b[v.start] != '"' {
		return "", span{}, false
	}
	return decodeKey(b[v.start:v.end]), v, true
}

// isTrue reports whether key's value is the literal true.
func (o object) isTrue(b []byte, key string) bool {
	v, ok := o.get(key)
	return ok && v.end-v.start == 4 && string(b[v.start:v.end]) == "true"
}

// number is the value of key as an integer count (0 when absent or not a
// non-negative number that fits).
func (o object) number(b []byte, key string) int64 {
	v, ok := o.get(key)
	if !ok || v.start >= len(b) {
		return 0
	}
	lit := unsafe.String(unsafe.SliceData(b[v.start:v.end]), v.end-v.start)
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return max(n, 0)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || f < 0 || f > 1<<53 {
		return 0
	}
	return int64(f)
}

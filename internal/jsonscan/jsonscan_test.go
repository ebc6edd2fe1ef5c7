package jsonscan

import (
	"slices"
	"testing"
)

func TestSkipValue(t *testing.T) {
	tests := []struct {
		in   string
		at   int
		want int
	}{
		{`"abc",1`, 0, 5},
		{`"a\"b"`, 0, 6},
		{`"a\\"b`, 0, 5},
		{`"a\\\"b"`, 0, 8},
		{`"abc`, 0, -1},
		{`"abc\`, 0, -1},
		{`{"a":[1,{"b":"}"}]} x`, 0, 19},
		{`[1,[2,[3]]]`, 0, 11},
		{`[1,"]"`, 0, -1},
		{`{"a":"b`, 0, -1},
		{`-1.5e3,`, 0, 6},
		{`true}`, 0, 4},
		{`null`, 0, 4},
		{`,`, 0, -1},
		{` 1`, 0, -1},
		{`1`, 1, -1},
		{`x`, 5, -1},
	}
	for _, tt := range tests {
		if got := SkipValue([]byte(tt.in), tt.at); got != tt.want {
			t.Errorf("SkipValue(%q, %d) = %d, want %d", tt.in, tt.at, got, tt.want)
		}
	}
}

func TestStringEnd(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`"ab"`, 3},
		{`"a\"b"`, 5},
		{`"a\\"`, 4},
		{`"\\\\\"x"`, 8},
		{`"ab`, -1},
		{`"a\"`, -1},
	}
	for _, tt := range tests {
		if got := StringEnd([]byte(tt.in), 1); got != tt.want {
			t.Errorf("StringEnd(%q, 1) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestEach: the items Each visits (their text, from the offset item gets
// to the one it returns) and whether the brackets closed.
func TestEach(t *testing.T) {
	tests := []struct {
		in     string
		items  []string
		closed bool
	}{
		{`[]`, nil, true},
		{`[ ]`, nil, true},
		{`{ }`, nil, true},
		{`[1, "a" ,{"b":[2]}]`, []string{`1`, `"a"`, `{"b":[2]}`}, true},
		{`{"a":1,"b":2}`, []string{`"a":1`, `"b":2`}, true},
		{`[1,2`, []string{`1`, `2`}, false},
		{`[1 2]`, []string{`1`}, false},
		{`[1,]`, []string{`1`}, false}, // item refuses the ']'
		{`[1}`, []string{`1`}, false},
		{`{"a":1]`, []string{`"a":1`}, false},
		{`1`, nil, false},
		{``, nil, false},
	}
	for _, tt := range tests {
		b := []byte(tt.in)
		var items []string
		closed := Each(b, 0, func(i int) int {
			end := SkipValue(b, i)
			if end >= 0 && b[i] == '"' && b[0] == '{' { // a member: key, ':', value
				end = SkipValue(b, SkipWS(b, end+1))
			}
			if end < 0 {
				return -1
			}
			items = append(items, string(b[i:end]))
			return end
		})
		if closed != tt.closed || !slices.Equal(items, tt.items) {
			t.Errorf("Each(%q) visits %q, closed %v; want %q, %v", tt.in, items, closed, tt.items, tt.closed)
		}
	}
}

// FuzzScan: on any bytes the offsets stay within them, and a value ends
// after it starts.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b\"",{}]}`, `[1,2`, `"\\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			if e := SkipValue(b, i); e != -1 && (e <= i || e > len(b)) {
				t.Fatalf("SkipValue(%q, %d) = %d", b, i, e)
			}
			if e := StringEnd(b, i); e != -1 && (e < i || e >= len(b) || b[e] != '"') {
				t.Fatalf("StringEnd(%q, %d) = %d", b, i, e)
			}
		}
		Each(b, 0, func(i int) int {
			if i >= len(b) {
				t.Fatalf("Each gave item offset %d of %d bytes", i, len(b))
			}
			return SkipValue(b, i)
		})
	})
}

package codex

import (
	"fmt"
	"testing"
)

// TestTextScan: the first byte that is not UTF-8 and the whitespace-only
// lines, the same whether the bytes come whole or one at a time.
func TestTextScan(t *testing.T) {
	tests := []struct {
		in       string
		badLine  int // 0: valid UTF-8
		badOff   int64
		badCol   int
		blank    []int
		nonBlank bool
	}{
		{in: "{}\n", nonBlank: true},
		{in: "", nonBlank: false},
		{in: "\n\n", nonBlank: false},
		{in: " \t\r\n\u00a0\u2003\n{}", blank: []int{1, 2}, nonBlank: true},
		{in: "{}\r\n   \r\n", blank: []int{2}, nonBlank: true},
		{in: "é🧾\xff\n", badLine: 1, badOff: 6, badCol: 3, nonBlank: true},
		{in: "{}\n\xe2\x82\n", badLine: 2, badOff: 3, badCol: 0, nonBlank: true},
		{in: "{}\n ab\xc3", badLine: 2, badOff: 6, badCol: 3, nonBlank: true},
		{in: "\xed\xa0\x80\n", badLine: 1, badOff: 0, nonBlank: true}, // an encoded surrogate is not UTF-8
		{in: "\u0085\n", blank: []int{1}},                             // NEL is White_Space
		{in: "\u200b\n", nonBlank: true},                              // ZERO WIDTH SPACE is not
	}
	for _, tt := range tests {
		for _, split := range []bool{false, true} {
			s := newTextScan()
			if split {
				for i := 0; i < len(tt.in); i++ {
					s.feed([]byte{tt.in[i]})
				}
			} else {
				s.feed([]byte(tt.in))
			}
			s.finish()
			got := fmt.Sprint(s.badLine, s.badOff, s.badCol, s.nonBlank, len(s.blank))
			want := fmt.Sprint(tt.badLine, tt.badOff, tt.badCol, tt.nonBlank, len(tt.blank))
			if tt.badLine == 0 {
				want = fmt.Sprint(0, -1, 0, tt.nonBlank, len(tt.blank))
			}
			if got != want {
				t.Errorf("%q (one byte at a time %v): got %s, want %s", tt.in, split, got, want)
			}
			for _, b := range tt.blank {
				if !s.blank[b] {
					t.Errorf("%q: line %d not blank", tt.in, b)
				}
			}
		}
	}
}

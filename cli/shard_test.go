// Tests of check --shard: parsing I/N and which shard a file falls in.

package cli

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		ok   bool
	}{
		{"1/1", 1, 1, true}, {"2/4", 2, 4, true}, {"4/4", 4, 4, true},
		{"0/4", 0, 0, false}, {"5/4", 0, 0, false}, {"1/0", 0, 0, false},
		{"-1/3", 0, 0, false}, {"2", 0, 0, false}, {"a/b", 0, 0, false}, {"1/2/3", 0, 0, false}, {"", 0, 0, false},
	} {
		i, n, err := parseShard(tc.in)
		if tc.ok {
			if err != nil {
				t.Fatalf("%v: %v", tc.in, err)
			}
			if want, got := ([2]int{tc.i, tc.n}), ([2]int{i, n}); !reflect.DeepEqual(got, want) {
				t.Errorf("%v: [2]int{i, n} = %+v, want %+v", tc.in, got, want)
			}
		} else {
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("%q: want a usage error, got %v: errors.As(err, &ue) is false, want true", tc.in, err)
			}
		}
	}
}

func TestShardOfIsStableAndSpreads(t *testing.T) {
	const n = 4
	counts := make([]int, n)
	for i := range 400 {
		p := fmt.Sprintf("sessions/s%03d.jsonl", i)
		s := shardOf(p, n)
		if got := shardOf(p, n); got != s {
			t.Fatalf("shardOf(p, n) = %v, want %v", got, s)
		}
		// Path spelling does not move a file: cleaned, slash form.
		if got := shardOf("./"+p, n); got != s {
			t.Fatalf(`shardOf("./"+p, n) = %v, want %v`, got, s)
		}
		counts[s]++
	}
	for s, c := range counts {
		if c <= 50 {
			t.Errorf("shard %d holds %d of 400 files: c = %v, want > %v", s+1, c, c, 50)
		}
	}
	// FNV-1a 32 of "a": 0xe40c292c.
	if want, got := int(uint32(0xe40c292c)%7), shardOf("a", 7); got != want {
		t.Errorf(`shardOf("a", 7) = %v, want %v`, got, want)
	}
}

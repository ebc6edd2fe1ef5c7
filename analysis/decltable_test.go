package analysis

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestDeclTableAgreesWithMap drives the table and a map with the same
// lookups, inserts and updates, through several growths and with ids that
// are prefixes of each other, empty or long.
func TestDeclTableAgreesWithMap(t *testing.T) {
	for _, hint := range []int{0, 1, 1000} {
		t.Run(strconv.Itoa(hint), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(hint)))
			tab := newDeclTable(hint)
			ref := map[string]decl{}
			ids := []string{"", "c", "ca", "call_", string(make([]byte, 300))}
			for i := range 5000 {
				ids = append(ids, "call_"+strconv.Itoa(i))
			}
			for step := range 20000 {
				id := ids[rng.IntN(len(ids))]
				e, h, slot := tab.find(id)
				want, ok := ref[id]
				if (e != nil) != ok {
					t.Fatalf("step %d: find(%q) found=%v, the map says %v", step, id, e != nil, ok)
				}
				d := decl{line: step, msg: int32(step), answered: step%3 == 0}
				if e == nil {
					tab.insert(id, h, slot, d)
				} else {
					if e.d != want {
						t.Fatalf("step %d: find(%q) = %+v, the map has %+v", step, id, e.d, want)
					}
					if got := tab.key(e); got != id {
						t.Fatalf("step %d: key of %q's entry is %q", step, id, got)
					}
					e.d = d
				}
				ref[id] = d
			}
			if tab.len() != len(ref) {
				t.Fatalf("the table holds %d ids, the map %d", tab.len(), len(ref))
			}
			for k := range tab.len() {
				e := tab.at(k)
				if want := ref[tab.key(e)]; e.d != want {
					t.Errorf("entry %q = %+v, the map has %+v", tab.key(e), e.d, want)
				}
			}
		})
	}
}

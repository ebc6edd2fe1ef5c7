package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMergeHeapEqualsScan: the heap merge of long pieces and the scan of
// short ones are one algorithm (lowest rank first, leftmost of equal
// ranks); on the same pieces they must make the same number of tokens.
func TestMergeHeapEqualsScan(t *testing.T) {
	alphabet := []string{"a", "b", "e", "n", "t", " ", "'", "\\", "n", "0", "中", "é", "😀", "\x7f", "=", "ab", "the"}
	for _, gz := range []string{o200kRanks, cl100kRanks} {
		tab, err := loadRanks(gz)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, 19))
		var st state
		for range 3000 {
			var b strings.Builder
			for b.Len() < 2+r.IntN(heapThreshold*2) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			p := b.String()
			if heap, scan := tab.mergeCountHeap(p, &st), tab.mergeCountScan(p, &st); heap != scan {
				t.Fatalf("%q: the heap merge makes %d tokens, the scan %d", p, heap, scan)
			}
		}
	}
}

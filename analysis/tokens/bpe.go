package tokens

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
)

// ranks is an encoding's byte-pair table: token bytes → rank, where a lower
// rank merges first. It is built once and only read afterwards.
type ranks struct {
	data string   // by rank: one byte of length, then the token
	off  []uint32 // off[r]: where token r's bytes start in data
	// slots is an open-addressing hash table of the tokens: the high 32
	// bits of a token's hash, then its rank + 1 (0: an empty slot).
	slots []uint64
	mask  uint64
	seed  maphash.Seed
}

// noRank marks a pair that is no token.
const noRank = ^uint32(0)

// loadRanks reads a table written by gen/ranks.mjs.
func loadRanks(raw string) (*ranks, error) {
	t := &ranks{data: raw, seed: maphash.MakeSeed(), off: make([]uint32, 0, len(raw)/7)}
	for i := 0; i < len(raw); {
		n := int(raw[i])
		if n == 0 || i+1+n > len(raw) {
			return nil, errors.New("reading the ranks table: it is truncated")
		}
		t.off = append(t.off, uint32(i+1))
		i += 1 + n
	}
	size := uint64(1) << bits.Len(uint(2*len(t.off)))
	t.slots = make([]uint64, size)
	t.mask = size - 1
	for r := range t.off {
		tok := t.token(uint32(r))
		h := maphash.String(t.seed, tok)
		i := h & t.mask
		for t.slots[i] != 0 {
			if t.token(uint32(t.slots[i])-1) == tok {
				return nil, fmt.Errorf("reading the ranks table: token %q has two ranks", tok)
			}
			i = (i + 1) & t.mask
		}
		t.slots[i] = h&^(1<<32-1) | uint64(r+1)
	}
	return t, nil
}

// token returns the bytes of the token of rank r.
func (t *ranks) token(r uint32) string {
	o := t.off[r]
	return t.data[o : o+uint32(t.data[o-1])]
}

// rank returns the rank of the token b, or noRank.
func (t *ranks) rank(b string) uint32 {
	return t.rankHashed(b, maphash.String(t.seed, b))
}

// rankHashed is rank with b's hash already computed.
func (t *ranks) rankHashed(b string, h uint64) uint32 {
	tag := h &^ (1<<32 - 1)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		v := t.slots[i]
		if v == 0 {
			return noRank
		}
		if v&^(1<<32-1) == tag {
			r := uint32(v) - 1
			if o := t.off[r]; int(t.data[o-1]) == len(b) && t.data[o:o+uint32(len(b))] == b {
				return r
			}
		}
	}
}

// part is a boundary between the parts of a piece being merged: where its
// part starts, and the rank of the token its part and the next would make.
type part struct {
	start int32
	rank  uint32
}

// heapThreshold is the piece length from which merge uses a heap: below
// it the O(n²) scan of js-tiktoken's algorithm is faster.
const heapThreshold = 128

// mergeCount returns the number of tokens byte-pair encoding makes of
// piece (at least 2 bytes, not itself a token): the pair of adjacent parts
// with the lowest rank merges first, the leftmost of equal ranks, until no
// pair is a token, as js-tiktoken's bytePairMerge does.
func (t *ranks) mergeCount(piece string, st *state) int {
	if len(piece) >= heapThreshold {
		return t.mergeCountHeap(piece, st)
	}
	return t.mergeCountScan(piece, st)
}

// mergeCountScan is mergeCount by scanning all pairs for each merge, as
// js-tiktoken does: O(n²), the fastest for short pieces.
func (t *ranks) mergeCountScan(piece string, st *state) int {
	parts := st.parts[:0]
	for i := 0; i+1 < len(piece); i++ {
		parts = append(parts, part{int32(i), t.rank(piece[i : i+2])})
	}
	parts = append(parts, part{int32(len(piece) - 1), noRank}, part{int32(len(piece)), noRank})
	for {
		best, at := noRank, -1
		for i, p := range parts[:len(parts)-1] {
			if p.rank < best {
				best, at = p.rank, i
			}
		}
		if at < 0 {
			break
		}
		// parts[at+1] goes; the pairs around the merged part change.
		if at+3 < len(parts) {
			parts[at].rank = t.rank(piece[parts[at].start:parts[at+3].start])
		} else {
			parts[at].rank = noRank
		}
		if at > 0 {
			parts[at-1].rank = t.rank(piece[parts[at-1].start:parts[at+2].start])
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	st.parts = parts
	return len(parts) - 1
}

// node is a part of a long piece, in a linked list; rank is that of the
// token it and the next part would make.
type node struct {
	prev, next int32
	rank       uint32
}

// candidate is a pair that may merge: a heap entry, stale once its node's
// rank changed.
type candidate struct {
	rank uint32
	at   int32
}

func (a candidate) less(b candidate) bool {
	return a.rank < b.rank || a.rank == b.rank && a.at < b.at
}

// mergeCountHeap is mergeCount in O(n log n) for long pieces (a run of
// 200,000 spaces is one piece): the lowest rank, leftmost first, comes from
// a heap of candidates instead of a scan.
func (t *ranks) mergeCountHeap(piece string, st *state) int {
	n := int32(len(piece))
	nodes := st.nodes[:0]
	for i := int32(0); i <= n; i++ {
		nodes = append(nodes, node{prev: i - 1, next: i + 1, rank: noRank})
	}
	nodes[n].next = -1
	pairRank := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		return t.rank(piece[i:k])
	}
	h := st.heap[:0]
	for i := int32(0); i+2 <= n; i++ {
		if r := pairRank(i); r != noRank {
			nodes[i].rank = r
			h = append(h, candidate{r, i})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	count := int(n)
	for len(h) > 0 {
		top := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		siftDown(h, 0)
		i := top.at
		if nodes[i].rank != top.rank {
			continue // stale
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		count--
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = pairRank(b)
			if nodes[b].rank != noRank {
				h = append(h, candidate{nodes[b].rank, b})
				siftUp(h, len(h)-1)
			}
		}
	}
	st.nodes, st.heap = nodes, h
	return count
}

func siftUp(h []candidate, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func siftDown(h []candidate, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && h[r].less(h[c]) {
			c = r
		}
		if !h[c].less(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

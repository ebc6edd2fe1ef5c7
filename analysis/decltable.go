package analysis

import "hash/maphash"

// declTable maps call ids to their latest declaration, for the linker. It
// is the linker's map[string]decl without pointers: the ids are copied into
// one byte arena and entries refer to them by offset, so the garbage
// collector has nothing to scan in it however many calls a stream declares,
// an id costs no allocation of its own, and a lookup that misses leaves the
// slot where the id goes, so inserting needs no second search.
//
// Open addressing with linear probing over a power-of-two slot array, kept
// at most 3/4 full. A slot holds the high 32 bits of the id's hash (to skip
// most key comparisons) and the entry's index plus one (0 is an empty slot);
// entries are never removed. Indexes are 32-bit: 2^32-1 entries would take
// more than 200 GB, far past the memory a check can have.
type declTable struct {
	seed  maphash.Seed
	slots []uint64
	ents  [][]declEntry // blocks of entBlock entries, never moved once made
	n     int           // entries
	keys  []byte
}

// entBlock is the number of entries in one block of declTable.ents: growing
// the table adds a block instead of copying every entry.
const entBlock = 1 << 12

// declEntry is one id: its bytes are keys[off : off+n].
type declEntry struct {
	hash uint64
	off  int
	n    int
	d    decl
}

func newDeclTable(hint int) *declTable {
	t := &declTable{seed: maphash.MakeSeed()}
	size := 16
	for size*3/4 < hint {
		size *= 2
	}
	t.slots = make([]uint64, size)
	return t
}

func (t *declTable) len() int { return t.n }

// at returns entry k (0 ≤ k < t.n).
func (t *declTable) at(k int) *declEntry { return &t.ents[k/entBlock][k%entBlock] }

// key returns the id of entry e.
func (t *declTable) key(e *declEntry) string { return string(t.keys[e.off : e.off+e.n]) }

// find returns the entry of id, or nil and where to insert it.
func (t *declTable) find(id string) (e *declEntry, h uint64, slot int) {
	h = maphash.String(t.seed, id)
	mask := len(t.slots) - 1
	tag := h &^ (1<<32 - 1)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return nil, h, i
		}
		if s&^(1<<32-1) == tag {
			e := t.at(int(uint32(s)) - 1)
			if e.n == len(id) && string(t.keys[e.off:e.off+e.n]) == id {
				return e, h, i
			}
		}
	}
}

// insert adds id, which find reported missing with h and slot, and returns
// its entry.
func (t *declTable) insert(id string, h uint64, slot int, d decl) *declEntry {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
		mask := len(t.slots) - 1
		slot = int(h) & mask
		for t.slots[slot] != 0 {
			slot = (slot + 1) & mask
		}
	}
	off := len(t.keys)
	t.keys = append(t.keys, id...)
	if t.n%entBlock == 0 {
		t.ents = append(t.ents, make([]declEntry, entBlock))
	}
	e := t.at(t.n)
	*e = declEntry{hash: h, off: off, n: len(id), d: d}
	t.n++
	t.slots[slot] = h&^(1<<32-1) | uint64(uint32(t.n))
	return e
}

// grow doubles the slots and places every entry again.
func (t *declTable) grow() {
	slots := make([]uint64, 2*len(t.slots))
	mask := len(slots) - 1
	for k := range t.n {
		h := t.at(k).hash
		i := int(h) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = h&^(1<<32-1) | uint64(uint32(k+1))
	}
	t.slots = slots
}

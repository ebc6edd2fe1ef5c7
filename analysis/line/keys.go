// Key de-duplication: JSON.parse keeps one member per key, the last value
// in the first occurrence's place, so every object of the kept message
// (toolCalls and below) is measured with its repeated keys collapsed.

package line

// keyEntry is one distinct key of an object of the kept message, for the
// duplicate-key collapsing JSON.parse does (last value wins).
type keyEntry struct {
	off, n int // the decoded key: b[off:off+n], or arena[^off:^off+n] when off < 0
	cost   int // stringify length of the member ("key":value)
	dup    int // while pending: index of the earlier entry with this key, or -1
}

// objFrame is an open object of the kept message.
type objFrame struct {
	keyStart int            // its entries are keys[keyStart:]
	index    map[string]int // key → entry index, once the object has many keys
}

// keyBytes returns the decoded key of an entry.
func (p *parser) keyBytes(e *keyEntry) []byte {
	if e.off >= 0 {
		return p.b[e.off : e.off+e.n]
	}
	o := ^e.off
	return p.arena[o : o+e.n]
}

// dedupDepth bounds the nesting depth at which objects of the kept message
// get their duplicate keys collapsed, so that memory stays at one bit per
// level however deep a hostile line nests. Deeper than this, a duplicate key
// would be counted twice; but node's JSON.stringify overflows its stack
// thousands of levels earlier, so the runtime cannot measure such a message
// at all (see Result.Depth).
const dedupDepth = 10000

// indexThreshold is the number of keys after which an object of the kept
// message gets a map, so that duplicate detection stays linear overall.
const indexThreshold = 16

// key is called for a member key, the literal b[start:end].
func (p *parser) key(start, startCol, end, cost int, flags uint8) {
	d := p.depth
	body := p.b[start+1 : end-1]
	if d == 1 {
		if p.top == kObject {
			p.topKey = p.classify(body, flags, true)
			p.topKeyStart, p.topKeyCol = start, startCol
		}
		return
	}
	if !p.tcActive {
		return
	}
	if d > dedupDepth {
		p.cost += cost
		return
	}
	// A member of an object of the kept message: find an earlier member
	// with the same key, whose length the new one will replace.
	e := keyEntry{off: start + 1, n: len(body), cost: p.cost, dup: -1}
	kb := body
	if flags != 0 {
		o := len(p.arena)
		p.arena = appendDecoded(p.arena, body)
		kb = p.arena[o:]
		e.off, e.n = ^o, len(kb)
	}
	f := &p.objs[len(p.objs)-1]
	if f.index != nil {
		if j, ok := f.index[string(kb)]; ok {
			e.dup = j
		}
	} else {
		for j := f.keyStart; j < len(p.keys); j++ {
			if string(p.keyBytes(&p.keys[j])) == string(kb) {
				e.dup = j
				break
			}
		}
	}
	p.keys = append(p.keys, e)
	p.cost += cost
	if d == 3 {
		p.elemKey = p.classify(body, flags, false)
		p.elemKeyStart, p.elemKeyCol = start, startCol
	}
}

// memberDone finishes the member of a kept object whose value just ended.
func (p *parser) memberDone() {
	last := len(p.keys) - 1
	e := &p.keys[last]
	memberCost := p.cost - e.cost
	f := &p.objs[len(p.objs)-1]
	if e.dup >= 0 {
		// JSON.parse keeps one member per key, with the last value.
		prev := &p.keys[e.dup]
		p.cost -= prev.cost + 1 // its member and one comma
		prev.cost = memberCost
		if e.off < 0 {
			p.arena = p.arena[:^e.off]
		}
		p.keys = p.keys[:last]
		return
	}
	e.cost, e.dup = memberCost, -1
	count := len(p.keys) - f.keyStart
	switch {
	case f.index != nil:
		f.index[string(p.keyBytes(e))] = last
	case count > indexThreshold:
		f.index = make(map[string]int, 2*count)
		for j := f.keyStart; j < len(p.keys); j++ {
			f.index[string(p.keyBytes(&p.keys[j]))] = j
		}
	}
}

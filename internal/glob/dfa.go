package glob

import (
	"slices"
	"sync"
)

// A lazily built DFA over the NFA, as RE2 has: a DFA state is the set of
// NFA states the simulation holds after some input, and each (state,
// character) transition is computed by the simulation once and then
// remembered. Matching many paths that share their directories (every
// file of a tree against the exclude and overrides globs, every directory
// of a deep tree) then costs one table lookup per character after the
// first path, where the simulation costs the number of live states per
// character: a 1 KiB "**/a/**/a/…" glob holds hundreds.
//
// The cache is bounded (dfaBudget); past the bound a run goes on with the
// simulation from the states it reached. Answers are the NFA's whatever the
// cache holds.
type dfa struct {
	mu     sync.Mutex
	ids    map[string]int32 // set key → state
	sets   [][]int32        // state → NFA states
	accept []bool
	trans  map[dfaKey]int32 // → state, or dead
	starts map[int32]int32  // NFA start state → DFA state
	size   int              // NFA states held in sets, plus transitions
	m      *machine
}

type dfaKey struct {
	from int32
	r    rune
}

// dead is the DFA state of the empty set: nothing can match any more.
const dead int32 = -1

// dfaBudget bounds a pattern's cache, in NFA states held plus transitions
// (about 8 to 40 bytes each): proportional to the pattern, so a list's
// caches together are bounded by its length.
func (p *Pattern) dfaBudget() int { return 4096 + 64*len(p.states) }

func (d *dfa) reset(p *Pattern) {
	d.ids = map[string]int32{}
	d.sets = d.sets[:0]
	d.accept = d.accept[:0]
	d.trans = map[dfaKey]int32{}
	d.starts = map[int32]int32{}
	d.size = 0
	if d.m == nil {
		d.m = &machine{p: p, mark: make([]uint32, 2*len(p.states))}
	}
}

// intern returns the DFA state of the NFA states in set (sorted in place);
// ok is false when the cache has no room for a new one.
func (d *dfa) intern(p *Pattern, set []int32) (int32, bool) {
	if len(set) == 0 {
		return dead, true
	}
	slices.Sort(set)
	key := make([]byte, 0, 4*len(set))
	for _, s := range set {
		key = append(key, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
	}
	if id, ok := d.ids[string(key)]; ok {
		return id, true
	}
	if d.size+len(set) > p.dfaBudget() {
		return dead, false
	}
	id := int32(len(d.sets))
	d.ids[string(key)] = id
	d.sets = append(d.sets, slices.Clone(set))
	acc := false
	for _, s := range set {
		acc = acc || p.states[s].op == opMatch
	}
	d.accept = append(d.accept, acc)
	d.size += len(set)
	return id, true
}

// exec is runPrefixes on the DFA: the same answer, from the cache where it
// can; past the cache's bound it goes on simulating from the states it
// reached, so a full cache still serves the paths' shared beginnings.
func (p *Pattern) exec(start int32, t string, prefixes bool) bool {
	d := &p.dfa
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ids == nil {
		d.reset(p)
	}
	m := d.m
	if m.gen > 1<<30 {
		clear(m.mark) // before the generation wraps and an old mark reads as new
		m.gen = 0
	}
	var set, spare []int32 // the states, once off the cache
	cached := true
	id, ok := d.starts[start]
	if !ok {
		m.gen++
		m.add(&set, start, false)
		if id, ok = d.intern(p, set); ok {
			d.starts[start] = id
			d.size++
		} else {
			cached = false
		}
	}
	step := func(r rune) {
		if !cached {
			spare = m.step(set, r, spare[:0])
			set, spare = spare, set
			return
		}
		k := dfaKey{id, r}
		if next, ok := d.trans[k]; ok {
			id = next
			return
		}
		set = m.step(d.sets[id], r, set[:0])
		next, ok := d.intern(p, set)
		if !ok {
			cached = false
			return
		}
		if d.size < p.dfaBudget() {
			d.trans[k] = next
			d.size++
		}
		id = next
	}
	alive := func() bool {
		if cached {
			return id != dead
		}
		return len(set) > 0
	}
	accepts := func() bool {
		if cached {
			return id != dead && d.accept[id]
		}
		for _, s := range set {
			if p.states[s].op == opMatch {
				return true
			}
		}
		return false
	}
	// The same walk as runPrefixes.
	if step('/'); !alive() {
		return false
	}
	prev := rune(0)
	for i := 0; i < len(t); {
		r, w := pathRune(t, i)
		i += w
		if step(r); !alive() {
			return false
		}
		// A parent is the path before a '/', without the slashes that
		// end it: in "a//b" that is "a" alone, never "a/" (whose empty
		// last segment "*" would match).
		if prefixes && r == '/' && prev != '/' && accepts() {
			return true
		}
		prev = r
	}
	if t != "" {
		if step('/'); !alive() {
			return false
		}
	}
	return accepts()
}

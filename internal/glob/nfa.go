package glob

import "unicode/utf8"

// kinds is a set of kinds of pattern character, to decide what a "*" or a
// "/" means from what can stand next to it in every brace expansion.
type kinds uint8

const (
	kSlash kinds = 1 << iota
	kStar
	kOther
	kStart // the pattern's start
	kEnd   // the pattern's end
)

func kindOf(n *node) kinds {
	switch n.kind {
	case nEdge:
		if n.end {
			return kEnd
		}
		return kStart
	case nLit:
		if n.r == '/' {
			return kSlash
		}
	case nStars:
		return kStar
	}
	return kOther
}

type op uint8

const (
	opLit      op = iota // r, then out
	opAny                // one character but "/", then out
	opClass              // one character of classes[cls], then out
	opStar               // any characters but "/": loops on itself, ε to out
	opGlob               // "**" between two slashes: ε to out1 (segments), or ε to out skipping its "/" (no segment)
	opGlobLoop           // the segments of a "**": any characters, "/" included: loops on itself, ε to out
	opSplit              // ε to out and out1
	opMatch
)

type state struct {
	op     op
	r      rune
	cls    int32
	out    int32
	out1   int32
	ranges int32 // opClass: cost of a test, for the step count
	// opGlobLoop: the states [pruneLo, pruneHi] are those every path of
	// which to a match goes through this "**" (they come before it in its
	// sequence). While the loop is live they are redundant: whatever they
	// can still match, the loop matches too (it reads anything, then what
	// follows the "**"). See machine.prune.
	pruneLo, pruneHi int32
}

type compiler struct {
	p       *Pattern
	classes []class
	err     error
}

func (c *compiler) add(s state) int32 {
	c.p.states = append(c.p.states, s)
	return int32(len(c.p.states) - 1)
}

// context fills every item's left and right kinds, then decides what each
// run of stars means and refuses what brace expansion would make ambiguous.
func (c *compiler) context(seq []node) {
	flow(seq, 0, false)
	flow(seq, 0, true)
	c.check(seq)
}

// flow walks seq from its start (or, back, from its end), with in the
// kinds before it, and gives each item the kinds that can stand on that
// side of it (left, or right): of the item before it, or of the last
// items of each alternative before it. It returns the kinds at the far
// end.
func flow(seq []node, in kinds, back bool) kinds {
	ctx := in
	for k := range seq {
		i := k
		if back {
			i = len(seq) - 1 - k
		}
		n := &seq[i]
		if n.kind == nAlt {
			var out kinds
			for _, a := range n.alts {
				out |= flow(a, ctx, back)
			}
			ctx = out
			continue
		}
		if back {
			n.right = ctx
		} else {
			n.left = ctx
		}
		ctx = kindOf(n)
	}
	return ctx
}

func (c *compiler) check(seq []node) {
	for i := range seq {
		if c.err != nil {
			return
		}
		n := &seq[i]
		switch n.kind {
		case nAlt:
			for _, a := range n.alts {
				c.check(a)
			}
		case nLit:
			// The pattern's edges were trimmed of slashes; one that an
			// empty alternative can bring back to an edge would be trimmed
			// in one expansion and not in another.
			if n.r == '/' && (n.left&kStart != 0 || n.right&kEnd != 0) {
				c.err = &Error{Pattern: c.p.src, Offset: n.off,
					Msg: "a '/' that an empty {…} alternative can leave at the start or end of the pattern: move it inside the braces"}
			}
		case nStars:
			if n.n > 2 {
				continue // "***" is "*" whatever stands next to it
			}
			if (n.left|n.right)&kStar != 0 {
				c.err = &Error{Pattern: c.p.src, Offset: n.off,
					Msg: "a '*' that a {…} alternative can join to another '*': write the stars on one side of the braces"}
				continue
			}
			if n.n != 2 {
				continue
			}
			slashL := n.left&(kSlash|kStart) != 0
			slashR := n.right&(kSlash|kEnd) != 0
			onlyL := n.left&^(kSlash|kStart) == 0
			onlyR := n.right&^(kSlash|kEnd) == 0
			switch {
			case onlyL && onlyR:
				n.glob = true
			case slashL && slashR:
				c.err = &Error{Pattern: c.p.src, Offset: n.off,
					Msg: "a '**' that is a whole segment in some {…} alternatives and not in others"}
			}
		}
	}
}

// seq compiles items so that they continue to next; it returns the first
// state. Compiling backwards lets every alternative of a group continue to
// the same state: nothing is copied.
func (c *compiler) seq(items []node, next int32) int32 {
	var loops []int32 // the "**" loops of this sequence's own items
	for i := len(items) - 1; i >= 0; i-- {
		next = c.item(&items[i], next)
		if n := &items[i]; n.kind == nStars && n.glob {
			loops = append(loops, next-1) // item adds the loop, then the glob
		}
	}
	// What was compiled after a "**" of this sequence (the items before
	// it, nested groups included) reaches a match only through it.
	last := int32(len(c.p.states) - 1)
	for _, l := range loops {
		c.p.states[l].pruneLo, c.p.states[l].pruneHi = l+2, last
	}
	return next
}

func (c *compiler) item(n *node, next int32) int32 {
	switch n.kind {
	case nEdge:
		return c.add(state{op: opLit, r: '/', out: next})
	case nLit:
		return c.add(state{op: opLit, r: n.r, out: next})
	case nAny:
		return c.add(state{op: opAny, out: next})
	case nClass:
		c.classes = append(c.classes, n.cls)
		return c.add(state{op: opClass, cls: int32(len(c.classes) - 1), out: next, ranges: int32(len(n.cls.ranges))})
	case nStars:
		if n.glob {
			loop := c.add(state{op: opGlobLoop, out: next})
			return c.add(state{op: opGlob, out: next, out1: loop})
		}
		return c.add(state{op: opStar, out: next})
	case nAlt:
		starts := make([]int32, len(n.alts))
		for i, a := range n.alts {
			starts[i] = c.seq(a, next)
		}
		s := starts[len(starts)-1]
		for i := len(starts) - 2; i >= 0; i-- {
			s = c.add(state{op: opSplit, out: starts[i], out1: s})
		}
		return s
	}
	panic("glob: unknown node kind") // unreachable: the parser makes no other
}

// invalidByte stands for a byte of the path that is not UTF-8: no literal
// equals it (the pattern is valid UTF-8), "?" and "*" match it.
const invalidByte rune = -1

// pathRune decodes the character of the path t at byte i and its width: a
// byte that is not UTF-8 reads as invalidByte. The NFA and the DFA read the
// path through it, so that they see the same characters.
func pathRune(t string, i int) (rune, int) {
	r, w := utf8.DecodeRuneInString(t[i:])
	if r == utf8.RuneError && w == 1 {
		r = invalidByte
	}
	return r, w
}

// machine is one simulation of the NFA over a path.
type machine struct {
	p     *Pattern
	mark  []uint32 // per (state, skip): the generation it was last added in
	gen   uint32
	steps int
}

// run reports whether the NFA from start accepts the path wrapped in
// slashes, and how many steps the simulation took (each state visited or
// tested once per path character, plus class ranges tested): at most about
// (3 × states + class ranges) × (path length + 2).
//
// t is the path's segments joined by "/": no slash at either end, except
// that the first segment may be empty (a path relative to a root, from
// "/root//x").
func (p *Pattern) run(start int32, t string) (bool, int) {
	return p.runPrefixes(start, t, false)
}

// runPrefixes is run that, with prefixes, also accepts when the NFA
// accepts a leading part of the path made of whole segments ("a" and
// "a/b" of "a/b/c"): the state after reading "/a/" is the same whether
// the path ends there or goes on, so one pass answers for every such
// prefix.
func (p *Pattern) runPrefixes(start int32, t string, prefixes bool) (bool, int) {
	m := &machine{p: p, mark: make([]uint32, 2*len(p.states))}
	cur := make([]int32, 0, len(p.states))
	next := make([]int32, 0, len(p.states))
	m.gen++
	m.add(&cur, start, false)

	step := func(r rune) bool {
		next = m.step(cur, r, next[:0])
		cur, next = next, cur
		return len(cur) > 0
	}
	accepts := func() bool {
		for _, s := range cur {
			if p.states[s].op == opMatch {
				return true
			}
		}
		return false
	}
	// The path is wrapped like the pattern: "/" + path + "/", or "/" alone
	// for the empty path.
	if !step('/') {
		return false, m.steps
	}
	prev := rune(0)
	for i := 0; i < len(t); {
		r, w := pathRune(t, i)
		i += w
		if !step(r) {
			return false, m.steps
		}
		// As in exec: "a/" is no parent of "a//b"; "a" is.
		if prefixes && r == '/' && prev != '/' && accepts() {
			return true, m.steps
		}
		prev = r
	}
	if t != "" && !step('/') {
		return false, m.steps
	}
	return accepts(), m.steps
}

// step appends to next the states that cur reaches by reading r (and
// their ε closures), and returns it.
func (m *machine) step(cur []int32, r rune, next []int32) []int32 {
	p := m.p
	m.gen++
	for _, s := range cur {
		m.steps++
		st := &p.states[s]
		switch st.op {
		case opLit:
			if r == st.r {
				m.add(&next, st.out, false)
			}
		case opAny:
			if r != '/' {
				m.add(&next, st.out, false)
			}
		case opClass:
			m.steps += int(st.ranges)
			cr := r
			if cr == invalidByte {
				cr = utf8.RuneError // as path.Match decodes it
			}
			if r != '/' && p.classes[st.cls].matches(cr) {
				m.add(&next, st.out, false)
			}
		case opStar:
			if r != '/' {
				m.add(&next, s, false)
			}
		case opGlobLoop:
			m.add(&next, s, false)
		}
	}
	return m.prune(next)
}

// prune drops from list the states a live "**" loop makes redundant (those
// every path of which goes through that "**"): a deep path against
// "**/a/**/a/…" would otherwise keep a thread per "**" reached, and pay
// for each on every character.
func (m *machine) prune(list []int32) []int32 {
	var ranges [][2]int32
	for _, s := range list {
		if st := &m.p.states[s]; st.op == opGlobLoop && st.pruneLo > 0 && st.pruneLo <= st.pruneHi {
			ranges = append(ranges, [2]int32{st.pruneLo, st.pruneHi})
		}
	}
	if len(ranges) == 0 {
		return list
	}
	out := list[:0]
	for _, s := range list {
		drop := false
		for _, r := range ranges {
			if r[0] <= s && s <= r[1] {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, s)
		}
	}
	return out
}

// add puts state s and the states it reaches by ε moves into list. With
// skip, s is entered by a "**" that matched no segment: the "/" that
// follows it is the one before the "**", already read, so it is skipped.
func (m *machine) add(list *[]int32, s int32, skip bool) {
	key := 2 * s
	if skip {
		key++
	}
	if m.mark[key] == m.gen {
		return
	}
	m.mark[key] = m.gen
	m.steps++
	st := &m.p.states[s]
	if skip {
		switch {
		case st.op == opLit && st.r == '/':
			m.add(list, st.out, false)
		case st.op == opSplit:
			m.add(list, st.out, true)
			m.add(list, st.out1, true)
		}
		// Nothing else can follow a "**" segment: compile made sure a "/"
		// does in every expansion.
		return
	}
	switch st.op {
	case opSplit:
		m.add(list, st.out, false)
		m.add(list, st.out1, false)
	case opStar:
		*list = append(*list, s)
		m.add(list, st.out, false)
	case opGlob:
		// One or more segments: the loop then the "/" after the "**".
		// None: the "/" before the "**" was the one after it, so skip it.
		m.add(list, st.out1, false)
		m.add(list, st.out, true)
	case opGlobLoop:
		*list = append(*list, s)
		m.add(list, st.out, false)
	default:
		*list = append(*list, s)
	}
}

package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Whether interleaved pieces pair more than one way, from the truth: the
// judge of "unless sessionls reported it ambiguous".

// damagePiece is one write() chunk of an append, where gen.mjs found it.
type damagePiece struct {
	rec   int // index into the truth's records
	chunk int
	off   int
	data  []byte
	last  bool // the append's last chunk (it ends with "\n")
}

// splitPieces returns, from happened.order, the pieces of the records of
// f written in several write() calls, when one of them is not whole on a
// line of its own; nil when the truth has no order or there is none.
func splitPieces(f damageFile) ([]damagePiece, error) {
	var h struct {
		Order string `json:"order"`
	}
	if len(f.truth.Happened) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(f.truth.Happened, &h); err != nil || h.Order == "" {
		return nil, nil
	}
	index := map[[2]int]int{}
	for i, r := range f.truth.Records {
		index[[2]int{r.Stream, r.Append}] = i
	}
	var all []damagePiece
	off := 0
	for _, tok := range strings.Fields(h.Order) {
		var s, a, c, n int
		if _, err := fmt.Sscanf(tok, "%d.%d.%d:%d", &s, &a, &c, &n); err != nil {
			return nil, fmt.Errorf("%s: order %q: %w", f.name, tok, err)
		}
		i, ok := index[[2]int{s, a}]
		if !ok {
			return nil, fmt.Errorf("%s: order names record %d.%d, not in the truth", f.name, s, a)
		}
		if off+n > len(f.data) {
			return nil, fmt.Errorf("%s: order runs past the file", f.name)
		}
		r := f.truth.Records[i]
		size := len(r.Text) + 1
		if r.Wrote != "" {
			size = len(r.Wrote) + 1
		}
		all = append(all, damagePiece{rec: i, chunk: c, off: off, data: f.data[off : off+n], last: (c+1)*damageChunk >= size})
		off += n
	}
	// Keep the pieces of the records written in more than one write whose
	// pieces are all there (intact or recoverable): any of their heads may
	// pair with any later tail; a lost record's pieces complete nothing.
	n := map[int]int{}
	for _, p := range all {
		n[p.rec]++
	}
	var out []damagePiece
	split := false
	for _, p := range all {
		st := f.truth.Records[p.rec].State
		if n[p.rec] > 1 && (st == "intact" || st == "recoverable") {
			out = append(out, p)
			split = split || st == "recoverable"
		}
	}
	if !split {
		return nil, nil // nothing to pair: every large record is whole on its line
	}
	return out, nil
}

// pairings counts the ways (up to max) of chaining the pieces into
// records such that every record is valid: each chain starts at a head
// (a chunk 0), takes pieces in file order, every piece but its last is
// whole (a full 524,288-byte write) and its last ends the append, and
// the bytes make one valid JSON value in valid UTF-8. The writers' own
// pairing is one of them; two or more make the file ambiguous.
func pairings(pieces []damagePiece, max int) int {
	var heads []int
	for i, p := range pieces {
		if p.chunk == 0 {
			heads = append(heads, i)
		}
	}
	used := make([]bool, len(pieces))
	count := 0
	// work counts the records checked: past a bound the search gives up,
	// counting what it found.
	work := 0
	// chain extends head h's chain after piece prev.
	var chain func(h int, prev int, buf []byte)
	next := func(h int) {
		if count >= max {
			return
		}
		if h == len(heads) {
			for _, u := range used {
				if !u {
					return // a piece no record took
				}
			}
			count++
			return
		}
		used[heads[h]] = true
		chain(h, heads[h], pieces[heads[h]].data)
		used[heads[h]] = false
	}
	chain = func(h int, prev int, buf []byte) {
		if pieces[prev].last {
			if work++; work > 10000 {
				return
			}
			if json.Valid(buf) && utf8.Valid(buf) {
				next(h + 1)
			}
			return
		}
		if len(pieces[prev].data) != damageChunk {
			return
		}
		for j := prev + 1; j < len(pieces) && count < max; j++ {
			if used[j] || pieces[j].chunk == 0 {
				continue
			}
			used[j] = true
			chain(h, j, append(buf[:len(buf):len(buf)], pieces[j].data...))
			used[j] = false
		}
	}
	next(0)
	return count
}

func TestPairings(t *testing.T) {
	big := func(fill string) []byte {
		b := []byte(`{"role":"tool","content":"`)
		for len(b) < damageChunk {
			b = append(b, fill...)
		}
		return b[:damageChunk]
	}
	tail := func(id string) []byte {
		return []byte(`xyz","toolCallId":"` + id + `","isError":false}` + "\n")
	}
	// A1 B1 A2 B2: plain ASCII content, so each head fits either tail.
	ascii := []damagePiece{
		{rec: 0, chunk: 0, data: big("a")}, {rec: 1, chunk: 0, data: big("b")},
		{rec: 0, chunk: 1, data: tail("A"), last: true}, {rec: 1, chunk: 1, data: tail("B"), last: true},
	}
	if n := pairings(ascii, 5); n != 2 {
		t.Errorf("ASCII heads and tails: %d pairings, want 2", n)
	}
	// B's head ends inside a 2-byte character: only its own tail, which
	// begins with the character's last byte, completes it.
	bHead := big("b")
	bHead[len(bHead)-1] = 0xc3
	utf := []damagePiece{
		{rec: 0, chunk: 0, data: big("a")}, {rec: 1, chunk: 0, data: bHead},
		{rec: 0, chunk: 1, data: tail("A"), last: true}, {rec: 1, chunk: 1, data: append([]byte{0xa9}, tail("B")...), last: true},
	}
	if n := pairings(utf, 5); n != 1 {
		t.Errorf("a character cut at the boundary: %d pairings, want 1", n)
	}
	// A piece that is not a whole write cannot be followed.
	short := []damagePiece{
		{rec: 0, chunk: 0, data: big("a")[:100]}, {rec: 0, chunk: 1, data: tail("A"), last: true},
	}
	if n := pairings(short, 5); n != 0 {
		t.Errorf("a short head: %d pairings, want 0", n)
	}
}

// TestSplitPiecesPairings: A's head, then B whole after it on the same
// line, then A's tail: B is contiguous, but its head may take A's tail
// (and A's head B's), so the file pairs two ways.
func TestSplitPiecesPairings(t *testing.T) {
	rec := func(id, fill string) string {
		b := []byte(`{"role":"tool","content":"`)
		for len(b) < damageChunk+100 {
			b = append(b, fill...)
		}
		return string(b) + `","toolCallId":"` + id + `","isError":false}`
	}
	a, b := rec("A", "a"), rec("B", "b")
	aw, bw := a+"\n", b+"\n"
	data := aw[:damageChunk] + bw[:damageChunk] + bw[damageChunk:] + aw[damageChunk:]
	order := fmt.Sprintf("0.0.0:%d 1.0.0:%d 1.0.1:%d 0.0.1:%d", damageChunk, damageChunk, len(bw)-damageChunk, len(aw)-damageChunk)
	f := damageFile{name: "t", data: []byte(data), truth: damageTruth{
		Happened: json.RawMessage(`{"order":"` + order + `"}`),
		Records:  []damageRecord{{Stream: 0, Text: a, State: "recoverable"}, {Stream: 1, Text: b, State: "recoverable"}},
	}}
	pieces, err := splitPieces(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 4 {
		t.Fatalf("%d pieces, want 4", len(pieces))
	}
	if n := pairings(pieces, 3); n != 2 {
		t.Errorf("%d pairings, want 2", n)
	}
}

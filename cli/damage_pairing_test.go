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

// splitPieces returns the pieces of the recoverable records of f whose
// pieces are not contiguous (split by other appends), from happened.order;
// nil when the truth has no order or no such record.
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
	// Keep the pieces of split records only.
	ends := map[int]int{}
	split := map[int]bool{}
	for _, p := range all {
		if e, ok := ends[p.rec]; ok && e != p.off {
			split[p.rec] = true
		}
		ends[p.rec] = p.off + len(p.data)
	}
	// Only records whose pieces are all there (recoverable): the pieces of
	// a lost one complete nothing.
	var out []damagePiece
	for _, p := range all {
		if split[p.rec] && f.truth.Records[p.rec].State == "recoverable" {
			out = append(out, p)
		}
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
	var chain func(h int, prev int, buf []byte) // extend head h's chain after piece prev
	var next func(h int)
	next = func(h int) {
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

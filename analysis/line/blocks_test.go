package line

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestWordMasks checks the byte classification of the block scanner for
// every byte value in every position of a word, among random neighbours
// (the masks must not carry from one byte into the next).
func TestWordMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			for trial := 0; trial < 64; trial++ {
				var w [8]byte
				for k := range w {
					w[k] = byte(r.Uint32())
				}
				w[pos] = byte(c)
				x := binary.LittleEndian.Uint64(w[:])
				nb, ns := wordMasks(x)
				if nb > 0xFF || ns > 0xFF {
					t.Fatalf("word % x: masks %#x %#x wider than a byte", w, nb, ns)
				}
				for k, v := range w {
					isBS := nb>>k&1 == 0
					isStop := ns>>k&1 == 0
					if v >= 0x80 {
						continue // arbitrary, cleared by the caller
					}
					if isBS != (v == '\\') || isStop != (v == '"' || v < 0x20) {
						t.Fatalf("word % x, byte %d (%#x): backslash %v, quote or control %v", w, k, v, isBS, isStop)
					}
				}
			}
		}
	}
}

// TestBlockMasks compares the gathered masks of blocks with a byte loop.
func TestBlockMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab\\\"\x00\x1f \x7f\x80\xbf\xc3\xe2\xf0\xff")
	for trial := 0; trial < 2000; trial++ {
		var blk [64]byte
		for k := range blk {
			blk[k] = alphabet[r.IntN(len(alphabet))]
		}
		bs, stop, hi := blockMasks(&blk)
		na, leads := nonASCIIMasks(&blk)
		bs, stop = bs&^na, stop&^na
		var wantBS, wantStop, wantNA, wantLeads uint64
		for k, v := range blk {
			if v == '\\' {
				wantBS |= 1 << k
			}
			if v == '"' || v < 0x20 {
				wantStop |= 1 << k
			}
			if v >= 0x80 {
				wantNA |= 1 << k
			}
			if v >= 0xC0 {
				wantLeads |= 1 << k
			}
		}
		if bs != wantBS || stop != wantStop || na != wantNA || leads != wantLeads || (hi != 0) != (wantNA != 0) {
			t.Fatalf("block %q:\nbs    %064b want %064b\nstop  %064b want %064b\nna    %064b want %064b\nleads %064b want %064b\nhi %x",
				blk, bs, wantBS, stop, wantStop, na, wantNA, leads, wantLeads, hi)
		}
	}
}

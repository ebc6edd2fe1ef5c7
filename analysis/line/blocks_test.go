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

// TestBlockMasks compares the masks of blocks, portable and (on amd64)
// assembly, with a byte loop: random blocks over the interesting bytes, and
// every byte value in every position among random neighbours.
func TestBlockMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab\\\"\x00\x1f \x7f\x80\xbf\xc3\xe2\xf0\xff")
	var blocks [][64]byte
	for range 2000 {
		var blk [64]byte
		for k := range blk {
			blk[k] = alphabet[r.IntN(len(alphabet))]
		}
		blocks = append(blocks, blk)
	}
	for c := range 256 {
		for pos := range 64 {
			var blk [64]byte
			for k := range blk {
				blk[k] = byte(r.Uint32())
			}
			blk[pos] = byte(c)
			blocks = append(blocks, blk)
		}
	}
	for _, blk := range blocks {
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
		for _, f := range []struct {
			name  string
			masks func(*[64]byte) (bs, stop, na, leads uint64)
		}{{"allMasks", allMasks}, {"allMasksGeneric", allMasksGeneric}} {
			bs, stop, na, leads := f.masks(&blk)
			if bs != wantBS || stop != wantStop || na != wantNA || leads != wantLeads {
				t.Fatalf("%s of block %q:\nbs    %064b want %064b\nstop  %064b want %064b\nna    %064b want %064b\nleads %064b want %064b",
					f.name, blk, bs, wantBS, stop, wantStop, na, wantNA, leads, wantLeads)
			}
		}
	}
}

// Block scanning: string bytes 64 at a time, classified into bit masks
// (backslashes, quotes and control characters, non-ASCII bytes) by
// allMasks (SSE2 on amd64 in masks_amd64.s, portable Go elsewhere), so that
// a long string costs a few operations per block instead of a branch a byte.

package line

import (
	"encoding/binary"
	"math/bits"
)

// Results of scanBlocks and blockEvents.
const (
	blockEnd  = iota // the closing quote is at next
	blockMore        // continue at next
	blockSlow        // scan from next byte-wise (non-ASCII, control, bad escape)
)

const (
	oddBits = 0xAAAAAAAAAAAAAAAA
	low7    = 0x7F7F7F7F7F7F7F7F
	magic   = 0x0102040810204080 // times the low bit of each byte, gathers them into the top byte
)

// blockMasks returns, bit k for byte k of the 64 bytes, the backslashes and
// the quotes and control characters, and a word whose high bits are set if
// any byte is non-ASCII; when it is not zero, the bits of the non-ASCII
// bytes in the two masks are arbitrary and must be cleared. Unrolled, so every shift is a constant; the masks
// are gathered inverted, which saves a NOT per word.
func blockMasks(blk *[64]byte) (bs, stop, hi uint64) {
	x := binary.LittleEndian.Uint64(blk[0:8])
	nb, ns := wordMasks(x)
	hi = x
	x = binary.LittleEndian.Uint64(blk[8:16])
	b, s := wordMasks(x)
	nb, ns, hi = nb|b<<8, ns|s<<8, hi|x
	x = binary.LittleEndian.Uint64(blk[16:24])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<16, ns|s<<16, hi|x
	x = binary.LittleEndian.Uint64(blk[24:32])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<24, ns|s<<24, hi|x
	x = binary.LittleEndian.Uint64(blk[32:40])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<32, ns|s<<32, hi|x
	x = binary.LittleEndian.Uint64(blk[40:48])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<40, ns|s<<40, hi|x
	x = binary.LittleEndian.Uint64(blk[48:56])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<48, ns|s<<48, hi|x
	x = binary.LittleEndian.Uint64(blk[56:64])
	b, s = wordMasks(x)
	nb, ns, hi = nb|b<<56, ns|s<<56, hi|x
	return ^nb, ^ns, hi & msb
}

// allMasksGeneric is allMasks in portable Go: blockMasks, and for a block
// with non-ASCII bytes their masks, which also clear the arbitrary bits of
// those bytes.
func allMasksGeneric(blk *[64]byte) (bs, stop, na, leads uint64) {
	bs, stop, hi := blockMasks(blk)
	if hi != 0 {
		na, leads = nonASCIIMasks(blk)
		bs &^= na
		stop &^= na
	}
	return bs, stop, na, leads
}

// wordMasks has bit k set for each byte k of x that is NOT a backslash
// (nb), and for each that is NOT a quote or a control character (ns),
// exactly for the ASCII bytes; the bits of non-ASCII bytes are arbitrary
// (callers clear them when a block has such bytes), which saves two
// operations per word. No carry crosses bytes.
func wordMasks(x uint64) (nb, ns uint64) {
	x7 := x & low7
	// A byte is a backslash when its seven bits are 0x5C: adding 0x7F to
	// the difference sets the high bit otherwise.
	nb = ((x7 ^ '\\'*lsb) + low7) & msb
	// x^2 maps '"' to 0x20 and keeps control characters below 0x20, so
	// one comparison (< 0x21, by adding 0x5F) finds both.
	ns = ((x7 ^ 0x02*lsb) + 0x5F*lsb) & msb
	// magic>>7 gathers the high bits as magic gathers the low ones.
	return nb * (magic >> 7) >> 56, ns * (magic >> 7) >> 56
}

// nonASCIIMasks has bit k set for each byte k of the block that is >= 0x80
// (na), and for each that is >= 0xC0 (leads: not a continuation byte).
// Each word's high bits are packed into one bit column of an 8x8 bit
// matrix (byte j of word k at bit 8j+k), transposed at the end.
func nonASCIIMasks(blk *[64]byte) (na, leads uint64) {
	x := binary.LittleEndian.Uint64(blk[0:8])
	na, leads = x&msb>>7, x&(x<<1)&msb>>7
	x = binary.LittleEndian.Uint64(blk[8:16])
	na, leads = na|x&msb>>6, leads|x&(x<<1)&msb>>6
	x = binary.LittleEndian.Uint64(blk[16:24])
	na, leads = na|x&msb>>5, leads|x&(x<<1)&msb>>5
	x = binary.LittleEndian.Uint64(blk[24:32])
	na, leads = na|x&msb>>4, leads|x&(x<<1)&msb>>4
	x = binary.LittleEndian.Uint64(blk[32:40])
	na, leads = na|x&msb>>3, leads|x&(x<<1)&msb>>3
	x = binary.LittleEndian.Uint64(blk[40:48])
	na, leads = na|x&msb>>2, leads|x&(x<<1)&msb>>2
	x = binary.LittleEndian.Uint64(blk[48:56])
	na, leads = na|x&msb>>1, leads|x&(x<<1)&msb>>1
	x = binary.LittleEndian.Uint64(blk[56:64])
	na, leads = na|x&msb, leads|x&(x<<1)&msb
	return transpose8(na), transpose8(leads)
}

// transpose8 transposes the 8x8 bit matrix whose row j is byte j of x
// (Hacker's Delight, 7-3): bit 8j+k moves to bit 8k+j.
func transpose8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	return x ^ t ^ t<<28
}

// escAdj is, for the byte after an escaping backslash, how much shorter
// JSON.stringify writes the escape than its raw bytes (\/ becomes /), or
// escSlow for the escapes a block leaves to the event loop (\u, errors).
var escAdj = func() (t [256]uint8) {
	for c := range t {
		t[c] = escSlow
	}
	for _, c := range `"\\bfnrt` {
		t[c] = 0
	}
	t['/'] = 1
	return t
}()

// escSumRest adds up escAdj over the escaped bytes (bits of esc) of the
// block after the first four.
func escSumRest(blk *[64]byte, esc uint64) uint {
	var adj uint
	for ; esc != 0; esc &= esc - 1 {
		adj += uint(escAdj[blk[bits.TrailingZeros64(esc)]])
	}
	return adj
}

// escSlow is above any sum of escAdj over the at most 32 escapes of a block.
const escSlow = 64

// scanBlocks scans string bytes 64 at a time from b[i], a character
// boundary outside any escape, while a whole block and the byte after it
// remain. It processes the escapes and non-ASCII characters it meets in
// order and stops at the closing quote (blockEnd), at a byte the byte-wise
// scanner must see (a control character or a bad escape: blockSlow), or
// near the end of b (blockMore). d is the escapes' length adjustment and w
// the non-ASCII text's (raw bytes minus UTF-16 units).
func scanBlocks(b []byte, i int) (next, status, d, w int, flags uint8) {
	for i+64 < len(b) {
		blk := (*[64]byte)(b[i : i+64])
		bsM, stopM, naM, leadM := allMasks(blk)
		// Fast path: which backslashes escape (the start of each odd run,
		// found by subtraction as simdjson does), hence which quote ends
		// the string; the escaped characters are only summed through a
		// table, and valid UTF-8 is measured from its lead bytes without
		// decoding.
		escaper := ((bsM<<1 | oddBits) - bsM ^ oddBits) & bsM
		escaped := escaper << 1
		limit := bits.TrailingZeros64(stopM &^ escaped) // 64 when there is no stop
		if limit == 64 || blk[limit&63] == '"' {
			below := uint64(1)<<uint(limit) - 1 // all ones for 64
			esc := escaped & below
			// escSum, inlined: the escaped characters summed through
			// escAdj, the first four without branches, so that the
			// varying number of escapes per block costs no mispredicted
			// loop exit. Once esc is exhausted, TrailingZeros64 gives 64,
			// which reads the byte after the block; those reads are
			// subtracted. The positions are found before any byte is
			// read because BSF, which TrailingZeros64 compiles to for
			// older CPUs, waits for the old value of its destination
			// register, which could otherwise chain one read to the last.
			blk65 := (*[65]byte)(b[i : i+65])
			e1 := esc & (esc - 1)
			e2 := e1 & (e1 - 1)
			e3 := e2 & (e2 - 1)
			t0 := bits.TrailingZeros64(esc)
			t1 := bits.TrailingZeros64(e1)
			t2 := bits.TrailingZeros64(e2)
			t3 := bits.TrailingZeros64(e3)
			adj := uint(escAdj[blk65[t0]]) + uint(escAdj[blk65[t1]]) + uint(escAdj[blk65[t2]]) + uint(escAdj[blk65[t3]])
			if rest := e3 & (e3 - 1); rest != 0 {
				adj += escSumRest(blk, rest)
			} else {
				adj -= uint(max(0, 4-bits.OnesCount64(esc))) * uint(escAdj[blk65[64]])
			}
			if adj < escSlow {
				if esc != 0 {
					flags |= fEscape
				}
				d += int(adj)
				next := i + 64
				if escaper>>63 == 1 {
					// The last backslash escapes the next block's first
					// byte: start the next block at that backslash.
					next = i + 63
				}
				// Escaped non-ASCII bytes were bad escapes, so every byte
				// of naM below limit starts or continues a character
				// outside escapes.
				if na := naM & below; na != 0 {
					end, dw, invalid := blockUTF8(b, i, na, leadM&below)
					w += dw
					if invalid {
						flags |= fInvalid
					}
					// Only when nothing stops the block can the last
					// character go on into the next one.
					next = max(next, end)
				}
				if limit < 64 {
					return i + limit, blockEnd, d, w, flags
				}
				i = next
				continue
			}
		}
		// Slow path, one event at a time in order.
		next, st, dd, dw, f := blockEvents(b, i, bsM|stopM|naM)
		d += dd
		w += dw
		flags |= f
		if st != blockMore {
			return next, st, d, w, flags
		}
		i = next
	}
	return i, blockMore, d, w, flags
}

// blockUTF8 measures the non-ASCII bytes na of the block at b[i:], whose
// lead bytes are leads, and returns the end of the last character (which
// may lie past the block), their bytes minus UTF-16 units, and whether an
// invalid sequence was decoded as U+FFFD.
func blockUTF8(b []byte, i int, na, leads uint64) (end, w int, invalid bool) {
	// A few characters among ASCII text are measured without branches;
	// runs of text in other scripts go faster through decodeRun, whose
	// branches predict well there.
	if bits.OnesCount64(leads) <= 4 {
		if end, w, ok := utf8Block(b, i, na, leads); ok {
			return end, w, false
		}
	}
	for na != 0 {
		e, dw, inv := decodeRun(b, i+bits.TrailingZeros64(na))
		w += dw
		invalid = invalid || inv
		end = e
		if e-i >= 64 {
			break
		}
		na &^= uint64(1)<<uint(e-i) - 1
	}
	return end, w, invalid
}

// utf8Block measures the non-ASCII bytes na (bits of the block at b[i:])
// when they are all valid UTF-8, whose lead bytes (>= 0xC0) are leads. It
// returns the end of the last character (which may lie past the block),
// the bytes minus UTF-16 units of them all, and ok; ok is false when any
// sequence is invalid, and the caller must decode the slow way. Each lead
// is checked on its own, without a chain of lengths from one character to
// the next, and a count rules out stray continuation bytes: together the
// characters cover as many bytes as there are non-ASCII ones.
func utf8Block(b []byte, i int, na, leads uint64) (end, w int, ok bool) {
	if leads == 0 {
		return 0, 0, false // only continuation bytes
	}
	// The last lead is checked here so the loop need not: a four-byte
	// load at each lead must stay in b.
	last := i + 63 - bits.LeadingZeros64(leads)
	if last+4 > len(b) {
		return 0, 0, false
	}
	var bad uint64
	covered := 0
	for l := leads; l != 0; l &= l - 1 {
		// Nothing here feeds the next iteration's position, which keeps
		// the iterations independent of each other's loads.
		x := binary.LittleEndian.Uint32(b[i+bits.TrailingZeros64(l):])
		info := utf8Lead[byte(x)]
		// The second byte within [lo, lo+span]: both differences >= 0.
		dd := int64(x>>8&0xFF) - int64(info.lo)
		bad |= uint64(dd|(int64(info.span)-dd)) >> 63
		bad |= uint64(x&contMask[info.n&7] ^ contWant[info.n&7])
		w += int(info.w)
		covered += int(info.n)
	}
	end = last + int(utf8Lead[b[last]].n)
	// Bytes of the last character past the block are not in na.
	beyond := max(0, end-(i+64))
	if bad != 0 || covered != bits.OnesCount64(na)+beyond {
		return 0, 0, false
	}
	return end, w, true
}

// blockEvents scans the block b[i:i+64] the slow way, one event (a bit of
// ev: a backslash or another non-plain byte) at a time, for scanBlocks.
func blockEvents(b []byte, i int, ev uint64) (next, status, d, w int, flags uint8) {
	blk := b[i : i+64 : i+64]
	for ev != 0 {
		j := bits.TrailingZeros64(ev)
		pos := i + j
		c := blk[j]
		switch {
		case c == '"':
			return pos, blockEnd, d, w, flags
		case c >= 0x80:
			end, dw, invalid := decodeRun(b, pos)
			w += dw
			if invalid {
				flags |= fInvalid
			}
			if end-i >= 64 {
				return end, blockMore, d, w, flags
			}
			ev &^= uint64(1)<<uint(end-i) - 1
			continue
		case c != '\\':
			return pos, blockSlow, d, w, flags // a control character
		}
		flags |= fEscape
		switch escClass[b[pos+1]] {
		case escSame:
		case escSlash:
			d++
		case escU:
			u, ok := hex4(b, pos+2)
			if !ok {
				return pos, blockSlow, d, w, flags
			}
			after := pos + 6
			if u >= 0xD800 && u < 0xDC00 && pos+12 <= len(b) && b[pos+6] == '\\' && b[pos+7] == 'u' {
				if v, ok := hex4(b, pos+8); ok && v >= 0xDC00 && v <= 0xDFFF {
					d += 10
					after = pos + 12
				} else {
					d += 6 - escCost(u)
				}
			} else {
				d += 6 - escCost(u)
			}
			if after-i >= 64 {
				return after, blockMore, d, w, flags
			}
			ev &^= uint64(1)<<uint(after-i) - 1
			continue
		default:
			return pos, blockSlow, d, w, flags
		}
		if j == 63 {
			return pos + 2, blockMore, d, w, flags
		}
		ev &^= 3 << uint(j)
	}
	return i + 64, blockMore, d, w, flags
}

// leadInfo describes a byte as the start of a valid UTF-8 sequence: its
// length n (0 if it cannot start one), the range [lo, lo+span] of valid
// second bytes, and w, the sequence's bytes minus its UTF-16 units.
type leadInfo struct{ n, lo, span, w uint8 }

var utf8Lead = func() (t [256]leadInfo) {
	for c := 0xC2; c <= 0xF4; c++ {
		switch {
		case c <= 0xDF:
			t[c] = leadInfo{n: 2, lo: 0x80, span: 0x3F, w: 1}
		case c == 0xE0:
			t[c] = leadInfo{n: 3, lo: 0xA0, span: 0x1F, w: 2}
		case c == 0xED: // not the surrogates
			t[c] = leadInfo{n: 3, lo: 0x80, span: 0x1F, w: 2}
		case c <= 0xEF:
			t[c] = leadInfo{n: 3, lo: 0x80, span: 0x3F, w: 2}
		case c == 0xF0:
			t[c] = leadInfo{n: 4, lo: 0x90, span: 0x2F, w: 2}
		case c == 0xF4:
			t[c] = leadInfo{n: 4, lo: 0x80, span: 0x0F, w: 2}
		default:
			t[c] = leadInfo{n: 4, lo: 0x80, span: 0x3F, w: 2}
		}
	}
	return t
}()

// contMask and contWant check, for a sequence of length n loaded as a
// little-endian word, that its third and fourth bytes are continuation
// bytes as needed; for n == 0 they demand a lead byte of 0, never true.
var (
	contMask = [8]uint32{0: 0xFF, 2: 0, 3: 0xC00000, 4: 0xC0C00000}
	contWant = [8]uint32{0: 0, 2: 0, 3: 0x800000, 4: 0x80800000}
)

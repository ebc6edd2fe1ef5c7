//go:build !purego

package line

// allMasks returns, bit k for byte k of the block, the backslashes, the
// quotes and control characters (< 0x20), the non-ASCII bytes (>= 0x80)
// and the UTF-8 lead bytes among them (>= 0xC0), all exact. In assembly:
// SSE2 compares and gathers 16 bytes in a few instructions where the
// portable version (allMasksGeneric) needs dozens of word operations.
//
//go:noescape
func allMasks(blk *[64]byte) (bs, stop, na, leads uint64)

//go:build !amd64 || purego

// The portable block classifier: every architecture but amd64, and amd64
// too with -tags purego (the Go convention for "no assembly"), which CI runs
// so that both paths stay tested on the same machine.

package line

// allMasks returns, bit k for byte k of the block, the backslashes, the
// quotes and control characters (< 0x20), the non-ASCII bytes (>= 0x80)
// and the UTF-8 lead bytes among them (>= 0xC0), all exact.
func allMasks(blk *[64]byte) (bs, stop, na, leads uint64) {
	return allMasksGeneric(blk)
}

package transport

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault the pages
// of a range in, writable, in one call.
const madvPopulateWrite = 23

// populate backs the whole pages within b with memory now, in one system
// call, rather than one page fault at a time as the bytes are written. Its
// contents are unchanged. An older kernel refuses the advice (EINVAL), and
// the pages then fault in as before.
func populate(b []byte) {
	const page = 4 << 10
	if len(b) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((page - p%page) % page) // the first page boundary in b
	hi := lo + (len(b)-lo)/page*page  // the last
	if lo >= len(b) || hi <= lo {
		return
	}
	_ = syscall.Madvise(b[lo:hi], madvPopulateWrite)
}

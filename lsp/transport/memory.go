package transport

import (
	"os"
	"runtime/debug"
)

// Memory at scale (issue 12). A large session arrives in one didOpen whose
// text becomes the document (fastdecode.go), so the server's peak memory is
// set by two things: the body's buffer while it is read, and the garbage
// the collector lets pile up above the live heap (the document) before it
// runs.

// nextBodyCap is the capacity a body's buffer grows to when it is full
// with got bytes of length. It doubles, so that memory follows the bytes
// that arrived (a peer that declares 2 GiB and sends ten bytes costs
// firstBodyChunk), but once an eighth of the body is in, the buffer takes
// the whole body at once: each doubling holds the old buffer and the new
// one together, and the last doublings of a 50 MB body (32 MiB and
// 64 MiB) cost 1.6 times the body at their peak, where this costs 1.125
// to 1.25. Memory stays within eight times the bytes received.
func nextBodyCap(got, capacity int, length int64) int64 {
	if int64(got)*8 >= length {
		return length
	}
	return min(length, 2*int64(capacity))
}

// gcPercent is the collector's target for a server process: the heap may
// grow by half of the live heap between collections, not by all of it (Go's
// default, 100). The live heap of a server with a large session open is
// mostly the document's text, which holds no pointers and costs the
// collector next to nothing to mark, so collecting twice as often is cheap,
// and the peak resident size through edits and lens requests on a 50 MB
// document falls from about 3.6 times the document to under 3.
const gcPercent = 50

// TuneGC sets gcPercent for the process, unless GOGC says otherwise, and
// returns what restores the previous setting.
func TuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(gcPercent)
	return func() { debug.SetGCPercent(prev) }
}

// A large body's buffer is fresh memory, and a page fault for each 4 KiB
// page the bytes are written to cost, on the virtual machines measured for
// issue 19, as much as checking the text: 25 to 60 ms of a 50 MB open.
// populate (MADV_POPULATE_WRITE) backs a range in one system call at about
// half that. readBody populates a buffer of populateMin or more ahead of
// the reader, populateStep at a time, so the pages made resident stay
// within populateStep of the bytes that arrived.
const (
	populateMin  = 4 << 20
	populateStep = 2 << 20
)

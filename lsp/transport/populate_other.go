//go:build !linux

package transport

// populate does nothing where MADV_POPULATE_WRITE does not exist: the
// pages fault in as the bytes are written.
func populate([]byte) {}

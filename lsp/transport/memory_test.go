package transport

import (
	"runtime/debug"
	"testing"
)

func TestNextBodyCap(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		got, capacity int
		length, want  int64
	}{
		{64 << 10, 64 << 10, 2 << 30, 128 << 10}, // a hostile header: doubling
		{4 * mib, 4 * mib, 50 * mib, 8 * mib},    // under an eighth: doubling
		{8 * mib, 8 * mib, 50 * mib, 50 * mib},   // an eighth in: the whole body
		{64 << 10, 64 << 10, 100 << 10, 100 << 10},
		{32 * mib, 32 * mib, 40 * mib, 40 * mib},
	} {
		if actual := nextBodyCap(tc.got, tc.capacity, tc.length); actual != tc.want {
			t.Fatalf("%+v: nextBodyCap(tc.got, tc.capacity, tc.length) = %v, want %v", tc, actual, tc.want)
		}
	}
}

// TestTuneGC sets the process's GC percent: it must not run in parallel.
func TestTuneGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)

	t.Setenv("GOGC", "")
	restore := TuneGC()
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Fatalf("GOGC unset: TuneGC sets gcPercent: debug.SetGCPercent(gcPercent) = %v, want %v", got, gcPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("restore puts the previous value back: debug.SetGCPercent(100) = %v, want %v", got, 100)
	}

	t.Setenv("GOGC", "200")
	restore = TuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC set: TuneGC leaves the collector alone: debug.SetGCPercent(100) = %v, want %v", got, 100)
	}
	restore()
}

// TestPopulateKeepsContents: populate only backs pages; the bytes of the
// buffer, inside and around the whole pages it covers, are unchanged and
// writable, whatever the alignment of the range.
func TestPopulateKeepsContents(t *testing.T) {
	buf := make([]byte, 3<<20)
	for i := range buf {
		buf[i] = byte(i*7 + 3)
	}
	for _, r := range [][2]int{{0, 0}, {1, 2}, {0, len(buf)}, {5, 4096*3 + 11}, {4095, 8193}, {100, len(buf) - 100}} {
		populate(buf[r[0]:r[1]])
		for i := range buf {
			if buf[i] != byte(i*7+3) {
				t.Fatalf("populate(buf[%d:%d]) changed byte %d to %#x", r[0], r[1], i, buf[i])
			}
		}
	}
	for i := range buf {
		buf[i] = ^byte(i*7 + 3)
	}
	for i := range buf {
		if buf[i] != ^byte(i*7+3) {
			t.Fatalf("byte %d is not writable after populate", i)
		}
	}
}

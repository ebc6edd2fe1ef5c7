package transport

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
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
		require.Equal(t, tc.want, nextBodyCap(tc.got, tc.capacity, tc.length), "%+v", tc)
	}
}

// TestTuneGC sets the process's GC percent: it must not run in parallel.
func TestTuneGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)

	t.Setenv("GOGC", "")
	restore := TuneGC()
	require.Equal(t, gcPercent, debug.SetGCPercent(gcPercent), "GOGC unset: TuneGC sets gcPercent")
	restore()
	require.Equal(t, 100, debug.SetGCPercent(100), "restore puts the previous value back")

	t.Setenv("GOGC", "200")
	restore = TuneGC()
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: TuneGC leaves the collector alone")
	restore()
}

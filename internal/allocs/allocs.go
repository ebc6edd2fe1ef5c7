// Package allocs measures the bytes a piece of code allocates, for tests
// that bound memory by bytes (testing.AllocsPerRun counts allocations).
package allocs

import (
	"math"
	"runtime"
)

// Least is the fewest bytes the process allocated over five runs of f
// (each after setup, when given). The count is the whole process's: other
// goroutines only add to it, so the least of several runs is f's.
func Least(f func(), setup ...func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 5 {
		for _, s := range setup {
			s()
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		least = min(least, m1.TotalAlloc-m0.TotalAlloc)
	}
	return least
}

// Once is the bytes the process allocated during one run of f, for code
// that can run only once (it consumes its input) or is too costly to run
// five times; a collection first leaves less for other goroutines to add.
func Once(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

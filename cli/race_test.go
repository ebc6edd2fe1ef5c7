//go:build race

package cli

// raceEnabled: under the race detector sync.Pool drops what it is given
// at random and allocations differ, so byte counts are measured without it.
const raceEnabled = true

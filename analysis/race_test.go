//go:build race

package analysis

// raceEnabled shrinks the tests that stream hundreds of megabytes: under
// the race detector every load in the engine's loops is instrumented.
const raceEnabled = true

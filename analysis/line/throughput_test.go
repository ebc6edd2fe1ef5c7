//go:build unix

package line

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCPUThroughput reports MB per CPU-second (robust on a shared machine).
func TestCPUThroughput(t *testing.T) {
	if os.Getenv("LINE_CPU") == "" {
		t.Skip("set LINE_CPU")
	}
	for _, c := range benchLines(t) {
		line := []byte(c.line)
		best := 0.0
		for rep := 0; rep < 5; rep++ {
			n := 20000000 / len(line)
			start := cpuTime(t)
			for i := 0; i < n; i++ {
				Parse(line)
			}
			d := cpuTime(t) - start
			mbs := float64(n*len(line)) / d.Seconds() / 1e6
			best = max(best, mbs)
		}
		t.Logf("%-24s %8.0f MB/s per CPU", c.name, best)
	}
	lines, total := transcriptLines(t, 8<<20)
	best := 0.0
	for rep := 0; rep < 3; rep++ {
		start := cpuTime(t)
		for k := 0; k < 3; k++ {
			for _, l := range lines {
				Parse(l)
			}
		}
		best = max(best, float64(3*total)/(cpuTime(t)-start).Seconds()/1e6)
	}
	t.Logf("%-24s %8.0f MB/s per CPU", "transcript-8MB", best)
}

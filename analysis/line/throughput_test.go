//go:build unix

package line

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPUThroughput adds a MB/cpu-s metric to b: megabytes parsed per
// second of CPU time, which a machine shared with other work disturbs far
// less than the wall-clock MB/s. Parsing runs on one goroutine, so the
// process's CPU time is the parser's plus the runtime's own.
func reportCPUThroughput(b *testing.B, bytesPerOp int64, start time.Duration) {
	b.Helper()
	if d := cpuTime(b) - start; d > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
	}
}

// BenchmarkParseCPU is BenchmarkParse and BenchmarkParseTranscript measured
// in CPU time: go test -run XXX -bench ParseCPU ./analysis/line
func BenchmarkParseCPU(b *testing.B) {
	for _, c := range benchLines(b) {
		line := []byte(c.line)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			start := cpuTime(b)
			for b.Loop() {
				Parse(line)
			}
			reportCPUThroughput(b, int64(len(line)), start)
		})
	}
	b.Run("transcript-8MB", func(b *testing.B) {
		lines, total := transcriptLines(b, 8<<20)
		b.SetBytes(total)
		start := cpuTime(b)
		for b.Loop() {
			for _, l := range lines {
				Parse(l)
			}
		}
		reportCPUThroughput(b, total, start)
	})
}

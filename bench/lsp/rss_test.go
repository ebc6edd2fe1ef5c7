package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// TestMain lets the test binary be its own child: with
// BENCH_LSP_ALLOC_MIB set it touches that many MiB and exits.
func TestMain(m *testing.M) {
	if v := os.Getenv("BENCH_LSP_ALLOC_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			os.Exit(3)
		}
		b := make([]byte, n<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		runtime.KeepAlive(b)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMeasureOwnRSS (issue 16): the peak RSS measured for a child is its
// own, not this process's: with 256 MiB held here, a child that touches
// 0 or 64 MiB is measured at about that. (wait4's ru_maxrss reports this
// process's 256 MiB for both: Go's vfork-style start runs the child in
// this process's memory until its exec.)
func TestMeasureOwnRSS(t *testing.T) {
	held := make([]byte, 256<<20)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	child := func(mib int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "BENCH_LSP_ALLOC_MIB="+strconv.Itoa(mib))
		return cmd
	}
	rss := map[int]int64{}
	for _, mib := range []int{0, 64} {
		res, err := measure(child(mib))
		if err != nil {
			t.Fatalf("%d MiB: %v", mib, err)
		}
		rss[mib] = res.rss >> 20
		// What the old measure said, for the record.
		cmd := child(mib)
		if err := cmd.Run(); err == nil {
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				t.Logf("%d MiB: measured %d MiB; wait4's ru_maxrss says %d MiB", mib, rss[mib], ru.Maxrss>>10)
			}
		}
	}
	// Bounds, not equalities: a race-enabled child maps shadow memory for
	// what it touches.
	parent := int64(len(held) >> 20)
	if rss[0] >= 64 {
		t.Errorf("a child touching nothing measured at %d MiB (this process holds %d MiB)", rss[0], parent)
	}
	if d := rss[64] - rss[0]; d < 64 || rss[64] >= parent {
		t.Errorf("a child touching 64 MiB measured at %d MiB, %d MiB more than one touching nothing (this process holds %d MiB)", rss[64], d, parent)
	}
	runtime.KeepAlive(held)
}

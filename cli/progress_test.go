package cli

import (
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	if got := progressLine(120, 3400, 824_000_000, 2*time.Second); got != "checked 120/3,400 files · 412 MB/s" {
		t.Errorf("progressLine(120, 3400, 824_000_000, 2*time.Second) = %q, want %q", got, "checked 120/3,400 files · 412 MB/s")
	}
	if got := progressLine(0, 1, 0, 0); got != "checked 0/1 files · 0 MB/s" {
		t.Errorf("progressLine(0, 1, 0, 0) = %q, want %q", got, "checked 0/1 files · 0 MB/s")
	}
}

func TestProgressOnlyOnATerminalAfterASecond(t *testing.T) {
	var done, bytesRead = newCounter(3), newCounter(5_000_000)
	// Nothing when stderr is not a terminal, nor on one before the first second.
	for _, tc := range []struct {
		name string
		tty  bool
	}{{"not a terminal", false}, {"terminal, fast run", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, errb := testEnv("", nil)
			lb := &lockedBuffer{b: errb}
			e.stderr = lb
			e.stderrTTY = tc.tty
			p := newProgress(e, 10, done, bytesRead)
			time.Sleep(3 * progressInterval)
			p.stop()
			if got := lb.String(); got != "" {
				t.Errorf("stderr = %q, want empty", got)
			}
		})
	}
	t.Run("terminal, slow run", func(t *testing.T) {
		e, _, errb := testEnv("", nil)
		lb := &lockedBuffer{b: errb}
		e.stderr = lb
		e.stderrTTY = true
		// The first reading is the start; every later one is 5 s on.
		start, calls := time.Now(), newCounter(0)
		e.now = func() time.Time {
			if calls.Add(1) == 1 {
				return start
			}
			return start.Add(5 * time.Second)
		}
		p := newProgress(e, 10, done, bytesRead)
		time.Sleep(350 * time.Millisecond)
		p.stop()
		out := lb.String()
		if !strings.Contains(out, "checked 3/10 files · ") {
			t.Errorf("out = %q, want it to contain %q", out, "checked 3/10 files · ")
		}
		// Refreshed at most ten times a second, and erased at the end.
		if got := strings.Count(out, "checked"); got > 4 {
			t.Errorf(`strings.Count(out, "checked") = %v, want <= %v`, got, 4)
		}
		if !strings.HasSuffix(out, "\r\x1b[K") {
			t.Errorf(`progress line not cleared: %q: strings.HasSuffix(out, "\r\x1b[K") is false, want true`, out)
		}
	})
}

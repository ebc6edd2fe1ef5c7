package cli

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sessionls/sessionls/internal/textfmt"
)

// progress shows `checked 120/3,400 files · 412 MB/s` on stderr while a
// long check runs: only on a terminal, only after the first second, at most
// ten times a second, and erased before results are printed and at the end.
type progress struct {
	e        *env
	total    int
	done     *atomic.Int64
	bytes    *atomic.Int64
	start    time.Time
	mu       sync.Mutex
	drawn    bool
	stopped  bool
	quit     chan struct{}
	finished chan struct{}
}

const (
	progressDelay    = time.Second
	progressInterval = 100 * time.Millisecond
)

func newProgress(e *env, total int, done, bytes *atomic.Int64) *progress {
	p := &progress{e: e, total: total, done: done, bytes: bytes, start: e.now(),
		quit: make(chan struct{}), finished: make(chan struct{})}
	if !e.stderrTTY {
		close(p.finished)
		p.stopped = true
		return p
	}
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer close(p.finished)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.draw()
		}
	}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	elapsed := p.e.now().Sub(p.start)
	if elapsed <= progressDelay {
		return
	}
	fmt.Fprintf(p.e.stderr, "\r\x1b[K%s", progressLine(int(p.done.Load()), p.total, p.bytes.Load(), elapsed))
	p.drawn = true
}

// clear erases the line so that results printed next start on a clean line.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

func (p *progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
		p.drawn = false
	}
}

// stop ends the display and erases it; safe to call twice.
func (p *progress) stop() {
	p.mu.Lock()
	if !p.stopped {
		p.stopped = true
		close(p.quit)
	}
	p.clearLocked()
	p.mu.Unlock()
	<-p.finished
}

func progressLine(done, total int, bytes int64, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(bytes) / 1e6 / s
	}
	return fmt.Sprintf("checked %s/%s files · %s MB/s", textfmt.Thousands(int64(done)), textfmt.Thousands(int64(total)), textfmt.Thousands(int64(rate+0.5)))
}

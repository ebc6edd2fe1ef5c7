package analysis

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// pool runs the engine's parallel work on a fixed number of goroutines and
// carries the first panic of any of them to the goroutine that waits for
// them. A panic left in a worker would kill the whole process (the CLI
// checking other files, the language server serving other documents);
// carried over, it reaches the caller's own recover or error handling, with
// the worker's stack. Analyze, AnalyzeReader and Document all go through it.
type pool struct {
	workers int
	once    sync.Once
	hit     atomic.Bool
	val     any
	stack   []byte
}

func newPool(workers int) *pool { return &pool{workers: max(1, workers)} }

// run starts p.workers goroutines running worker and waits for them. It
// returns the first panic of any of them as an error (nil without one); the
// others run on, and should stop early when failed says so.
func (p *pool) run(worker func()) error {
	var wg sync.WaitGroup
	for range p.workers {
		wg.Go(func() {
			defer p.capture()
			worker()
		})
	}
	wg.Wait()
	return p.err()
}

// each runs f(k) for every k in [0, n), handing out the indexes in order to
// whichever worker is free; it stops handing them out after a panic.
func (p *pool) each(n int, f func(k int)) error {
	var next atomic.Int64
	return p.run(func() {
		for !p.failed() {
			k := int(next.Add(1) - 1)
			if k >= n {
				return
			}
			f(k)
		}
	})
}

// guard runs f inside a worker that must go on after a panic (one that
// passes every job on, so that the pipeline around it drains); the panic is
// kept as run's error.
func (p *pool) guard(f func()) {
	defer p.capture()
	f()
}

func (p *pool) capture() {
	if v := recover(); v != nil {
		p.once.Do(func() {
			p.val, p.stack = v, debug.Stack()
			p.hit.Store(true)
		})
	}
}

// failed tells workers that one of them has panicked.
func (p *pool) failed() bool { return p.hit.Load() }

// err is the captured panic as an error (nil without one). Read it once the
// workers are done: run's WaitGroup orders the accesses.
func (p *pool) err() error {
	if !p.hit.Load() {
		return nil
	}
	return fmt.Errorf("analysis: internal error while parsing (please report it): %v\n%s", p.val, p.stack)
}

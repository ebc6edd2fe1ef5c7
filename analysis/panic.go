package analysis

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// panicBox carries the first panic of a worker goroutine to the goroutine
// that waits for the workers. A panic left in a worker would kill the whole
// process (the CLI checking other files, the language server serving other
// documents); carried over, it reaches the caller's own recover or error
// handling. Read it only after the workers are done (WaitGroup.Wait or the
// close of their results channel orders the accesses).
type panicBox struct {
	once  sync.Once
	hit   atomic.Bool
	val   any
	stack []byte
}

// capture is deferred in a worker.
func (b *panicBox) capture() {
	if v := recover(); v != nil {
		b.once.Do(func() {
			b.val, b.stack = v, debug.Stack()
			b.hit.Store(true)
		})
	}
}

// caught tells workers to stop early once one has panicked.
func (b *panicBox) caught() bool { return b.hit.Load() }

// err is the captured panic as an error (nil without one).
func (b *panicBox) err() error {
	if !b.hit.Load() {
		return nil
	}
	return fmt.Errorf("analysis: internal error while parsing (please report it): %v\n%s", b.val, b.stack)
}

// rethrow panics again in the caller's goroutine.
func (b *panicBox) rethrow() {
	if err := b.err(); err != nil {
		panic(err)
	}
}

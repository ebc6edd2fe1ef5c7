package analysis

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
)

// AnalyzeReader analyses a stream, split at line boundaries across cores,
// with memory bounded by the longest line. It fails only on a read error or
// a cancelled ctx; every verdict about the content is in the Report.
//
// The stream is read in chunks of about a megabyte, each cut after its last
// '\n' (the partial line is carried into the next chunk; a line longer than
// a chunk grows the buffer until it fits). Chunks are parsed by GOMAXPROCS
// workers and their results merged in order, so the report equals
// Analyze's on the same bytes. At most 2×GOMAXPROCS+2 chunks are in flight
// (read, parsed or waiting to be merged), which bounds memory; with
// Options.SkipMessages the report itself keeps 24 bytes per message.
//
// Cancellation is checked between reads; a Read that blocks is not
// interrupted (close the reader to stop it).
func AnalyzeReader(ctx context.Context, r io.Reader, opts Options) (*Report, error) {
	e := newEngine()
	return e.analyzeReader(ctx, r, opts)
}

// chunkJob is one run of whole lines, numbered in stream order.
type chunkJob struct {
	seq int
	buf []byte
	t   *tally
}

// bufferPool hands out chunk buffers. A token is taken with each buffer and
// given back only when the chunk's results are merged, so at most cap(tokens)
// chunks exist at once, whether being read, parsed or waiting for their turn
// to be merged. Buffers grown for a long line are not kept for reuse.
type bufferPool struct {
	chunk  int
	tokens chan struct{}
	free   chan []byte
}

func newBufferPool(chunk, n int) *bufferPool {
	return &bufferPool{chunk: chunk, tokens: make(chan struct{}, n), free: make(chan []byte, n)}
}

// get takes a token and an empty buffer; it fails only when ctx is done.
func (p *bufferPool) get(ctx context.Context) ([]byte, error) {
	select {
	case p.tokens <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case b := <-p.free:
		return b[:0], nil
	default:
		return make([]byte, 0, p.chunk), nil
	}
}

// recycle returns a buffer for reuse; its token stays taken.
func (p *bufferPool) recycle(b []byte) {
	if cap(b) != p.chunk {
		return
	}
	select {
	case p.free <- b:
	default:
	}
}

// release gives back the token of a merged chunk.
func (p *bufferPool) release() { <-p.tokens }

func (e *engine) analyzeReader(ctx context.Context, r io.Reader, opts Options) (*Report, error) {
	inFlight := 2*e.workers + 2
	bufs := newBufferPool(e.chunk, inFlight)
	tallies := sync.Pool{New: func() any { return new(tally) }}
	jobs := make(chan chunkJob, inFlight)
	done := make(chan chunkJob, inFlight)

	// readErr is written by the reader before it closes jobs, and read
	// after done is closed, which happens after every worker saw jobs
	// closed: the channel operations order the two.
	var readErr error
	go func() {
		defer close(jobs)
		readErr = e.readChunks(ctx, r, bufs, jobs)
	}()

	// A worker passes every job on, even after a panic (it only stops
	// parsing), so that the reader and the merge below drain. poolErr is
	// written before done is closed and read after.
	workers := newPool(e.workers)
	var poolErr error
	go func() {
		poolErr = workers.run(func() {
			for j := range jobs {
				j.t = tallies.Get().(*tally)
				if ctx.Err() == nil && !workers.failed() {
					workers.guard(func() { parseLines(e.parse, j.buf, j.t) })
				}
				bufs.recycle(j.buf)
				j.buf = nil
				done <- j
			}
		})
		close(done)
	}()

	// Merge in stream order. Results that arrive early wait in pending;
	// there are fewer than inFlight of them.
	c := newCollector(opts)
	pending := make(map[int]*tally, inFlight)
	next := 0
	for j := range done {
		pending[j.seq] = j.t
		for {
			t, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if ctx.Err() == nil {
				c.add(t)
			}
			t.reset()
			tallies.Put(t)
			bufs.release()
		}
	}
	if poolErr != nil {
		return nil, poolErr
	}
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("analysis: reading the session: %w", err)
	}
	return c.finish(), nil
}

// readChunks reads r into chunks that end after a '\n' (the last one: at
// the end of the stream) and sends them to jobs in order.
func (e *engine) readChunks(ctx context.Context, r io.Reader, bufs *bufferPool, jobs chan<- chunkJob) error {
	send := func(j chunkJob) error {
		select {
		case jobs <- j:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("analysis: reading the session: %w", ctx.Err())
		}
	}
	buf, err := bufs.get(ctx)
	if err != nil {
		return fmt.Errorf("analysis: reading the session: %w", err)
	}
	seq := 0
	scanned := 0 // buf[:scanned] holds no '\n'
	for {
		for len(buf) < cap(buf) {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("analysis: reading the session: %w", err)
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				return send(chunkJob{seq: seq, buf: buf})
			}
			if err != nil {
				return fmt.Errorf("analysis: reading the session: %w", err)
			}
		}
		// The buffer is full: cut after its last '\n'.
		p := bytes.LastIndexByte(buf[scanned:], '\n')
		if p < 0 {
			// One line fills the buffer: grow it, keeping its token.
			scanned = len(buf)
			grown := make([]byte, len(buf), 2*cap(buf))
			copy(grown, buf)
			bufs.recycle(buf)
			buf = grown
			continue
		}
		p += scanned
		next, err := bufs.get(ctx)
		if err != nil {
			return fmt.Errorf("analysis: reading the session: %w", err)
		}
		next = append(next, buf[p+1:]...)
		if err := send(chunkJob{seq: seq, buf: buf[:p+1]}); err != nil {
			return err
		}
		seq++
		buf, scanned = next, len(next)
	}
}

package analysis

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/sessionls/sessionls/analysis/line"
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
// Options.SkipMessages the report itself keeps 24 bytes per message (32 when
// it counts tokens).
//
// Two kinds of line are not held whole, so that no input (an endless line,
// /dev/zero) grows memory without bound. A line longer than 8 MiB whose
// start already fails JSON.parse gets that verdict, and the rest of it is
// only counted: memory stays at about 16 MiB. A line that passes node's
// string limit (MaxStringLength UTF-16 units) can never load, nor can its
// file: it is dropped there and counted to its end, neither a message nor
// an invalid line, and the report's file-too-large finding says why; the
// report then equals Analyze's but for that line's verdict. From a source
// that can seek and read at an offset (an *os.File on a file), a line
// longer than 8 MiB is counted without being held and read again, whole,
// only if it can load, so memory is bounded by the longest line node could
// hold. From a pipe, such a line is held until it passes the limit (its
// verdict depends on all of it until then): memory then peaks at about 1.5
// times the limit in bytes.
//
// Cancellation is checked between reads; a Read that blocks is not
// interrupted (close the reader to stop it).
func AnalyzeReader(ctx context.Context, r io.Reader, opts Options) (*Report, error) {
	e := newEngine()
	opts = e.mode(opts)
	return e.analyzeReader(ctx, r, opts)
}

// chunkJob is one run of whole lines, numbered in stream order, or one
// line that was not held (long).
type chunkJob struct {
	seq  int
	buf  []byte
	long *longLine
	t    *tally
}

// longLine is a line the stream did not hold: its width (UTF-16 units,
// without its '\n'), whether a '\n' ended it, and its verdict when its
// prefix settled one (parsed).
type longLine struct {
	width  int64
	size   int64 // bytes, without the '\n'
	ended  bool
	parsed bool
	res    line.Result
	reread bool // to be read again from the source if it can load
	// scan classifies a line whose prefix settled its verdict (the cause
	// of its damage) from its bytes as they pass; prefix holds its bytes
	// up to just past the error.
	scan   *damageScan
	prefix []byte
}

// rereader reads a line again, from a source that can seek (a file): a
// long line is then counted without being held, and read once more, whole,
// only if node could hold it. base is the source's offset where the stream
// started.
type rereader struct {
	ra   io.ReaderAt
	base int64
}

// newRereader is r's rereader, or nil when r cannot read at an offset.
func newRereader(r io.Reader) *rereader {
	rs, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	})
	if !ok {
		return nil
	}
	pos, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil // a pipe behind an *os.File
	}
	return &rereader{ra: rs, base: pos}
}

// read returns the line of l.size bytes at stream offset off, with its
// '\n' when one ended it: a chunk of one whole line.
func (s *rereader) read(off int64, l *longLine) ([]byte, error) {
	b := make([]byte, l.size, l.size+1)
	n, err := s.ra.ReadAt(b, s.base+off)
	if int64(n) < l.size {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("analysis: reading a long line again (did the file change meanwhile?): %w", err)
	}
	if l.ended {
		b = append(b, '\n')
	}
	return b, nil
}

// spool keeps a long line of a source that cannot seek (a pipe) in a
// temporary file, so that the stream need not hold it and can read it
// again, as from a file, when it can load. A line that can load has at
// most three bytes per UTF-16 unit of node's string limit: past that many
// bytes the spool keeps nothing more (the line cannot load and is only
// counted), so a hostile endless line costs bounded disk as well as
// bounded memory.
type spool struct {
	f        *os.File
	n, limit int64
	err      error // the first write error, reported when the line ends
}

// newSpool is a spool in the system's temporary directory, or nil when
// none can be made (the stream then holds the line, as before).
func newSpool(maxLine int64) *spool {
	f, err := os.CreateTemp("", "sessionls-line-*")
	if err != nil {
		return nil
	}
	return &spool{f: f, limit: 3*maxLine + 4}
}

// Write keeps what fits under the limit; it never fails the read it tees
// (a write error is kept in err).
func (s *spool) Write(p []byte) (int, error) {
	if err := s.write(p); err != nil && s.err == nil {
		s.err = err
	}
	return len(p), nil
}

func (s *spool) write(p []byte) error {
	room := s.limit - s.n
	if room <= 0 || s.err != nil {
		return nil
	}
	k := min(int64(len(p)), room)
	if _, err := s.f.Write(p[:k]); err != nil {
		return fmt.Errorf("analysis: keeping a long line in a temporary file: %w", err)
	}
	s.n += k
	return nil
}

// close removes the spool's file; nil is a spool that was not made.
func (s *spool) close() {
	if s == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
}

// tallyLong makes the tally of a line that was not held.
func tallyLong(l *longLine, t *tally) {
	t.lines, t.nonEmpty, t.width16, t.size = 1, 1, l.width, l.size
	if l.ended {
		t.width16++
		t.size++
	}
	if l.parsed && l.res.Verdict != line.Valid {
		v := invalidLine{line: 1, runtimeLine: 1, verdict: l.res.Verdict, reason: l.res.Reason, span: l.res.Span}
		if l.scan != nil {
			v.damage = l.scan.finish(&l.res, l.prefix)
		}
		t.invalid = append(t.invalid, v)
	}
}

// settleMargin is how far before the end of a prefix its first JSON error
// must end for the whole line to fail there too: beyond the parser's
// lookahead (twelve bytes for a surrogate pair escape, 65 in block mode).
const settleMargin = 128

// settledPrefix tells whether b, the start of a longer line, already
// decides the line's verdict: JSON.parse fails at a character well before
// b's end, where what follows cannot matter (an error at b's end, such as
// an unterminated string, might be the cut). It returns parse's Result on b
// (whose Width16 is b's, not the line's).
func settledPrefix(parse func([]byte) line.Result, b []byte) (line.Result, bool) {
	r := parse(b)
	return r, r.Verdict == line.InvalidJSON && r.Span.End+settleMargin <= len(b)
}

// safeCut is where b can be cut so that the UTF-16 widths of the two sides
// add up to the whole's: before the last lead byte among b's last three, or
// at the end.
func safeCut(b []byte) int {
	for k := len(b) - 1; k >= 0 && k >= len(b)-3; k-- {
		if b[k] >= 0xC0 {
			return k
		}
	}
	return len(b)
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
	// Tallies are reused as buffers are (at most inFlight exist), so that
	// their slices keep the room they grew to: a sync.Pool, emptied by
	// each GC, would grow them again for every chunk.
	tallies := make(chan *tally, inFlight)
	getTally := func() *tally {
		select {
		case t := <-tallies:
			return t
		default:
			return new(tally)
		}
	}
	jobs := make(chan chunkJob, inFlight)
	done := make(chan chunkJob, inFlight)

	// readErr is written by the reader before it closes jobs, and read
	// after done is closed, which happens after every worker saw jobs
	// closed: the channel operations order the two.
	var readErr error
	go func() {
		defer close(jobs)
		readErr = e.readChunks(ctx, r, newRereader(r), bufs, jobs)
	}()

	// A worker passes every job on, even after a panic (it only stops
	// parsing), so that the reader and the merge below drain. poolErr is
	// written before done is closed and read after.
	workers := newPool(e.workers)
	var poolErr error
	go func() {
		poolErr = workers.run(func() {
			for j := range jobs {
				j.t = getTally()
				switch {
				case ctx.Err() != nil || workers.failed():
				case j.long != nil:
					tallyLong(j.long, j.t)
				default:
					workers.guard(func() { parseLines(e.parse, opts, j.buf, j.t) })
				}
				// The buffer goes with its tally (the collector reads the
				// refused lines it reports again), with its token.
				j.t.buf = j.buf
				done <- j
			}
		})
		close(done)
	}()

	// Merge in stream order. Results that arrive early wait in pending;
	// there are fewer than inFlight of them.
	c := newCollector(opts, e.parse)
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
			bufs.recycle(t.buf)
			t.reset()
			select {
			case tallies <- t:
			default:
			}
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
func (e *engine) readChunks(ctx context.Context, r io.Reader, src *rereader, bufs *bufferPool, jobs chan<- chunkJob) error {
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
	scanned := 0       // buf[:scanned] holds no '\n'
	var consumed int64 // the stream offset of buf[0]
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
			// One line fills the buffer: grow it, keeping its token,
			// unless the line need not or must not be held.
			long, ok := e.mustDrop(buf)
			again, from := src, r // where a long line is read again; what it is skipped from
			var sp *spool
			if !ok && len(buf) >= e.settleFrom {
				if src == nil {
					// A pipe: the line goes to a temporary file instead of
					// memory, to be read again from there as from a file.
					if sp = newSpool(e.maxLine); sp != nil {
						if err := sp.write(buf); err != nil {
							sp.close()
							return err
						}
						again, from = &rereader{ra: sp.f, base: -consumed}, io.TeeReader(r, sp)
					}
				}
				if again != nil {
					long, ok = &longLine{reread: true}, true
				}
			}
			if !ok {
				scanned = len(buf)
				grown := make([]byte, len(buf), 2*cap(buf))
				copy(grown, buf)
				bufs.recycle(buf)
				buf = grown
				continue
			}
			start := consumed
			rest, err := e.skipLine(ctx, from, buf, long, bufs)
			if err == nil && sp != nil {
				err = sp.err
			}
			j := chunkJob{seq: seq, long: long}
			if err == nil && long.reread && long.width <= e.maxLine {
				// Loadable: its verdict needs all of it.
				if j.buf, err = again.read(start, long); err == nil {
					j.long = nil
				}
			}
			sp.close()
			if err != nil {
				return err
			}
			if err := send(j); err != nil {
				return err
			}
			if !long.ended {
				return nil // the stream ended with the line
			}
			seq++
			consumed += long.size + 1
			buf, scanned = rest, 0
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
		consumed += int64(p + 1)
		buf, scanned = next, len(next)
	}
}

// mustDrop decides, for b, the start of a line that fills the buffer,
// whether to stop holding the line: its start already settles its verdict
// (a JSON error), or it is wider than a string node can hold.
func (e *engine) mustDrop(b []byte) (*longLine, bool) {
	if len(b) >= e.settleFrom {
		if r, ok := settledPrefix(e.parse, b); ok {
			// The reason is the parser's own string, but it must not
			// share b's memory, which is about to be reused.
			r.Reason = detach(r.Reason, b)
			l := &longLine{parsed: true, res: r}
			if r.Verdict == line.InvalidJSON {
				sc := newDamageScan()
				sc.feed(b)
				l.scan, l.prefix = &sc, bytes.Clone(b[:min(len(b), r.Span.Start+2)])
			}
			return l, true
		}
	}
	// A line has at most as many UTF-16 units as bytes.
	if int64(len(b)) > e.maxLine && int64(line.Width16(b[:safeCut(b)])) > e.maxLine {
		return &longLine{}, true
	}
	return nil, false
}

// skipLine reads the rest of the line whose start is buf, holding none of
// it, and counts its width into long. It returns, when a '\n' ends the
// line, a buffer (with its token) holding what the stream had after it.
// buf's token goes with the line's job.
func (e *engine) skipLine(ctx context.Context, r io.Reader, buf []byte, long *longLine, bufs *bufferPool) ([]byte, error) {
	cut := safeCut(buf)
	long.width, long.size = int64(line.Width16(buf[:cut])), int64(cut)
	// Carry the bytes past the cut (at most three) into a chunk-sized
	// buffer (a grown one is let go), with room to read after them.
	work := buf[:0]
	if cap(buf) != e.chunk || e.chunk < 64 {
		work = make([]byte, 0, max(e.chunk, 64))
	}
	work = append(work[:0], buf[cut:]...)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("analysis: reading the session: %w", err)
		}
		from := len(work)
		n, err := r.Read(work[from:cap(work)])
		work = work[:from+n]
		if i := bytes.IndexByte(work[from:], '\n'); i >= 0 {
			i += from
			if long.scan != nil {
				long.scan.feed(work[from:i])
			}
			long.width += int64(line.Width16(work[:i]))
			long.size += int64(i)
			long.ended = true
			next, gerr := bufs.get(ctx)
			if gerr != nil {
				return nil, fmt.Errorf("analysis: reading the session: %w", gerr)
			}
			return append(next, work[i+1:]...), nil
		}
		if long.scan != nil {
			long.scan.feed(work[from:])
		}
		if err == io.EOF {
			long.width += int64(line.Width16(work))
			long.size += int64(len(work))
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("analysis: reading the session: %w", err)
		}
		cut := safeCut(work)
		long.width += int64(line.Width16(work[:cut]))
		long.size += int64(cut)
		work = append(work[:0], work[cut:]...)
	}
}

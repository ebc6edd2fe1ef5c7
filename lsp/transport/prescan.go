package transport

import (
	"bytes"
	"sync/atomic"
)

// Checking a large didOpen's text while the body arrives (issue 19).
//
// A 50 MB body takes tens of milliseconds to cross the pipe, and checking
// its text literal (scanStr) about as long again once it is in. So the
// check runs beside the reading: as soon as the body's buffer has its full
// size, a goroutine finds the text literal's start in the first bytes and
// checks the literal up to the bytes arrived so far, following the reader
// until the closing quote or the body's last byte, whichever comes first
// (the decoder then checks the rest on every core); what it has checked
// it also unescapes over itself (inplace.go). The decoder
// (decodeFastScanned) uses the result only when its own parse reaches a
// string at exactly that start, so a guess that is wrong (a "text" key of
// another object, a body that is not a didOpen) costs a scan, and the
// literal is put back as it came (decodePrescanned) before anything else
// reads it.

// prescanned is a string literal checked while its body arrived: its
// contents start at start, and run is what scanStr found there (up to
// run.next when it found neither the closing quote nor a refused byte
// before the body was in).
type prescanned struct {
	start int
	run   strRun
	// in is how much of the literal was unescaped over itself as it
	// arrived (inplace.go).
	in inPlace
}

// prescanMin is the body length from which the text is checked while it
// arrives: below it, a goroutine costs more than it hides.
const prescanMin = 4 << 20

// prescanLead is how far into the body the text literal's start is looked
// for (editors send uri, languageId and version first, a few hundred
// bytes).
const prescanLead = 64 << 10

// prescanMargin keeps the check this far behind the bytes arrived, so that
// an escape or a character it begins to read is whole.
const prescanMargin = 16

// textStart returns where the contents of the literal after the first
// "text" key in head begin: "text", optional whitespace, ':', optional
// whitespace, '"'.
func textStart(head []byte) (int, bool) {
	const key = `"text"`
	for from := 0; ; {
		k := bytes.Index(head[from:], []byte(key))
		if k < 0 {
			return 0, false
		}
		i := from + k + len(key)
		from = i
		ws := func() {
			for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r') {
				i++
			}
		}
		ws()
		if i >= len(head) || head[i] != ':' {
			continue // a value "text", or no key
		}
		i++
		ws()
		if i < len(head) && head[i] == '"' {
			return i + 1, true
		}
	}
}

// prescan checks buf's text literal from start as buf fills up. The reader
// calls arrived after each read and end when it stops reading, then waits
// for done; result is read after done.
type prescan struct {
	buf     []byte // the body's whole buffer: it is never reallocated from here on
	start   int
	filled  atomic.Int64  // bytes of buf arrived
	wake    chan struct{} // capacity 1: more bytes arrived
	ended   chan struct{} // closed by end: nothing more arrives
	done    chan struct{} // closed when the check stops
	checked *prescanned   // the result, nil when the check did not finish
}

func startPrescan(buf []byte, filled, start int) *prescan {
	p := &prescan{buf: buf, start: start, wake: make(chan struct{}, 1), ended: make(chan struct{}), done: make(chan struct{})}
	p.filled.Store(int64(filled))
	go p.run()
	return p
}

// arrived says that the first n bytes of buf are in.
func (p *prescan) arrived(n int) {
	p.filled.Store(int64(n))
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// end stops the check and returns its result: when the whole body came
// in, what was checked (and unescaped) so far, which the decoder goes on
// from on every core (longstring.go); nil when it did not.
func (p *prescan) end() *prescanned {
	close(p.ended)
	<-p.done
	return p.checked
}

// prescanStretch bounds what the check does between two looks at whether
// the body is in: once it is, the rest is the decoder's, on every core.
const prescanStretch = 1 << 20

func (p *prescan) run() {
	defer close(p.done)
	i, found := p.start, strRun{quote: -1, next: p.start}
	in := inPlace{start: p.start, read: p.start, wrote: p.start}
	unescaping := true // until the log is full or a stretch has invalid UTF-8
	for {
		select {
		case <-p.ended:
			if int(p.filled.Load()) == len(p.buf) {
				p.checked = &prescanned{start: p.start, run: found, in: in}
			}
			return
		default:
		}
		n := int(p.filled.Load())
		stop := n - prescanMargin
		if n == len(p.buf) {
			stop = n
		}
		stop = min(stop, i+prescanStretch)
		if stop > i {
			r := scanStr(p.buf, i, stop)
			found = found.then(r)
			if unescaping {
				// The stretch just checked, while it is in the cache.
				end := r.next
				if r.quote >= 0 {
					end = r.quote
				}
				unescaping = !r.bad && r.grow == 0 && in.unescape(p.buf, end, r.quote >= 0)
			}
			if r.bad || r.quote >= 0 || stop == len(p.buf) {
				// Checked to its end (or to the body's: unterminated).
				p.checked = &prescanned{start: p.start, run: found, in: in}
				return
			}
			i = r.next
			continue
		}
		select {
		case <-p.wake:
		case <-p.ended:
			if int(p.filled.Load()) == len(p.buf) {
				p.checked = &prescanned{start: p.start, run: found, in: in}
			}
			return
		}
	}
}

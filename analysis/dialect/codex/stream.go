package codex

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sessionls/sessionls/analysis"
)

// analyze is the whole analysis of data in memory.
func analyze(data []byte, opts analysis.Options) *analysis.Report {
	c := newCollector()
	counter := counterOf(opts)
	var w int64
	for _, pl := range lines(data) {
		f := decodeLine(data[pl.start:pl.end], counter)
		c.add(pl.n, int64(pl.start), f)
		w += lineWidth(data[pl.start:pl.end], f)
		if pl.nl {
			w++
		}
	}
	return c.finish(opts, w)
}

// lineWidth is a line's UTF-16 length (an invalid byte one unit).
func lineWidth(l []byte, f facts) int64 {
	if f.blank || f.whole.EndCol == 0 {
		return width16(bytes.ToValidUTF8(l, []byte("\uFFFD")))
	}
	if bytes.HasSuffix(l, []byte{'\r'}) {
		return int64(f.whole.EndCol) + 1
	}
	return int64(f.whole.EndCol)
}

// analyzeStream reads r line by line, holding one line at a time (at most
// MaxFileSize bytes; codex itself reads the file into one string).
func analyzeStream(ctx context.Context, r io.Reader, opts analysis.Options) (*analysis.Report, error) {
	c := newCollector()
	counter := counterOf(opts)
	br := bufio.NewReaderSize(r, 1<<16)
	var off, w int64
	var long []byte
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, l...)
			if int64(len(long)) > MaxFileSize {
				return nil, fmt.Errorf("line %d is longer than %d bytes, the most the codex dialect reads", n, int64(MaxFileSize))
			}
			l, err = br.ReadSlice('\n')
		}
		if long != nil {
			l = append(long, l...)
			long = long[:0]
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading the rollout: %w", err)
		}
		if len(l) == 0 {
			break
		}
		nl := l[len(l)-1] == '\n'
		body := l
		if nl {
			body = l[:len(l)-1]
		}
		f := decodeLine(body, counter)
		c.add(n, off, f)
		w += lineWidth(body, f)
		if nl {
			w++
		}
		off += int64(len(l))
		if off > MaxFileSize {
			return nil, fmt.Errorf("the rollout is larger than %d bytes, the most the codex dialect reads", int64(MaxFileSize))
		}
		if err != nil {
			break
		}
	}
	return c.finish(opts, w), nil
}

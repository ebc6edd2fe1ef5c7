package dialect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sessionls/sessionls/analysis/line"
)

// Auto is the value of the `dialect` setting that detects the dialect of
// each file from its records (Detect).
const Auto = "auto"

// MaxSniff bounds what Detect reads of a file: the first line JSON.parse
// accepts must end within the first 4 MiB. A file is hostile input: a
// first line of a gigabyte is neither held nor read past the bound (it is
// not judged; the file is then seed's, as with no parsed line at all). A
// Codex CLI file's first record (session_meta, with the model's
// instructions) is tens of KiB; a Claude Code file's is a summary or a
// message, rarely over a MiB.
const MaxSniff = 4 << 20

const maxSniffText = "4 MiB"

// sniffChunk is what Detect reads first (then twice as much each time):
// most files are decided by their first line, a few hundred bytes to a
// few KiB, and a check of many small files pays this per file.
const sniffChunk = 4 << 10

// Explainer is implemented by a dialect whose Sniff can say what it
// recognised in a line, for Detection.Why ("type, uuid and parentUuid").
// Optional: without it, Why names only the line and the dialect.
type Explainer interface {
	SniffReason(line []byte) string
}

// Detection is the dialect Detect chose for a file, and why.
type Detection struct {
	Dialect Dialect
	// Line is the 1-based line that decided: the first that JSON.parse
	// accepts. 0: no line within MaxSniff bytes parses, and the file is
	// seed's.
	Line int
	// Lines is how many lines Detect looked at (the last one perhaps cut
	// by MaxSniff or by the end of the text): an edit on any later line
	// cannot change the detection, one on these may (the server detects
	// again).
	Lines int
	// Why says it for a person: "line 3, the first line JSON.parse
	// accepts, is a claude-code record (type, uuid and parentUuid)".
	Why string
}

// Detect chooses the dialect of the stream r from its first line that
// JSON.parse accepts, asking each dialect's Sniff in All's order (Seed,
// which claims any line, last). It reads at most MaxSniff bytes, fewer
// when a line decides sooner, and returns what it read (head) so that a
// caller that cannot read r again (stdin) replays it before the rest
// (io.MultiReader). A read error other than io.EOF is returned with what
// was read.
func Detect(r io.Reader) (d Detection, head []byte, err error) {
	return detect(r, All())
}

// detect is Detect asking the dialects ds, in order.
func detect(r io.Reader, ds []Dialect) (d Detection, head []byte, err error) {
	buf := make([]byte, 0, sniffChunk)
	scanned := 0  // bytes of buf whose lines are judged
	searched := 0 // bytes of buf searched for a line break (no rescans: linear in what is read)
	lines := 0
	eof := false
	for {
		// Judge every complete line read so far.
		for {
			i := bytes.IndexByte(buf[searched:], '\n')
			if i < 0 {
				searched = len(buf)
				break
			}
			i += searched - scanned
			lines++
			if det, ok := judge(ds, buf[scanned:scanned+i], lines); ok {
				return det, buf, nil
			}
			scanned += i + 1
			searched = scanned
		}
		if eof {
			// The last line, without a line break, is a line too.
			lines++
			if det, ok := judge(ds, buf[scanned:], lines); ok {
				return det, buf, nil
			}
			return none(lines, "no line is one JSON.parse accepts"), buf, nil
		}
		if len(buf) >= MaxSniff {
			// The line that crosses the bound is not judged.
			return none(lines+1, "no line within the first "+maxSniffText+" is one JSON.parse accepts"), buf, nil
		}
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(2*cap(buf), MaxSniff))
			copy(nb, buf)
			buf = nb
		}
		n, rerr := r.Read(buf[len(buf):min(cap(buf), MaxSniff)])
		buf = buf[:len(buf)+n]
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return none(lines, "the file could not be read"), buf, rerr
			}
			eof = true // a reader may return its last bytes with io.EOF
		}
	}
}

// DetectBytes is Detect on a text held in memory (an open document): it
// looks at most at its first MaxSniff bytes.
func DetectBytes(data []byte) Detection {
	return DetectBytesIn(data, All())
}

// DetectBytesIn is DetectBytes asking the dialects ds, in order (the last
// should be Seed): for a front end tested with dialects of its own.
func DetectBytesIn(data []byte, ds []Dialect) Detection {
	d, _, _ := detect(bytes.NewReader(data), ds)
	return d
}

// DetectIn is Detect asking the dialects ds, in order (the last should be
// Seed).
func DetectIn(r io.Reader, ds []Dialect) (Detection, []byte, error) {
	return detect(r, ds)
}

// judge decides by line l, the n-th (1-based), if JSON.parse accepts it:
// the first of ds whose Sniff claims it.
func judge(ds []Dialect, l []byte, n int) (Detection, bool) {
	if len(l) == 0 || line.ParseJSON(l).Verdict != line.Valid {
		return Detection{}, false
	}
	for _, d := range ds {
		if !d.Sniff(l) {
			continue
		}
		why := fmt.Sprintf("line %d, the first line JSON.parse accepts, is a %s record", n, d.Name())
		if e, ok := d.(Explainer); ok {
			if r := e.SniffReason(l); r != "" {
				why += " (" + r + ")"
			}
		}
		return Detection{Dialect: d, Line: n, Lines: n, Why: why}, true
	}
	return Detection{}, false // none claims it: Detect goes on (Seed, last, claims any line)
}

func none(lines int, why string) Detection {
	return Detection{Dialect: Seed{}, Lines: lines, Why: why + ": seed"}
}

// Named returns the dialect a setting's value names; Auto (or "") is not
// one: the caller detects.
func Named(name string) (Dialect, error) {
	if d, ok := ByName(name); ok {
		return d, nil
	}
	names := make([]string, 0, len(All()))
	for _, d := range All() {
		names = append(names, d.Name())
	}
	return nil, fmt.Errorf("dialect %q is not available in this build of sessionls (it reads %s, or %q to detect each file's)", name, strings.Join(names, ", "), Auto)
}

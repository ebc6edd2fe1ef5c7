package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// maxListedPerCode is how many findings of one code in one file `check`
// lists, as ruff and gopls cap what they print: a file of a million blank
// lines is a million findings of one code, which say no more than the
// first hundred and would hold ~0.5 KB each in the CLI (~6 KB in SARIF).
// The rest are counted, never dropped from the totals: the summary, the
// exit code and the fixable counts stay exact, and each format says how
// many more there are (text and github: a line per code; json: "omitted"
// on the last listed finding of the code; SARIF: a notification).
const maxListedPerCode = 100

// message says how many findings of the code a file has past the cap.
func (m omitted) message() string {
	return fmt.Sprintf("… and %s (only the first %d of each code are listed per file)",
		textfmt.Plural(m.n, "more "+m.code+" finding", "more "+m.code+" findings"), maxListedPerCode)
}

// omitted is how many findings of one code in a file were not listed.
type omitted struct {
	code     string
	severity analysis.Severity
	n        int
}

// capFindings keeps the first limit findings of each code, in order, and
// counts the rest by code (in the order their codes were first cut). keep
// and cut, when not nil, are called with each finding kept (its index) and
// each finding cut.
func capFindings(findings []analysis.Finding, limit int, keep func(i int), cut func(f *analysis.Finding)) ([]analysis.Finding, []omitted) {
	seen := map[string]int{}
	var kept []analysis.Finding
	var more []omitted
	for i, f := range findings {
		seen[f.Code]++
		if seen[f.Code] <= limit {
			kept = append(kept, f)
			if keep != nil {
				keep(i)
			}
			continue
		}
		if cut != nil {
			cut(&findings[i])
		}
		j := 0
		for j < len(more) && more[j].code != f.Code {
			j++
		}
		if j == len(more) {
			more = append(more, omitted{code: f.Code, severity: f.Severity})
		}
		more[j].n++
	}
	return kept, more
}

// capWithFixes caps findings and their fixes together (the fixes of the
// findings kept, by their new indices).
func capWithFixes(findings []analysis.Finding, fixes fileFixes, limit int) ([]analysis.Finding, fileFixes, []omitted) {
	var kf fileFixes
	kept, more := capFindings(findings, limit, func(i int) {
		if fixes != nil {
			var fi fixInfo
			if p := fixes.at(i); p != nil {
				fi = *p
			}
			kf = append(kf, fi)
		}
	}, nil)
	return kept, kf, more
}

// cutFix is a finding past the cap whose code has fixes: only what
// counting its fix needs (8 bytes and a code index, not the finding).
type cutFix struct {
	line int
	code uint8
}

// fixCounts are the fixes of the findings past the cap, by safety.
type fixCounts struct{ safe, unsafe int }

// streamFixesCapped is streamFixes for the listed findings, and also
// counts the fixes of the findings past the cap (cut, sorted by line), in
// the same pass over the file, so "N fixable with --fix" stays exact
// without holding those findings.
func streamFixesCapped(ctx context.Context, r io.Reader, findings []analysis.Finding, cut []cutFix, codes []string, regions bool) (fileFixes, fixCounts, error) {
	var counts fixCounts
	next := func(j int) int {
		for j < len(findings) && !fix.Fixable(findings[j].Code) {
			j++
		}
		return j
	}
	j, k := next(0), 0
	if j == len(findings) && len(cut) == 0 {
		return nil, counts, nil
	}
	var m fileFixes
	if j < len(findings) {
		m = make(fileFixes, len(findings))
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	off := 0
	for ln := 1; j < len(findings) || k < len(cut); ln++ {
		if err := ctx.Err(); err != nil {
			return nil, counts, err
		}
		wanted := (j < len(findings) && findings[j].Line == ln) || (k < len(cut) && cut[k].line == ln)
		buf = buf[:0]
		n := 0
		var err error
		for {
			chunk, e := br.ReadSlice('\n')
			n += len(chunk)
			if wanted && n > maxFixLine {
				// Too long to hold for a fix mark (as streamFixes).
				wanted, buf = false, nil
			}
			if wanted {
				if need := len(buf) + len(chunk); need > cap(buf) {
					nb := make([]byte, len(buf), min(max(2*cap(buf), need), maxFixLine))
					copy(nb, buf)
					buf = nb
				}
				buf = append(buf, chunk...)
			}
			if !errors.Is(e, bufio.ErrBufferFull) {
				err = e
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, counts, err
		}
		if n == 0 {
			break // the file changed since it was checked: no more lines
		}
		nl := err == nil
		size := n
		if nl {
			size--
		}
		var l []byte
		if wanted {
			l = buf[:size]
		}
		for ; j < len(findings) && findings[j].Line == ln; j = next(j + 1) {
			if !wanted {
				continue
			}
			if lf, ok := fix.ForLine(l, findings[j].Code); ok {
				m.set(j, fix.ToFile(lf, ln, findings[j].Code, off, off+size, nl), l, regions)
			}
		}
		for ; k < len(cut) && cut[k].line == ln; k++ {
			if !wanted {
				continue
			}
			if lf, ok := fix.ForLine(l, codes[cut[k].code]); ok {
				switch lf.Safety {
				case fix.Safe:
					counts.safe++
				case fix.Unsafe:
					counts.unsafe++
				}
			}
		}
		off += n
		if !nl {
			break
		}
	}
	return m, counts, nil
}

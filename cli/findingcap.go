package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

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

// capReport is what check lists of rep, a report made with
// MaxFindingsPerCode (and, withFixes, OmittedLines: fixableLines()): its
// first maxListedPerCode findings of each code, sorted as sortFindings
// sorts; how many more of each code there are; and, withFixes, the lines
// of the fixable ones past the cap (for streamFixesCapped). The findings
// past the cap are not copied.
func capReport(rep *analysis.Report, withFixes bool) ([]analysis.Finding, []omitted, []cutLines) {
	var cut []cutLines
	findings, more := capFindings(rep.Findings, maxListedPerCode, nil, func(f *analysis.Finding) {
		if withFixes && fix.Fixable(f.Code) {
			cut = addCut(cut, f.Code, f.Line)
		}
	})
	for _, o := range rep.Omitted {
		more = addOmitted(more, omitted{code: o.Code, severity: o.Severity, n: o.N})
		if withFixes && fix.Fixable(o.Code) && o.Lines.Len() > 0 {
			cut = append(cut, cutLines{code: o.Code, lines: o.Lines})
		}
	}
	for i := range cut {
		cut[i].lines = sortedLines(cut[i].lines)
	}
	sortFindings(findings)
	return findings, more, cut
}

// listCapped is capReport of data's report rep with the fix marks of the
// findings listed and the counts of those past the cap, read again from
// data (streamFixesCapped): what --fix and --diff list of the fixed data,
// as a plain check of it lists.
func listCapped(ctx context.Context, rep *analysis.Report, data []byte, regions bool) ([]analysis.Finding, []omitted, fileFixes, fixCounts, error) {
	findings, more, cut := capReport(rep, true)
	fixes, counts, err := streamFixesCapped(ctx, bytes.NewReader(data), findings, cut, regions)
	return findings, more, fixes, counts, err
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

// addOmitted adds o to more, to the entry of its code if there is one.
func addOmitted(more []omitted, o omitted) []omitted {
	for i := range more {
		if more[i].code == o.code {
			more[i].n += o.n
			return more
		}
	}
	return append(more, o)
}

// capWithFixes caps findings and their fixes together (the fixes of the
// findings kept, by their new indices).
func capWithFixes(findings []analysis.Finding, fixes fileFixes, limit int) ([]analysis.Finding, fileFixes, []omitted) {
	var kf fileFixes
	kept, more := capFindings(findings, limit, func(i int) {
		if fixes != nil {
			var fi fixInfo
			if i < len(fixes) {
				fi = fixes[i] // with its candidates, if any (pick.go)
			}
			kf = append(kf, fi)
		}
	}, nil)
	return kept, kf, more
}

// cutLines are the lines of the findings of one code past the cap whose
// code has fixes, in ascending order: only what counting their fixes needs
// (a few bytes for a run of lines, not the findings).
type cutLines struct {
	code  string
	lines analysis.LineList
}

// addCut adds line to the list of code.
func addCut(cut []cutLines, code string, line int) []cutLines {
	for i := range cut {
		if cut[i].code == code {
			cut[i].lines.Add(line)
			return cut
		}
	}
	cut = append(cut, cutLines{code: code})
	cut[len(cut)-1].lines.Add(line)
	return cut
}

// sortedLines is l in ascending order (l itself when it is).
func sortedLines(l analysis.LineList) analysis.LineList {
	if l.Sorted() {
		return l
	}
	var s analysis.LineList
	for _, ln := range slices.Sorted(l.All()) {
		s.Add(ln)
	}
	return s
}

// fixCounts are the fixes of the findings past the cap, by safety.
type fixCounts struct{ safe, unsafe int }

// streamFixesCapped is streamFixes for the listed findings, and also
// counts the fixes of the findings past the cap (cut, sorted by line), in
// the same pass over the file, so "N fixable with --fix" stays exact
// without holding those findings.
func streamFixesCapped(ctx context.Context, r io.Reader, findings []analysis.Finding, cut []cutLines, regions bool) (fileFixes, fixCounts, error) {
	var counts fixCounts
	// The next line of each list (0: none left) and its reader.
	heads := make([]int, len(cut))
	readers := make([]analysis.LineReader, len(cut))
	cutLeft := 0
	for i := range cut {
		cutLeft += cut[i].lines.Len()
		readers[i] = cut[i].lines.Reader()
		heads[i], _ = readers[i].Next()
	}
	cutAt := func(ln int) bool {
		return slices.Contains(heads, ln)
	}
	next := func(j int) int {
		for j < len(findings) && !fix.Fixable(findings[j].Code) {
			j++
		}
		return j
	}
	j := next(0)
	if j == len(findings) && cutLeft == 0 {
		return nil, counts, nil
	}
	var m fileFixes
	if j < len(findings) {
		m = make(fileFixes, len(findings))
	}
	d := newDamageFixes(m, &counts, regions)
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	off := 0
	for ln := 1; j < len(findings) || cutLeft > 0; ln++ {
		if err := ctx.Err(); err != nil {
			return nil, counts, err
		}
		wanted := (j < len(findings) && findings[j].Line == ln) || cutAt(ln)
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
		switch {
		case wanted:
			l = buf[:size]
		case size == 0:
			l = []byte{} // an empty line (a split record may hold one)
		}
		refused := false
		splitJ, cutSplit := -1, false
		var splitSafety fix.Safety // of a refusal past the cap
		for ; j < len(findings) && findings[j].Line == ln; j = next(j + 1) {
			if !wanted {
				continue
			}
			code := findings[j].Code
			if analysis.IsRefusal(code) {
				refused, splitJ = true, j
			}
			lf, ok := fix.ForLine(l, code)
			switch {
			case ok && code == analysis.CodeOrphanToolResult:
				d.orphan(j, fix.ToFile(lf, ln, code, off, off+size, nl), l, findings[j].Span, nl)
			case ok:
				m.set(j, fix.ToFile(lf, ln, code, off, off+size, nl), l, regions)
			}
		}
		for i, c := range cut {
			for ; heads[i] != 0 && heads[i] <= ln; heads[i], _ = readers[i].Next() {
				cutLeft--
				if !wanted || heads[i] < ln {
					continue
				}
				lf, ok := fix.ForLine(l, c.code)
				switch {
				case analysis.IsRefusal(c.code):
					// Counted when its run of refused lines ends (it may
					// be a piece of a record split over lines).
					refused, cutSplit, splitSafety = true, true, lf.Safety
				case ok && c.code == analysis.CodeOrphanToolResult:
					d.cutOrphan(l) // counted unless a refused line may declare it
				case ok:
					counts.add(lf.Safety)
				}
			}
		}
		if refused && wanted {
			d.refused(l)
		}
		d.line(ln, off, l, nl, splitJ, cutSplit, splitSafety)
		off += n
		if !nl {
			break
		}
	}
	d.finish()
	return m, counts, nil
}

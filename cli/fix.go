package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/atomicfile"
)

// fixKey names a finding that can have a fix: there is at most one per
// line and code.
type fixKey struct {
	line int
	code string
}

// fixRegion is one edit of a fix located for SARIF: 1-based lines and
// columns (UTF-16 units, end exclusive) and the byte range.
type fixRegion struct {
	startLine, startCol, endLine, endCol int
	offset, length                       int
	insert                               string
}

// fixInfo is a finding's fix, as the formats print it; the zero value is
// no fix. The title and regions are only filled for SARIF.
type fixInfo struct {
	safety  fix.Safety
	title   string
	regions []fixRegion
	// candidates: the finding is the first of an ambiguous run of
	// interleaved pieces, and these its candidate fixes (pick.go).
	candidates []candidateInfo
}

// fileFixes holds the fix of each finding of a file, by the finding's
// index; nil when the fixes were not looked for.
type fileFixes []fixInfo

// at is the fix of finding i, or nil.
func (m fileFixes) at(i int) *fixInfo {
	if i >= len(m) || m[i].safety == 0 {
		return nil
	}
	return &m[i]
}

// count returns how many findings have a safe fix and how many an unsafe
// one.
func (m fileFixes) count() (safe, unsafe int) {
	for _, fi := range m {
		switch fi.safety {
		case fix.Safe:
			safe++
		case fix.Unsafe:
			unsafe++
		}
	}
	return safe, unsafe
}

// set records f, a fix of line l, as the fix of finding i; with regions,
// with its title and located for SARIF (a pass over the line per edit).
func (m fileFixes) set(i int, f fix.Fix, l []byte, regions bool) {
	fi := fixInfo{safety: f.Safety}
	if regions {
		fi.title = f.Title
		for _, e := range f.Edits {
			sl, sc := f.Position(l, e.Start)
			el, ec := f.Position(l, e.End)
			fi.regions = append(fi.regions, fixRegion{
				startLine: sl, startCol: sc + 1, endLine: el, endCol: ec + 1,
				offset: e.Start, length: e.End - e.Start, insert: e.New,
			})
		}
	}
	m[i] = fi
}

// fixesOf computes the fixes of findings (sorted by line) in data, held in
// memory, as the dialect d plans them (seed: fix.Compute).
func fixesOf(d dialect.Dialect, data []byte, findings []analysis.Finding, regions bool) fileFixes {
	fixes := d.Plan(data, findings)
	if len(fixes) == 0 {
		return nil
	}
	m := make(fileFixes, len(findings))
	j := 0
	for _, f := range fixes { // in line order, as findings
		for j < len(findings) && findings[j].Line < f.Line {
			j++
		}
		for k := j; k < len(findings) && findings[k].Line == f.Line; k++ {
			if findings[k].Code == f.Code {
				m.set(k, f, fixLines(data, f), regions)
				break
			}
		}
	}
	return m
}

// maxFixLine bounds the line a plain check holds to mark its finding's fix
// ([fix], [unsafe fix], SARIF fixes): a longer line's finding is shown with
// no fix, so that a crash tail of a gigabyte of NULs on one line costs no
// gigabyte. --fix and --diff hold the whole file anyway and fix it.
const maxFixLine = 64 << 20

// maxSpool bounds the copy of stdin that a plain check keeps on disk to
// read it again for its fixes; past it, stdin's findings show no fixes.
const maxSpool = 256 << 20

// streamFixes computes the fixes of findings (sorted by line) by reading
// the file again from r, keeping only the lines that have a fixable
// finding (memory is bounded by the longest of those, and by maxFixLine):
// streamFixesCapped with every finding listed.
func streamFixes(ctx context.Context, r io.Reader, findings []analysis.Finding, regions bool) (fileFixes, error) {
	m, _, err := streamFixesCapped(ctx, r, findings, nil, regions)
	return m, err
}

// fixRun is what --fix or --diff made of one file.
type fixRun struct {
	findings []analysis.Finding // what remains
	fixes    fileFixes          // fixes of what remains (unsafe ones, without --unsafe-fixes)
	fixed    int                // findings fixed
	more     int                // findings --unsafe-fixes would fix too (without it)
	diff     []byte             // --diff: what would change
	out      []byte             // stdin: the fixed text
	// lost is what the applied (unsafe) fixes deleted; ambiguities the runs
	// of interleaved pieces that pair more than one way, not fixed.
	lost        fix.Loss
	ambiguities []fix.Ambiguity
	// omitted and cutFixes: the findings past the cap that FixAll's
	// report counted (fix.FixAllCapped) and their fixes, as a plain
	// check's; findings then holds the first maxListedPerCode of each code.
	omitted  []omitted
	cutFixes fixCounts
}

// fixFile applies the fixes to one file: in place (or, for stdin, the fixed
// text to print), or only as a diff.
//
// In place, the file is replaced only if it is still the file read: when
// another process appended to it meanwhile (an agent runtime's appendFile),
// the appended bytes are carried over after the fixed text; when it was
// rewritten or replaced, nothing is written (see atomicfile.Source). When
// its last line, unterminated, was still being written, the file is read
// and fixed again, a few times at most.
func fixFile(ctx context.Context, e *env, t target, opts analysis.Options, o checkOptions, bytesRead *atomic.Int64) (*fixRun, error) {
	if t.stdin {
		data, err := io.ReadAll(e.stdin)
		bytesRead.Add(int64(len(data)))
		if err != nil {
			return nil, err
		}
		run, _, err := fixData(ctx, t, data, opts, o)
		return run, err
	}
	for attempt := 1; ; attempt++ {
		run, err := fixPath(ctx, t, opts, o, bytesRead)
		if errors.Is(err, atomicfile.ErrLastLineGrew) && attempt < fixAttempts {
			continue
		}
		return run, err
	}
}

// fixAttempts bounds how often fixFile reads a file again whose last line
// was being written while it was fixed.
const fixAttempts = 3

// fixPath fixes the file t names, in place (or as a diff).
func fixPath(ctx context.Context, t target, opts analysis.Options, o checkOptions, bytesRead *atomic.Int64) (*fixRun, error) {
	src, err := openSource(t.path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	data, err := io.ReadAll(src)
	bytesRead.Add(int64(len(data)))
	if err != nil {
		return nil, err
	}
	run, res, err := fixData(ctx, t, data, opts, o)
	if err != nil || o.diff || res.Fixed == 0 {
		return run, err
	}
	if t.linkOut != "" {
		return nil, writeError{fmt.Errorf("not fixed %s: it is a symbolic link to %s; to fix it, name the target itself", t.path, t.linkOut)}
	}
	if _, err := src.Replace(func(w io.Writer) error {
		_, err := w.Write(res.Data)
		return err
	}); err != nil {
		return nil, writeError{err}
	}
	return run, nil
}

// fixData fixes data, the bytes of t, and says what it did: the findings
// that remain, the diff with --diff, the fixed text for stdin.
func fixData(ctx context.Context, t target, data []byte, opts analysis.Options, o checkOptions) (*fixRun, fix.Result, error) {
	opts.SkipMessages = false
	d := bytesDialect(t.dialect, data)
	// The seed's FixAll keeps the first maxListedPerCode findings of each
	// code in its report, as a plain check's engine does, and the lines of
	// the rest that have fixes to count.
	fixAllOf := func(ctx context.Context, b []byte, unsafe bool) (fix.Result, error) {
		if isSeed(d) {
			return fix.FixAllCapped(ctx, b, opts, unsafe, maxListedPerCode, fixableLines())
		}
		return d.FixAll(ctx, b, opts, unsafe)
	}
	fixAll := func(ctx context.Context, b []byte) (fix.Result, error) {
		return fixAllOf(ctx, b, o.unsafeFixes)
	}
	var res fix.Result
	var err error
	if len(o.picks) > 0 {
		res, err = applyPicks(ctx, t.path, d, data, opts, o.picks, fixAll)
	} else {
		res, err = fixAll(ctx, data)
	}
	if err != nil {
		return nil, res, err
	}
	run := &fixRun{fixed: res.Fixed, lost: res.Lost, ambiguities: res.Ambiguities}
	var planned fileFixes
	var anyFix bool // the planner has a fix for what remains
	if len(res.Report.Omitted) == 0 {
		// The report is fixData's own (its caller reads only res.Data and
		// res.Fixed): sorted in place, not copied.
		run.findings = res.Report.Findings
		sortFindings(run.findings)
		planned = fixesOf(d, res.Data, run.findings, o.out.fixRegions)
		anyFix = planned != nil
	} else {
		// Capped: listed, and their fixes counted, as a plain check of
		// the fixed data lists and counts them (checkFile).
		if run.findings, run.omitted, planned, run.cutFixes, err = listCapped(ctx, res.Report, res.Data, o.out.fixRegions); err != nil {
			return nil, res, err
		}
		safe, unsafe := planned.count()
		anyFix = safe+unsafe > 0 || run.cutFixes != (fixCounts{})
	}
	res.Report = nil // what fixData's callers read is in run
	run.fixes = withCandidates(planned, run.findings, res.Data, res.Ambiguities, o.out.fixRegions)
	// What --unsafe-fixes would fix: FixAll again, unsafe. When the seed's
	// planner has no fix at all for what remains, that FixAll's first round
	// plans the same findings of the same data the same way and fixes
	// nothing, so the count is 0 without fixing (and analysing) it again.
	if !o.unsafeFixes && (anyFix || !isSeed(d)) {
		more, err := fixAllOf(ctx, res.Data, true)
		if err != nil {
			return nil, res, err
		}
		run.more = more.Fixed
	}
	if o.diff && res.Fixed > 0 && len(res.Ambiguities) > 0 {
		// Nothing is written: name the runs in the file's own lines, as
		// --pick takes them (pick.go).
		if run.ambiguities, err = inputAmbiguities(ctx, d, data, opts); err != nil {
			return nil, res, err
		}
	}
	switch {
	case o.diff:
		run.diff = fix.UnifiedDiff(t.path, t.path, data, res.Data, res.Origin)
	case t.stdin:
		run.out = res.Data
	}
	return run, res, nil
}

// spoolStdin copies what r reads into a temporary file, so that stdin can
// be read a second time (for its fixes) without holding it in memory; at
// most limit bytes: past that it stops copying, frees the disk, and stdin's
// fixes are not shown.
type spoolStdin struct {
	f       *os.File
	limit   int64
	n       int64 // bytes copied
	over    bool  // stdin was longer than limit
	lastErr error // the first failure to write the copy
}

func newSpool(limit int64) (*spoolStdin, error) {
	f, err := os.CreateTemp("", "sessionls-stdin-*")
	if err != nil {
		return nil, fmt.Errorf("cannot buffer stdin: %w", err)
	}
	// Unlinked at once where an open file can be (Unix): a killed check
	// leaves nothing in $TMPDIR. close removes it elsewhere.
	_ = os.Remove(f.Name())
	return &spoolStdin{f: f, limit: limit}, nil
}

func (s *spoolStdin) tee(r io.Reader) io.Reader { return io.TeeReader(r, s) }

// Write copies p unless the copy is over its limit (or failed): it never
// fails, so that the check of stdin goes on without fixes.
func (s *spoolStdin) Write(p []byte) (int, error) {
	if s.over || s.lastErr != nil {
		return len(p), nil
	}
	if s.n+int64(len(p)) > s.limit {
		s.over = true
		_ = s.f.Truncate(0) // give the disk back now
		return len(p), nil
	}
	n, err := s.f.Write(p)
	s.n += int64(n)
	if err != nil {
		s.lastErr = err
	}
	return len(p), nil
}

// rewind returns the copy to read again; nil, and no error, when there is
// none (stdin was over the limit).
func (s *spoolStdin) rewind() (io.Reader, error) {
	if s.over {
		return nil, nil
	}
	if s.lastErr != nil {
		return nil, fmt.Errorf("cannot buffer stdin: %w", s.lastErr)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("cannot read buffered stdin: %w", err)
	}
	return s.f, nil
}

func (s *spoolStdin) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// writeError is a failure to write a fixed file; its message says so.
type writeError struct{ err error }

func (w writeError) Error() string { return w.err.Error() }
func (w writeError) Unwrap() error { return w.err }

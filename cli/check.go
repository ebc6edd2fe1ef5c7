package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/config"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// checkMemoryLimit is the soft heap goal of a check run: the engine's memory
// is bounded by the longest line, so a GC that works to stay under 48 MiB
// keeps a 1 GB check under 64 MiB of RSS. GOMEMLIMIT overrides it.
const checkMemoryLimit = 48 << 20

type checkOptions struct {
	format        string
	out           outputFormat // the format called format (set by prepareCheck)
	stdinFilename string
	shard         string
	// flags are the settings' flags: --budget, --disable, --strict,
	// --dialect (settingflags.go).
	flags       *settingFlags
	fix         bool // apply safe fixes in place
	unsafeFixes bool // and unsafe ones
	diff        bool // print what --fix would change, write nothing
	pickFlags   []string
	picks       []pick // --pick: candidates of ambiguous runs to apply (pick.go)
	// summary is --step-summary (summary.go).
	summary *stepSummary
}

// fixing reports whether the run repairs files (or shows how it would).
func (o checkOptions) fixing() bool { return o.fix || o.diff }

func newCheckCmd(e *env) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check [flags] PATH...",
		Short: "Check session files and report what the runtime will refuse, and more",
		Long: `Check session files: every line the runtime's loadSession would refuse
(invalid-json, invalid-record), plus sessionls's own checks of the tool-call
history. Directories are searched recursively for *.jsonl files (sorted);
"-" reads stdin. A named path that is not a regular file (a FIFO, a device,
a socket) is refused: redirect it to stdin instead. Files are checked in
parallel; results are printed in argument order.

Positions are 1-based lines and 1-based columns counted in UTF-16 code
units (as editors and LSP count them). endColumn is exclusive: the column
just after the last character of the range, like ruff's end_location and
SARIF's endColumn; an empty range has endColumn == column. A finding about
a whole line (swept-message, budget-cutoff, ...) has column 1 and
endColumn 1 in text and json, and no columns in github and sarif (the
language server underlines the whole line).

Formats:
  text    path:line:col: severity[code] [fix] message, then a summary line
          (coloured when stdout is a terminal and NO_COLOR is unset)
  json    [{"file","line","column","endLine","endColumn","severity","code","message","fix"}, ...]
  github  ::error|warning|notice file=…,line=…,col=…,endLine=…,endColumn=…,title=sessionls(code)::message
  sarif   SARIF 2.1.0, one run, a rule per code, relative artifact URIs,
          each fix as a result's fixes (replacements, properties.safety)

Finding codes (each can be turned off with --disable):
` + codesHelp() + `

` + configHelp + ` Directories are searched for the
files its files/exclude globs select; files named as arguments are always
` + textfmt.Wrap("checked. ", overridesHelp("check"), 76, "") + `

Dialects: each file is read in its session format, the runtime's own
(seed), Claude Code's (claude-code) or Codex CLI's (codex). With auto, the
default, it is detected from the file's first line that JSON.parse accepts
(within its first 4 MiB; 'sessionls config FILE' says which and why);
--dialect, or the dialect of the file's configuration, chooses one instead.

Fixes (as ruff's): a finding marked [fix] has a safe fix, one that changes no
message the runtime would load (a byte order mark, a blank line of
whitespace, records joined on one line, a trailing comma, a raw control
character in a string); [unsafe fix] marks one that drops or invents data
(a truncated record, a missing isError or toolCalls, an orphan tool result;
its title in SARIF and in the editor says what). json's "fix" is "safe",
"unsafe" or null. --fix applies the safe fixes in place (atomically,
keeping the file's mode, owner and extended attributes, and carrying over
what another process appends meanwhile; a file that was rewritten or
replaced meanwhile, is read-only, is kept open by another process, or is a
symbolic link out of the tree being checked is not written: exit 2) and
then reports what remains;
--unsafe-fixes adds the unsafe ones. --diff prints the unified diff of what
--fix would do and writes nothing. With "-" (alone), --fix prints the fixed
text to stdout and the findings to stderr. --fix and --diff read each file
into memory; a plain check reads a file with fixable findings twice (stdin
is copied to a temporary file for that, except with --format github: up to
256 MiB, past which stdin's findings show no fixes), and holds no line over
64 MiB for a fix mark (its finding shows none; --fix still fixes it).

Interleaved appends whose pieces pair into valid records more than one way
are never guessed at: check names each such run on stderr and lists its
candidate fixes (up to 4), numbered LINE:N, each titled with the pieces it
joins (a piece is one 524,288-byte write, counted from 1 in its line) and
what it keeps and loses; json lists them as "candidates" of the run's
first interleaved-record finding, sarif as more fixes of that result.
--pick LINE:N (with --unsafe-fixes and --fix or --diff, one file,
repeatable) applies candidate N of the run at LINE, the file's own line
as check lists it, then the other fixes; a pick that names no candidate
writes nothing (exit 2). A plain check reads a file with an
interleaved-record finding whole (up to 256 MiB) for its candidates.

Each file lists at most the first 100 findings of each code; the rest are
counted (text and github: "… and N more <code> findings"; json: "omitted"
on the last one listed; sarif: a note notification) and the summary, the
fixable counts and the exit code count them all.

Exit codes: 0 no failing finding; 1 an error finding (or a warning with
--strict), or with --diff a file that would change; 2 usage, I/O or
configuration error (2 wins over 1; the other files are still checked).
With --fix they follow what remains.`,
		Example: `  sessionls check sessions/
  sessionls check --format github --strict sessions/
  sessionls check --format sarif sessions/ > sessionls.sarif
  sessionls check --disable swept-message,duplicate-call-id a.jsonl b.jsonl
  cat a.jsonl | sessionls check --stdin-filename a.jsonl -
  sessionls check --budget 20000 session.jsonl
  sessionls check --shard 2/4 sessions/   # the second of four CI jobs
  sessionls check --fix sessions/
  sessionls check --diff --unsafe-fixes session.jsonl
  sessionls check --fix --unsafe-fixes --pick 2:1 session.jsonl   # candidate 1 of the ambiguous run at line 2
  sessionls check --fix - < broken.jsonl > fixed.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), e, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", formatText, formatFlagHelp())
	f.StringVar(&o.stdinFilename, "stdin-filename", "-", "`NAME` to report for stdin (\"-\")")
	f.StringVar(&o.shard, "shard", "", "check only shard `I/N` (1-based) of the files, split by a stable hash of each path")
	o.flags = addSettingFlags(f, "check")
	f.BoolVar(&o.fix, "fix", false, "apply the safe fixes in place, then report what remains")
	f.BoolVar(&o.unsafeFixes, "unsafe-fixes", false, "with --fix or --diff: apply the unsafe fixes too")
	f.StringArrayVar(&o.pickFlags, "pick", nil, pickFlagHelp)
	f.BoolVar(&o.diff, "diff", false, "print a unified diff of what --fix would change and write nothing (exit 1 when something would)")
	o.summary = newStepSummary(f)
	return cmd
}

// codesHelp lists the finding codes with their severity and meaning.
func codesHelp() string {
	var b strings.Builder
	for _, r := range rules() {
		fmt.Fprintf(&b, "  %-20s %-8s %s\n", r.Code, r.Severity, r.Summary)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// target is one file to check, or an error found while collecting files.
type target struct {
	path  string // as printed
	stdin bool
	err   error // set: report "cannot read path: err" instead of checking
	// always: a collection error about an argument, reported by every shard.
	always bool
	// configErr: err is a configuration error, printed as it is.
	configErr bool
	// The settings for this file: the configuration's, then the flags.
	opts   analysis.Options
	strict bool
	// dialect is the setting's dialect; nil: auto, detected when the file
	// is read.
	dialect dialect.Dialect
	// linkOut is set when path is a symbolic link whose target lies outside
	// the tree being checked (the directory argument it was found in, or
	// for a file argument the directory of the link): "TARGET, outside
	// TREE". --fix does not write through it.
	linkOut string
}

// fileResult is the outcome for one target, filled by a worker.
type fileResult struct {
	findings []analysis.Finding // the first maxListedPerCode of each code
	fixes    fileFixes          // the fixes of findings, by index
	more     []omitted          // the findings past the cap, counted by code
	cutFixes fixCounts          // the fixes of the findings past the cap
	run      *fixRun            // --fix or --diff
	// ambiguities: a plain check's ambiguous runs (pick.go), listed
	ambiguities []fix.Ambiguity
	err         error
	internal    bool // err is a bug, not an I/O problem
	done        chan struct{}
}

func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usagef("invalid --shard %q (want I/N with 1 <= I <= N, e.g. 2/4)", s)
	}
	return i, n, nil
}

// shardOf places a path in one of n shards by FNV-1a of its slash form, so
// adding or removing a file never moves another file to a different shard.
func shardOf(path string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(filepath.ToSlash(filepath.Clean(path))))
	return int(h.Sum32() % uint32(n))
}

func runCheck(ctx context.Context, e *env, o checkOptions, args []string) error {
	c, err := prepareCheck(e, o, args)
	if err != nil {
		return err
	}
	if e.getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(checkMemoryLimit)
		defer debug.SetMemoryLimit(prev)
	}
	// Cancelled on return, so an early exit (stdout closed) stops the workers.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := newProgress(e, len(c.targets), &c.filesDone, &c.bytesRead)
	defer prog.stop()
	results := make([]*fileResult, len(c.targets))
	for i := range results {
		results[i] = &fileResult{done: make(chan struct{})}
	}
	go schedule(ctx, e, c.targets, results, c.o, &c.bytesRead, &c.filesDone)
	if err := c.aggregate(ctx, results, prog); err != nil {
		return err
	}
	prog.stop()
	return c.finish()
}

// checkRun is one `check`: what prepareCheck decided, then what aggregate
// counted as the files came in.
type checkRun struct {
	e       *env
	o       checkOptions
	fm      formatter
	targets []target

	bytesRead, filesDone atomic.Int64

	sum          summary
	interrupted  bool // the context ended before every file was checked
	strictFailed bool // a warning in a file checked with --strict
}

// prepareCheck validates the options, makes the formatter and collects the
// targets (this shard's, with their settings).
func prepareCheck(e *env, o checkOptions, args []string) (*checkRun, error) {
	resolver, err := o.flags.resolver(e)
	if err != nil {
		return nil, err
	}
	shardI, shardN := 1, 1
	if o.shard != "" {
		if shardI, shardN, err = parseShard(o.shard); err != nil {
			return nil, err
		}
	}
	if o.out, err = formatNamed(o.format); err != nil {
		return nil, err
	}
	if o.unsafeFixes && !o.fixing() {
		return nil, usagef("--unsafe-fixes needs --fix or --diff")
	}
	if o.picks, err = parsePicks(o.pickFlags); err != nil {
		return nil, err
	}
	if len(o.picks) > 0 && !o.unsafeFixes {
		return nil, usagef("--pick applies an unsafe candidate fix: it needs --unsafe-fixes (and --fix or --diff)")
	}
	if len(o.picks) > 0 && (len(args) != 1 || isDir(args[0])) {
		return nil, usagef("--pick names lines of one file: give exactly one file")
	}
	if o.diff && !o.out.withDiff {
		return nil, usagef("--diff prints a diff, not findings: it cannot be used with --format %s", o.format)
	}
	stdinFix := o.fix && !o.diff && slices.Contains(args, "-")
	if stdinFix && len(args) > 1 {
		return nil, usagef("with --fix, \"-\" must be the only path: the fixed text goes to stdout")
	}
	// With --fix on stdin the fixed text takes stdout; the findings go to
	// stderr.
	out, outTTY := e.stdout, e.stdoutTTY
	if stdinFix {
		out, outTTY = e.stderr, e.stderrTTY
	}
	color := outTTY && e.getenv("NO_COLOR") == ""
	c := &checkRun{e: e, o: o, fm: o.out.new(out, color, e.version), sum: summary{fixMode: o.fixing()}}

	all := collect(args, o.stdinFilename, resolver)
	if o.fix && !o.diff {
		all = oncePerFile(all)
	}
	flagLayer := o.flags.layer()
	for _, t := range all {
		if t.always || shardOf(t.path, shardN) == shardI-1 {
			c.targets = append(c.targets, withSettings(t, resolver, flagLayer))
		}
	}
	if len(all) == 0 {
		fmt.Fprintf(e.stderr, "sessionls: warning: no .jsonl files found in %s\n", strings.Join(args, " "))
	}
	if err := o.summary.prepare(e, o, c.targets); err != nil {
		return nil, err
	}
	return c, nil
}

// aggregate takes each file's result in argument order as it is done:
// prints it, counts it in the summary, and lets it go.
func (c *checkRun) aggregate(ctx context.Context, results []*fileResult, prog *progress) error {
	e := c.e
	configReported := map[string]bool{}
	for i, t := range c.targets {
		r := results[i]
		<-r.done
		results[i] = nil // let the findings go once printed
		prog.clear()
		switch {
		case r.err != nil && ctx.Err() != nil && errors.Is(r.err, ctx.Err()):
			c.interrupted = true
		case r.err != nil && t.configErr:
			// One configuration error stands for every file under it: say
			// it once.
			for _, line := range configErrorLines(r.err) {
				if !configReported[line] {
					configReported[line] = true
					fmt.Fprintf(e.stderr, "sessionls: %s\n", line)
					c.sum.ioErrors = append(c.sum.ioErrors, line)
				}
			}
		case r.err != nil:
			c.fileFailed(t, r)
		default:
			if err := c.fileDone(t, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// fileFailed reports a file that could not be read or written.
func (c *checkRun) fileFailed(t target, r *fileResult) {
	reason := r.err
	var pe *fs.PathError
	if errors.As(reason, &pe) {
		reason = pe.Err
	}
	what := "cannot read"
	if r.internal {
		what = "internal error checking"
	}
	msg := fmt.Sprintf("%s %s: %v", what, t.path, reason)
	var we writeError
	var pe2 pickError
	if errors.As(r.err, &pe2) {
		msg = pe2.Error()
	}
	if errors.As(r.err, &we) {
		msg = we.Error() // it names the file and what failed
		c.sum.writeErrors++
	}
	fmt.Fprintf(c.e.stderr, "sessionls: %s\n", textfmt.Sanitize(msg))
	c.sum.ioErrors = append(c.sum.ioErrors, msg)
}

// fileDone prints a checked file's findings (or its diff, or its fixed
// text) and counts them.
func (c *checkRun) fileDone(t target, r *fileResult) error {
	sum := &c.sum
	sum.filesChecked++
	if r.run != nil {
		sum.fixed += r.run.fixed
		sum.moreUnsafe += r.run.more
		sum.lost = sum.lost.Add(r.run.lost)
		// An ambiguity is never guessed at: said where it is, with how
		// many ways its pieces pair (the file does not load: exit 1).
		for _, a := range r.run.ambiguities {
			fmt.Fprintf(c.e.stderr, "sessionls: %s:%d: %s\n", textfmt.Sanitize(t.path), a.Line, a.Message())
			listCandidates(c.e.stderr, a)
			sum.ambiguous++
		}
		if r.run.fixed > 0 {
			sum.filesFixed++
		}
		if c.o.diff {
			if len(r.run.diff) > 0 {
				sum.filesChanged++
				if _, err := c.e.stdout.Write(r.run.diff); err != nil {
					return writeFailed(c.e, err)
				}
			}
			return nil
		}
		if r.run.out != nil {
			if _, err := c.e.stdout.Write(r.run.out); err != nil {
				return writeFailed(c.e, err)
			}
		}
	}
	for _, a := range r.ambiguities { // a plain check's
		fmt.Fprintf(c.e.stderr, "sessionls: %s:%d: %s\n", textfmt.Sanitize(t.path), a.Line, a.Message())
		listCandidates(c.e.stderr, a)
	}
	safe, unsafe := r.fixes.count()
	sum.fixable += safe + r.cutFixes.safe
	sum.unsafeFixable += unsafe + r.cutFixes.unsafe
	if len(r.findings) > 0 {
		sum.filesWithFindings++
	}
	// The totals count every finding, listed or past the cap.
	count := func(sev analysis.Severity, n int) {
		switch sev {
		case analysis.SeverityError:
			sum.errors += n
		case analysis.SeverityWarning:
			sum.warnings += n
			c.strictFailed = c.strictFailed || t.strict
		default:
			sum.infos += n
		}
	}
	for _, f := range r.findings {
		count(f.Severity, 1)
	}
	for _, m := range r.more {
		count(m.severity, m.n)
		sum.omitted += m.n
	}
	if err := c.fm.file(t.path, r.findings, r.fixes, r.more); err != nil {
		return writeFailed(c.e, err)
	}
	return nil
}

// finish ends the output and decides the exit code: 2 for an I/O or
// configuration error, else 1 for a failing finding, else 0.
func (c *checkRun) finish() error {
	e, sum := c.e, c.sum
	if c.o.diff {
		return endDiff(e, sum, c.interrupted)
	}
	if c.interrupted {
		// Not one line per file left unchecked: one line, and no summary
		// that would read as a verdict on files never checked.
		fmt.Fprintln(e.stderr, "sessionls: interrupted")
		if c.o.out.document {
			// Close the JSON array or SARIF log: what was checked stays
			// machine-readable.
			if err := c.fm.end(sum); err != nil {
				return writeFailed(e, err)
			}
		}
		return exitError{ExitError}
	}
	if err := c.fm.end(sum); err != nil {
		return writeFailed(e, err)
	}
	if err := c.o.summary.write(e); err != nil {
		return err
	}
	switch {
	case len(sum.ioErrors) > 0:
		return exitError{ExitError}
	case sum.errors > 0 || c.strictFailed:
		return exitError{ExitFindings}
	}
	return nil
}

// oncePerFile drops a target that is the same file as an earlier one
// (through a symbolic link, or a second name): --fix replaces each file
// once.
func oncePerFile(ts []target) []target {
	seen := map[string]bool{}
	out := ts[:0:0]
	for _, t := range ts {
		if t.err == nil && !t.stdin {
			if real, err := filepath.EvalSymlinks(t.path); err == nil {
				if seen[real] {
					continue
				}
				seen[real] = true
			}
		}
		out = append(out, t)
	}
	return out
}

// linkLeaves says, for a path that is a symbolic link (or has one as its
// last component), where it leads when that is outside the directory tree
// root: "TARGET, outside ROOT"; "" for a path that is no link or stays in
// the tree. A link that cannot be resolved is reported when it is read.
func linkLeaves(path, root string) string {
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	if absT, err := filepath.Abs(target); err == nil {
		target = absT
	}
	if absR, err := filepath.Abs(realRoot); err == nil {
		realRoot = absR
	}
	if rel, err := filepath.Rel(realRoot, target); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return target + ", outside " + root
}

func writeFailed(e *env, err error) error {
	fmt.Fprintf(e.stderr, "sessionls: cannot write the report: %v\n", err)
	return exitError{ExitError}
}

// schedule runs the targets on at most GOMAXPROCS workers and closes each
// result's done channel when it is filled.
func schedule(ctx context.Context, e *env, targets []target, results []*fileResult,
	o checkOptions, bytesRead, filesDone *atomic.Int64) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, t := range targets {
		r := results[i]
		if t.err != nil {
			r.err = t.err
			filesDone.Add(1)
			close(r.done)
			continue
		}
		if err := ctx.Err(); err != nil {
			r.err = err
			filesDone.Add(1)
			close(r.done)
			continue
		}
		g.Go(func() error {
			defer close(r.done)
			defer filesDone.Add(1)
			defer func() {
				if p := recover(); p != nil {
					r.err = fmt.Errorf("%v", p)
					r.internal = true
				}
			}()
			if o.fixing() {
				r.run, r.err = fixFile(ctx, e, t, t.opts, o, bytesRead)
				if r.run != nil {
					r.findings, r.fixes, r.more = capWithFixes(r.run.findings, r.run.fixes, maxListedPerCode)
					for _, m := range r.run.omitted {
						r.more = addOmitted(r.more, m)
					}
					r.cutFixes = r.run.cutFixes
				}
				return nil
			}
			r.findings, r.fixes, r.more, r.cutFixes, r.err = checkFile(ctx, e, t, t.opts, o.out, bytesRead)
			if r.err == nil {
				r.err = plainAmbiguities(ctx, t, r, o.out.fixRegions)
			}
			return nil
		})
	}
	_ = g.Wait()
}

// checkFile streams one file through the engine and, for the formats that
// show fixes (all but github), reads it again for the fixes of its findings
// (stdin is spooled to a temporary file for that). It keeps the first
// maxListedPerCode findings of each code and counts the rest (more, and
// their fixes in cutFixes).
func checkFile(ctx context.Context, e *env, t target, opts analysis.Options, format outputFormat, bytesRead *atomic.Int64) (findings []analysis.Finding, fixes fileFixes, more []omitted, cutFixes fixCounts, err error) {
	withFixes := format.fixes
	var r io.Reader
	var spool *spoolStdin
	d := t.dialect
	if t.stdin {
		if d, r, err = detectStream(d, e.stdin); err != nil {
			return nil, nil, nil, cutFixes, err
		}
		if withFixes {
			if spool, err = newSpool(maxSpool); err != nil {
				return nil, nil, nil, cutFixes, err
			}
			defer spool.close()
			r = spool.tee(r)
		}
	} else {
		f, err := openRegular(t.path, checkStdinHint)
		if err != nil {
			return nil, nil, nil, cutFixes, err
		}
		defer f.Close()
		if d, r, err = detectStream(d, f); err != nil {
			return nil, nil, nil, cutFixes, err
		}
	}
	// The engine keeps the first findings of each code too, and only the
	// lines of the rest that have fixes to count.
	opts.MaxFindingsPerCode = maxListedPerCode
	if withFixes {
		opts.OmittedLines = fixableLines()
	}
	rep, err := e.analyze(ctx, d, &countingReader{r: r, n: bytesRead}, opts)
	if err != nil {
		return nil, nil, nil, cutFixes, err
	}
	findings, more, cut := capReport(rep, withFixes)
	rep = nil
	if !withFixes || (len(cut) == 0 && !slices.ContainsFunc(findings, func(f analysis.Finding) bool { return fix.Fixable(f.Code) })) {
		return findings, nil, more, cutFixes, nil
	}
	var again io.Reader
	if spool != nil {
		if again, err = spool.rewind(); err != nil {
			return nil, nil, nil, cutFixes, err
		}
		if again == nil {
			return findings, nil, more, cutFixes, nil // stdin too long to keep: no fix marks
		}
	} else {
		f, err := os.Open(t.path)
		if err != nil {
			return nil, nil, nil, cutFixes, err
		}
		defer f.Close()
		again = f
	}
	if isSeed(d) {
		fixes, cutFixes, err = streamFixesCapped(ctx, again, findings, cut, format.fixRegions)
	} else {
		fixes, cutFixes, err = planFixesCapped(ctx, d, again, findings, cut, format.fixRegions)
	}
	if err != nil {
		return nil, nil, nil, cutFixes, err
	}
	return findings, fixes, more, cutFixes, nil
}

// fixableLines names the codes that have fixes, for
// analysis.Options.OmittedLines: the lines of their findings past the cap
// are kept to count those fixes.
func fixableLines() map[string]bool {
	m := map[string]bool{}
	for _, c := range analysis.Codes() {
		if fix.Fixable(c) {
			m[c] = true
		}
	}
	return m
}

// sortFindings orders findings by line, then column, keeping the engine's
// order within a position.
func sortFindings(findings []analysis.Finding) {
	slices.SortStableFunc(findings, func(a, b analysis.Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Span.StartCol - b.Span.StartCol
	})
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// ReadAt and Seek pass through to a file, so that the engine can count a
// long line without holding it and read it again only if it can load (see
// analysis.AnalyzeReader). Bytes read again are not progress.
func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	ra, ok := c.r.(io.ReaderAt)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	return ra.ReadAt(p, off)
}

func (c *countingReader) Seek(off int64, whence int) (int64, error) {
	s, ok := c.r.(io.Seeker)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	return s.Seek(off, whence)
}

// checkStdinHint says how to check a file that is not a regular one.
const checkStdinHint = "to check it anyway, give - and redirect it to stdin: sessionls check - < FILE"

// collect turns the arguments into targets, in argument order: a file as
// given (any name), a directory's session files recursively in lexical
// order (those the files and exclude globs of their configuration select:
// *.jsonl by default), "-" for stdin. A path seen twice is checked once.
func collect(args []string, stdinName string, r *config.Resolver) []target {
	var out []target
	seen := map[string]bool{}
	configErrs := map[string]bool{}
	// configError adds a configuration problem met while searching, once.
	configError := func(path string, err error) {
		if !configErrs[err.Error()] {
			configErrs[err.Error()] = true
			out = append(out, target{path: path, err: err, configErr: true, always: true})
		}
	}
	add := func(t target) {
		key := filepath.Clean(t.path)
		if t.stdin {
			key = "\x00stdin"
		}
		if t.err == nil {
			if seen[key] {
				return
			}
			seen[key] = true
		}
		out = append(out, t)
	}
	for _, arg := range args {
		if arg == "-" {
			add(target{path: stdinName, stdin: true})
			continue
		}
		info, err := os.Stat(arg)
		if err != nil {
			add(target{path: arg, err: err, always: true})
			continue
		}
		if !info.IsDir() {
			if !info.Mode().IsRegular() {
				add(target{path: arg, err: notRegular(info.Mode(), checkStdinHint), always: true})
				continue
			}
			add(target{path: arg, linkOut: linkLeaves(arg, filepath.Dir(arg))})
			continue
		}
		walkErr := filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				// An unreadable directory: say so, keep walking the rest.
				add(target{path: path, err: err, always: true})
				return nil
			}
			if d.IsDir() {
				if path == arg {
					return nil
				}
				excluded, err := r.ExcludesDir(path)
				if err != nil {
					configError(path, err)
				}
				if excluded {
					return filepath.SkipDir
				}
				return nil
			}
			selected, err := r.Selects(path)
			if err != nil {
				configError(path, err)
				return nil
			}
			if !selected {
				return nil
			}
			switch {
			case d.Type().IsRegular():
				add(target{path: path})
			case d.Type()&fs.ModeSymlink != 0:
				// Followed for files (a dangling link is an error);
				// symlinked directories are not walked, so no cycles.
				fi, err := os.Stat(path)
				if err != nil {
					add(target{path: path, err: err})
				} else if fi.Mode().IsRegular() {
					add(target{path: path, linkOut: linkLeaves(path, arg)})
				}
			}
			// FIFOs, sockets and devices inside a tree are skipped: reading
			// one could block forever. Named explicitly, they are refused.
			return nil
		})
		if walkErr != nil {
			add(target{path: arg, err: walkErr, always: true})
		}
	}
	return out
}

// withSettings fills a target's options from its configuration and the
// flags; a configuration error becomes the target's error.
func withSettings(t target, r *config.Resolver, flags config.Layer) target {
	if t.err != nil {
		return t
	}
	s, err := settingsFor(r, t.path, t.stdin)
	if err != nil {
		t.err = err
		t.configErr = true
		return t
	}
	s.Layer(flags)
	// A dialect this build does not have is an error of the setting.
	if t.dialect, err = settingDialect(s); err != nil {
		t.err = err
		t.configErr = true
		return t
	}
	// Check needs findings only: without the messages the engine keeps a
	// few bytes per message, so a huge file is checked in bounded memory.
	t.opts = s.Options()
	t.opts.SkipMessages = true
	t.strict = s.Strict.V
	return t
}

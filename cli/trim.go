package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/internal/atomicfile"
	"github.com/sessionls/sessionls/internal/textfmt"
)

func newTrimCmd(e *env) *cobra.Command {
	var (
		flags budgetFlags
		out   string
	)
	cmd := &cobra.Command{
		Use:   "trim [--budget N | --max-tokens N] [--tokenizer ENC] [-o OUT] FILE",
		Short: "Write the part of a session that a character budget keeps",
		Long: `Write the lines of FILE that trimContext keeps for a budget of N characters:
from the first kept line to the end of the file, byte for byte (CRLF line
ends and blank lines inside the kept part are kept). To stdout, or with -o
to OUT atomically: a temporary file in OUT's directory, fsynced, then
renamed over OUT. The rename replaces OUT: it keeps OUT's mode, group and
(when permitted) owner, and a symlink OUT is followed, but another hard link
to OUT keeps the old content. OUT may be FILE itself. N is --budget, or
else the budget of FILE's configuration (the closest sessionls.toml; see
'sessionls config').

--max-tokens N (or the max-tokens of the configuration) keeps what a
budget of N tokens keeps, with the same unit rules (see budget --help;
--tokenizer, or the configuration's tokenizer, chooses the encoding).

A file that does not load, or a budget for which trimContext throws, is
refused with exit 1 and the runtime's error on stderr; nothing is written.`,
		Example: `  sessionls trim --budget 20000 session.jsonl > trimmed.jsonl
  sessionls trim --budget 20000 -o session.jsonl session.jsonl
  sessionls trim --max-tokens 8000 session.jsonl > trimmed.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, budget, d, err := flags.resolve(e, args[0])
			if err != nil {
				return err
			}
			return runTrim(cmd.Context(), e, args[0], out, budget, d, opts)
		},
	}
	flags.register(cmd, "trim", false)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to `OUT` atomically instead of stdout")
	return cmd
}

func runTrim(ctx context.Context, e *env, file, out string, budget int64, d dialect.Dialect, opts analysis.Options) error {
	if out != "" && out != "-" && sameFile(file, out) {
		return trimInPlace(ctx, e, file, budget, d, opts)
	}
	// One descriptor for both passes, so the bytes copied are those analysed
	// unless someone rewrites the file in place meanwhile.
	f, err := openRegular(file, "trim reads its input twice, so copy it to a file first")
	if err != nil {
		return ioFailed(e, file, err)
	}
	defer f.Close()
	first, err := firstKeptLine(ctx, e, file, f, budget, d, opts)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ioFailed(e, file, err)
	}
	if out == "" || out == "-" {
		if err := copyFromLine(e.stdout, f, first); err != nil {
			return copyFailed(e, file, err)
		}
		return nil
	}
	if err := atomicfile.Write(out, func(w io.Writer) error { return copyFromLine(w, f, first) }); err != nil {
		var re readError
		if errors.As(err, &re) {
			err = fmt.Errorf("cannot read the input: %w", re.err)
		}
		fmt.Fprintf(e.stderr, "sessionls: %v\n", err)
		return exitError{ExitError}
	}
	return nil
}

// sameFile says whether a and b name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// trimInPlace is trim -o FILE FILE: the kept lines replace the file only if
// it is still the file analysed, with whatever was appended to it since
// carried over after them (an agent may be appending while it is trimmed;
// see atomicfile.Source). The file is analysed again, a few times at most,
// when its unterminated last line was still being written.
func trimInPlace(ctx context.Context, e *env, file string, budget int64, d dialect.Dialect, opts analysis.Options) error {
	for attempt := 1; ; attempt++ {
		err := trimInPlaceOnce(ctx, e, file, budget, d, opts)
		if errors.Is(err, atomicfile.ErrLastLineGrew) && attempt < fixAttempts {
			continue
		}
		if err != nil && !errors.As(err, new(exitError)) {
			fmt.Fprintf(e.stderr, "sessionls: %s\n", textfmt.Sanitize(err.Error()))
			return exitError{ExitError}
		}
		return err
	}
}

func trimInPlaceOnce(ctx context.Context, e *env, file string, budget int64, d dialect.Dialect, opts analysis.Options) error {
	src, err := openSource(file)
	if err != nil {
		return ioFailed(e, file, err)
	}
	defer src.Close()
	first, err := firstKeptLine(ctx, e, file, src, budget, d, opts)
	if err != nil {
		return err
	}
	_, err = src.Replace(func(w io.Writer) error { return copyFromLine(w, src.Again(), first) })
	var re readError
	if errors.As(err, &re) {
		return fmt.Errorf("cannot read %s: %w", file, re.err)
	}
	return err
}

// firstKeptLine analyses the file read from r and returns the first line
// the budget keeps; when the file does not load or trimContext throws, it
// says so and returns exit 1.
func firstKeptLine(ctx context.Context, e *env, file string, r io.Reader, budget int64, d dialect.Dialect, opts analysis.Options) (int, error) {
	d, r, err := detectStream(d, r)
	if err != nil {
		return 0, ioFailed(e, file, err)
	}
	rep, err := e.analyze(ctx, d, r, opts)
	if err != nil {
		return 0, ioFailed(e, file, err)
	}
	o := outcome(rep, budget, opts)
	if o.err != nil {
		fmt.Fprintf(e.stderr, "sessionls: cannot trim %s: %s\n", textfmt.Sanitize(file), textfmt.Sanitize(o.errorText()))
		return 0, exitError{ExitFindings}
	}
	return o.cutoff.FirstKeptLine, nil
}

// readError marks an error reading the source, as opposed to writing.
type readError struct{ err error }

func (r readError) Error() string { return r.err.Error() }
func (r readError) Unwrap() error { return r.err }

func copyFailed(e *env, file string, err error) error {
	var re readError
	if errors.As(err, &re) {
		return ioFailed(e, file, re.err)
	}
	return writeFailed(e, err)
}

// copyFromLine copies src to dst from the start of physical line `line`
// (1-based) to the end, unchanged.
func copyFromLine(dst io.Writer, src io.Reader, line int) error {
	buf := make([]byte, 64<<10)
	skip := line - 1 // newlines still to pass
	for skip > 0 {
		n, err := src.Read(buf)
		chunk := buf[:n]
		for skip > 0 && len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				chunk = nil
				break
			}
			chunk = chunk[i+1:]
			skip--
		}
		if skip == 0 && len(chunk) > 0 {
			if _, werr := dst.Write(chunk); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			if skip > 0 {
				return readError{fmt.Errorf("file ended before line %d: was it changed while being trimmed?", line)}
			}
			return nil
		}
		if err != nil {
			return readError{err}
		}
	}
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError{err}
		}
	}
}

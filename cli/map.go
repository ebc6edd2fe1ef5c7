package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/ctxmap"
	"github.com/sessionls/sessionls/analysis/ctxmap/mappage"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

func newMapCmd(e *env) *cobra.Command {
	var (
		flags budgetFlags
		out   string
	)
	flags.optional = true
	cmd := &cobra.Command{
		Use:   "map [--budget N | --max-tokens N] [--tokens] [--tokenizer ENC] [-o OUT.html] FILE",
		Short: "Draw where a session's context goes, and where the budget cuts, as one HTML page",
		Long: `Write the context map of FILE: one self-contained HTML page (its CSS and
script inline, nothing loaded from the network; it works from file://)
showing

  - the session's units oldest to newest as a strip, each as long as it
    costs (characters; tokens with --tokens or --max-tokens), coloured by
    role and, for tool results, by the name of the call they answer;
  - the cutoff of the budget across it, the trimmed part faded, and the
    first kept line ("keeps from line 12");
  - the lines the runtime refuses, marked, and when the file does not load,
    a banner saying so (the map then shows what its valid lines would cost);
  - for a Claude Code or Codex CLI file, its compaction points, marked
    (pointing at one says what the summary replaced);
  - tables of the cost by role and by tool name (count, chars, tokens,
    share) and the largest units with their lines.

Pointing at a unit shows its lines, messages, cost and cost from newest;
every unit links to its first line (its data-line attribute; the href is
the file's file:// URL with #L<line>, and an editor hosting the page
reveals the line instead).

A session of many units stays a small page (under 5 MB): adjacent small
units are drawn together in bins, and every unit above a threshold (the
total over 2,000) keeps its own. The file is streamed through the engine,
as check does.

The budget is --budget or --max-tokens, else the budget (or max-tokens)
of FILE's configuration (the closest sessionls.toml); without one the map
has no cutoff. The page goes to OUT (a temporary file renamed over it),
or to stdout when stdout is not a terminal; on a terminal, without -o, map
refuses (an HTML page is not for reading there). OUT cannot be FILE.

Exit codes: 0 the page is written; 1 it is written, but the file does not
load or trimContext throws for the budget (the page says so, and so does
stderr); 2 usage, I/O or configuration error.`,
		Example: `  sessionls map -o map.html session.jsonl
  sessionls map --budget 20000 -o map.html session.jsonl
  sessionls map --max-tokens 8000 session.jsonl > map.html
  sessionls map --tokens -o map.html session.jsonl && xdg-open map.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			if out == "" && e.stdoutTTY {
				return usagef("map writes an HTML page: give -o OUT.html, or redirect stdout (sessionls map %s > map.html)", file)
			}
			if out != "" && out != "-" && file != "-" && sameFile(file, out) {
				return usagef("-o %s is the session itself: the page would replace it", out)
			}
			opts, budget, d, err := flags.resolve(e, file)
			if err != nil {
				return err
			}
			return runMap(cmd, e, file, out, budget, d, opts)
		},
	}
	flags.register(cmd, "map", true)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the page to `OUT` atomically instead of stdout")
	return cmd
}

// writePage writes path through a temporary file in its directory,
// renamed over it: a reader never sees half a page, and a failed run
// leaves the old one. Unlike a session, the page is not fsynced (it can
// be made again at will; an fsync is most of a small map's wall time).
func writePage(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes the file 0600; a page is for reading.
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func runMap(cmd *cobra.Command, e *env, file, out string, budget int64, d dialect.Dialect, opts analysis.Options) error {
	// The engine's memory is bounded by the longest line, as in check: the
	// same soft heap goal keeps a gigabyte's map near check's RSS.
	if e.getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(checkMemoryLimit)
		defer debug.SetMemoryLimit(prev)
	}
	b := ctxmap.NewBuilder()
	opts.Observer = b
	rep, err := analyzeFile(cmd.Context(), e, file, d, opts)
	if err != nil {
		return ioFailed(e, file, err)
	}
	m, err := b.Build(rep, ctxmap.Config{Budget: budget, TokenBudget: opts.TokenBudget > 0, ByTokens: opts.Tokens != nil})
	if err != nil {
		return err
	}
	tokenizer := ""
	if c, ok := opts.Tokens.(*tokens.Counter); ok {
		tokenizer = string(c.Encoding())
	}
	po := mappage.Options{Name: file, FileURL: mappage.FileURL(file), Tokenizer: tokenizer, Version: e.version}
	write := func(w io.Writer) error { return mappage.Write(w, m, po) }
	if out == "" || out == "-" {
		if err := write(e.stdout); err != nil {
			return writeFailed(e, err)
		}
	} else if err := writePage(out, write); err != nil {
		fmt.Fprintf(e.stderr, "sessionls: cannot write %s: %s\n", textfmt.Sanitize(out), textfmt.Sanitize(err.Error()))
		return exitError{ExitError}
	}
	o := outcome(rep, budget, opts)
	if o.err != nil {
		fmt.Fprintf(e.stderr, "sessionls: %s: %s\n", textfmt.Sanitize(file), textfmt.Sanitize(o.errorText()))
		return exitError{ExitFindings}
	}
	return nil
}

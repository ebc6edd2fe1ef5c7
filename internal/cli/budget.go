package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/sessionls/sessionls/internal/textfmt"
	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/analysis"
)

// budgetJSON is `budget --format json`; keys and order are the interface.
type budgetJSON struct {
	File       string      `json:"file"`
	Messages   int         `json:"messages"`
	TotalChars int64       `json:"totalChars"`
	Units      []unitJSON  `json:"units"`
	Budget     int64       `json:"budget"`
	Cutoff     *cutoffJSON `json:"cutoff"`
	Error      *string     `json:"error"`
}

type unitJSON struct {
	StartLine int   `json:"startLine"`
	EndLine   int   `json:"endLine"`
	Messages  int   `json:"messages"`
	Chars     int64 `json:"chars"`
}

type cutoffJSON struct {
	FirstKeptLine int   `json:"firstKeptLine"`
	KeptUnits     int   `json:"keptUnits"`
	KeptChars     int64 `json:"keptChars"`
}

// budgetOutcome is what the runtime would do with a file for a budget.
type budgetOutcome struct {
	rep    *analysis.Report
	cutoff *analysis.Cutoff
	err    error // the runtime's error: the file does not load, or trimContext throws
	loads  bool
}

func outcome(rep *analysis.Report, budget int64) budgetOutcome {
	o := budgetOutcome{rep: rep, loads: rep.Loads()}
	if !o.loads {
		o.err = rep.LoadFailure()
		return o
	}
	switch {
	case rep.CutoffErr != nil:
		o.err = rep.CutoffErr
	case rep.Cutoff != nil:
		o.cutoff = rep.Cutoff
	case budget > 0:
		// The engine sets one or the other for a budget on a file that
		// loads; reaching here is a bug there, not a verdict to invent.
		panic("analysis: a report for a budget has neither Cutoff nor CutoffErr")
	}
	return o
}

// messageCount is the number of valid messages; the reports are made with
// SkipMessages, and units count every message.
func messageCount(rep *analysis.Report) int {
	if len(rep.Messages) > 0 || len(rep.Units) == 0 {
		return len(rep.Messages)
	}
	return rep.Units[len(rep.Units)-1].Last + 1
}

func (o budgetOutcome) json(file string, budget int64) budgetJSON {
	j := budgetJSON{File: file, Units: []unitJSON{}, Budget: budget}
	if o.err != nil {
		s := o.err.Error()
		j.Error = &s
	}
	if !o.loads {
		// The runtime holds no messages for a file it refuses.
		return j
	}
	j.Messages = messageCount(o.rep)
	j.TotalChars = o.rep.TotalChars
	for _, u := range o.rep.Units {
		j.Units = append(j.Units, unitJSON{u.StartLine, u.EndLine, u.Len(), u.Chars})
	}
	if o.cutoff != nil {
		j.Cutoff = &cutoffJSON{o.cutoff.FirstKeptLine, o.cutoff.KeptUnits, o.cutoff.KeptChars}
	}
	return j
}

func (o budgetOutcome) text(out io.Writer, file string, budget int64) error {
	if !o.loads {
		return nil
	}
	w := bufio.NewWriter(out)
	rep := o.rep
	fmt.Fprintf(w, "%s: %s in %s, %s chars\n", sanitize(file), textfmt.Plural(messageCount(rep), "message", "messages"),
		textfmt.Plural(len(rep.Units), "unit", "units"), strconv.FormatInt(rep.TotalChars, 10))
	if len(rep.Units) > 0 {
		header := [6]string{"unit", "start line", "end line", "messages", "chars", "from newest"}
		row := func(i int, u analysis.Unit) [6]int64 {
			return [6]int64{int64(i + 1), int64(u.StartLine), int64(u.EndLine), int64(u.Len()), u.Chars, u.FromNewest}
		}
		// Column widths from the widest value, without holding the rows:
		// a session can have millions of units.
		var widths [6]int
		for c, h := range header {
			widths[c] = len(h)
		}
		for i, u := range rep.Units {
			for c, v := range row(i, u) {
				widths[c] = max(widths[c], len(strconv.FormatInt(v, 10)))
			}
		}
		for c, h := range header {
			fmt.Fprintf(w, "  %*s", widths[c], h)
		}
		fmt.Fprintln(w)
		for i, u := range rep.Units {
			if o.cutoff != nil && i == o.cutoff.FirstUnit && i > 0 {
				fmt.Fprintf(w, "  ---- budget %d cuts here: the units below are kept ----\n", budget)
			}
			for c, v := range row(i, u) {
				fmt.Fprintf(w, "  %*d", widths[c], v)
			}
			fmt.Fprintln(w)
		}
	}
	if o.cutoff != nil {
		c := o.cutoff
		fmt.Fprintf(w, "budget %d keeps %d of %d units (%s, %d chars) from line %d\n", budget,
			c.KeptUnits, len(rep.Units), textfmt.Plural(c.KeptMessages, "message", "messages"), c.KeptChars, c.FirstKeptLine)
	}
	return w.Flush()
}

func newBudgetCmd(e *env) *cobra.Command {
	var (
		maxChars int64
		format   string
		cf       configFlags
	)
	cmd := &cobra.Command{
		Use:   "budget [--max-chars N] [--format text|json] FILE",
		Short: "Show a session's units, their costs, and where a character budget cuts",
		Long: `Show what trimContext does with FILE for a budget of N characters: the
units of messages it keeps or drops together (oldest first, physical line
numbers), what each costs (JSON.stringify length + 1 per message), and the
cutoff. N is --max-chars, or else the budget of FILE's configuration (the
closest sessionls.toml; see 'sessionls config').

JSON output (--format json) is exactly:
  {"file","messages","totalChars","units":[{"startLine","endLine","messages","chars"}],
   "budget","cutoff":{"firstKeptLine","keptUnits","keptChars"}|null,"error":string|null}

Exit codes: 0 the budget cuts cleanly; 1 the file does not load (error names
its first invalid line; units are then empty) or trimContext throws for this
budget (error is the runtime's message; units are listed, cutoff is null);
2 usage, I/O or configuration error.`,
		Example: `  sessionls budget --max-chars 20000 session.jsonl
  sessionls budget --max-chars 20000 --format json session.jsonl | jq .cutoff
  cat session.jsonl | sessionls budget --max-chars 20000 -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != formatText && format != formatJSON {
				return usagef("unknown --format %q (want text or json)", format)
			}
			file := args[0]
			maxChars, err := budgetFor(e, &cf, cmd.Flags(), file, maxChars)
			if err != nil {
				return err
			}
			rep, err := analyzeFile(cmd.Context(), e, file, analysis.Options{Budget: maxChars, SkipMessages: true})
			if err != nil {
				return ioFailed(e, file, err)
			}
			o := outcome(rep, maxChars)
			if format == formatJSON {
				b, err := marshalIndent(o.json(file, maxChars))
				if err != nil {
					return fmt.Errorf("encoding the budget report: %w", err)
				}
				if _, err := e.stdout.Write(b); err != nil {
					return writeFailed(e, err)
				}
			} else {
				if err := o.text(e.stdout, file, maxChars); err != nil {
					return writeFailed(e, err)
				}
				if o.err != nil {
					fmt.Fprintf(e.stderr, "sessionls: %s: %s\n", sanitize(file), sanitize(o.err.Error()))
				}
			}
			if o.err != nil {
				return exitError{ExitFindings}
			}
			return nil
		},
	}
	cmd.Flags().Var((*positiveInt)(&maxChars), "max-chars", "the budget `N` in characters (positive; default: the budget of the file's sessionls.toml)")
	cmd.Flags().StringVar(&format, "format", formatText, "output `FORMAT`: text or json")
	cf.add(cmd.Flags())
	return cmd
}

// analyzeFile streams one named file ("-": stdin) through the engine.
func analyzeFile(ctx context.Context, e *env, path string, opts analysis.Options) (*analysis.Report, error) {
	if path == "-" {
		return e.analyze(ctx, e.stdin, opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return e.analyze(ctx, f, opts)
}

// ioFailed reports an I/O error about path on stderr: exit 2.
func ioFailed(e *env, path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	fmt.Fprintf(e.stderr, "sessionls: cannot read %s: %v\n", sanitize(path), err)
	return exitError{ExitError}
}

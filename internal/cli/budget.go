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
	// MinBudget is the least budget trimContext accepts: the newest unit's
	// cost. Null when no budget works (no messages) or the file does not
	// load. Last, so every earlier key keeps its place.
	MinBudget *int64 `json:"minBudget"`
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

// minBudget is the least budget trimContext accepts for the file: the
// newest unit's cost (it never skips that unit). ok is false when there is
// none: the file does not load, or it holds no messages.
func (o budgetOutcome) minBudget() (n int64, ok bool) {
	if !o.loads || len(o.rep.Units) == 0 {
		return 0, false
	}
	return o.rep.Units[len(o.rep.Units)-1].Chars, true
}

// errorText is the runtime's error and, when the budget is too small, the
// least budget that works: "…message unit; the least budget that works is
// 1,234 (the newest unit, lines 12–14)".
func (o budgetOutcome) errorText() string {
	s := o.err.Error()
	if n, ok := o.minBudget(); ok && errors.Is(o.err, analysis.ErrBudgetTooSmall) {
		u := o.rep.Units[len(o.rep.Units)-1]
		s += fmt.Sprintf("; the least budget that works is %s (the newest unit, %s)",
			textfmt.Thousands(n), textfmt.LineRange(u.StartLine, u.EndLine))
	}
	return s
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
	if n, ok := o.minBudget(); ok {
		j.MinBudget = &n
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
	w := bufio.NewWriter(out)
	rep := o.rep
	totals := fmt.Sprintf("%s in %s, %s chars", textfmt.Plural(messageCount(rep), "message", "messages"),
		textfmt.Plural(len(rep.Units), "unit", "units"), textfmt.Thousands(rep.TotalChars))
	if o.loads {
		fmt.Fprintf(w, "%s: %s\n", sanitize(file), totals)
	} else {
		// The editors show what the valid lines cost while the file is
		// broken; say so plainly, since the runtime itself holds nothing.
		fmt.Fprintf(w, "%s: %s, so the runtime holds no messages and budget %s cuts nothing\n",
			sanitize(file), rep.LoadFailure().Summary(), textfmt.Thousands(budget))
		fmt.Fprintf(w, "once it loads, its valid lines would cost (invalid lines not counted): %s\n", totals)
	}
	if len(rep.Units) > 0 {
		header := [6]string{"unit", "start line", "end line", "messages", "chars", "from newest"}
		// Counts and sizes with thousands separators, as everywhere in the
		// editors; line numbers plain, as editors number lines.
		// One buffer for every cell: a session can have millions of units.
		var buf []byte
		cell := func(c int, v int64) []byte {
			if c == 1 || c == 2 {
				buf = strconv.AppendInt(buf[:0], v, 10)
			} else {
				buf = textfmt.AppendThousands(buf[:0], v)
			}
			return buf
		}
		const spaces = "                                " // 32: wider than any int64 with separators (26)
		pad := func(width int, b []byte) {
			w.WriteString("  ")
			w.WriteString(spaces[:max(width-len(b), 0)])
			w.Write(b)
		}
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
				widths[c] = max(widths[c], len(cell(c, v)))
			}
		}
		for c, h := range header {
			pad(widths[c], []byte(h))
		}
		fmt.Fprintln(w)
		for i, u := range rep.Units {
			if o.cutoff != nil && i == o.cutoff.FirstUnit && i > 0 {
				fmt.Fprintf(w, "  ---- budget %s cuts here: the units below are kept ----\n", textfmt.Thousands(budget))
			}
			for c, v := range row(i, u) {
				pad(widths[c], cell(c, v))
			}
			fmt.Fprintln(w)
		}
	}
	if o.cutoff != nil {
		c := o.cutoff
		fmt.Fprintf(w, "budget %s keeps %s of %s units (%s, %s chars) from line %d\n", textfmt.Thousands(budget),
			textfmt.Thousands(c.KeptUnits), textfmt.Thousands(len(rep.Units)), textfmt.Plural(c.KeptMessages, "message", "messages"),
			textfmt.Thousands(c.KeptChars), c.FirstKeptLine)
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
   "budget","cutoff":{"firstKeptLine","keptUnits","keptChars"}|null,"error":string|null,
   "minBudget":number|null}
minBudget is the least budget trimContext accepts (the newest unit's cost);
null when the file does not load or holds no messages.

Text output of a file that does not load lists the units of its valid lines
(what the file would cost once it loads), marked as such; JSON lists none.
When the budget is too small, the error says the least budget that works.

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
					fmt.Fprintf(e.stderr, "sessionls: %s: %s\n", sanitize(file), sanitize(o.errorText()))
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
	f, err := openRegular(path, "to read it anyway, give - and redirect it to stdin: sessionls budget --max-chars N - < FILE")
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

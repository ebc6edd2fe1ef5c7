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
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/tokens"
)

// budgetJSON is `budget --format json`; keys and order are the interface.
// The token keys (totalTokens, tokenizer, budgetUnit, tokens, keptTokens)
// appear only when tokens are counted (--tokens, --max-tokens).
type budgetJSON struct {
	File        string      `json:"file"`
	Messages    int         `json:"messages"`
	TotalChars  int64       `json:"totalChars"`
	TotalTokens *int64      `json:"totalTokens,omitempty"`
	Tokenizer   string      `json:"tokenizer,omitempty"`
	Units       []unitJSON  `json:"units"`
	Budget      int64       `json:"budget"`
	BudgetUnit  string      `json:"budgetUnit,omitempty"`
	Cutoff      *cutoffJSON `json:"cutoff"`
	Error       *string     `json:"error"`
	// MinBudget is the least budget trimContext accepts: the newest unit's
	// cost (in tokens for a token budget). Null when no budget works (no
	// messages) or the file does not load. Last, so every earlier key keeps
	// its place.
	MinBudget *int64 `json:"minBudget"`
	// Context and Compactions are the model's reported context at the last
	// turn and the compaction points, for a dialect whose file records
	// them (claude-code, codex); absent otherwise. After minBudget, so the
	// seed output is unchanged.
	Context     *contextJSON     `json:"context,omitempty"`
	Compactions []compactionJSON `json:"compactions,omitempty"`
	// Resume is what a resume sends of a compacted history that loads
	// (analysis.Report.Resume); absent otherwise. Last, as above.
	Resume *resumeJSON `json:"resume,omitempty"`
}

// resumeJSON is what a resume sends: the messages from the last
// compaction on, their first and last lines, count, chars and, when
// tokens are counted, tokens.
type resumeJSON struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Messages  int    `json:"messages"`
	Chars     int64  `json:"chars"`
	Tokens    *int64 `json:"tokens,omitempty"`
}

// contextJSON is the last turn's reported usage: the context the model
// read (tokens, at line), its window and the fill in percent of it (null
// when the window is unknown), and the turn's input, cached input, output
// and reasoning tokens as the model's API counted them.
type contextJSON struct {
	Line        int    `json:"line"`
	Tokens      int64  `json:"tokens"`
	Window      *int64 `json:"window"`
	Fill        *int64 `json:"fill"`
	Input       int64  `json:"inputTokens"`
	CachedInput int64  `json:"cachedInputTokens"`
	Output      int64  `json:"outputTokens"`
	Reasoning   int64  `json:"reasoningTokens"`
}

// compactionJSON is one compaction point: its line, the messages before it
// it replaces (0 for Claude Code, which resumes from it) and the chars of
// the summary that takes their place.
type compactionJSON struct {
	Line     int   `json:"line"`
	Replaced int   `json:"replaced"`
	Chars    int64 `json:"chars"`
}

type unitJSON struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Messages  int    `json:"messages"`
	Chars     int64  `json:"chars"`
	Tokens    *int64 `json:"tokens,omitempty"`
}

type cutoffJSON struct {
	FirstKeptLine int    `json:"firstKeptLine"`
	KeptUnits     int    `json:"keptUnits"`
	KeptChars     int64  `json:"keptChars"`
	KeptTokens    *int64 `json:"keptTokens,omitempty"`
}

// budgetOutcome is what the runtime would do with a file for a budget.
type budgetOutcome struct {
	rep    *analysis.Report
	cutoff *analysis.Cutoff
	err    error // the runtime's error: the file does not load, or trimContext throws
	loads  bool
	// tokenizer is set when tokens were counted; byTokens when the budget
	// is in tokens.
	tokenizer string
	byTokens  bool
}

func outcome(rep *analysis.Report, budget int64, opts analysis.Options) budgetOutcome {
	o := budgetOutcome{rep: rep, loads: rep.Loads(), byTokens: opts.TokenBudget > 0}
	if c, ok := opts.Tokens.(*tokens.Counter); ok {
		o.tokenizer = string(c.Encoding())
	}
	if !o.loads {
		o.err = rep.LoadFailure()
		return o
	}
	switch {
	case o.tokenizer != "" && rep.TokensErr != nil:
		// Not the runtime's verdict: sessionls cannot count this file.
		o.err = rep.TokensErr
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

// minBudget is the least budget trimContext accepts for the file (the
// engine's Report.MinBudget); ok is false when the file does not load or
// holds no messages.
func (o budgetOutcome) minBudget() (n int64, ok bool) { return o.rep.MinBudget() }

// errorText is the runtime's error and, when the budget is too small, the
// least budget that works (the engine's Report.BudgetErrorText), with the
// newest unit's lines: "…message unit; the least budget that works is
// 1,234 (the newest unit, lines 12–14)".
func (o budgetOutcome) errorText() string {
	if !errors.Is(o.err, analysis.ErrBudgetTooSmall) || o.rep.CutoffErr == nil {
		return o.err.Error()
	}
	s := o.rep.BudgetErrorText()
	if _, ok := o.minBudget(); ok {
		u := o.rep.Units[len(o.rep.Units)-1]
		s += fmt.Sprintf(" (the newest unit, %s)", textfmt.LineRange(u.StartLine, u.EndLine))
	}
	return s
}

func (o budgetOutcome) json(file string, budget int64) budgetJSON {
	j := budgetJSON{File: file, Units: []unitJSON{}, Budget: budget}
	counted := o.tokenizer != ""
	num := func(n int64) *int64 {
		if !counted {
			return nil
		}
		return &n
	}
	if counted {
		j.Tokenizer, j.BudgetUnit, j.TotalTokens = o.tokenizer, "chars", num(0)
		if o.byTokens {
			j.BudgetUnit = "tokens"
		}
	}
	if o.err != nil {
		s := o.err.Error()
		j.Error = &s
	}
	if n := len(o.rep.Usage); n > 0 {
		u := o.rep.Usage[n-1]
		c := &contextJSON{Line: u.Line, Tokens: u.ContextTokens, Input: u.InputTokens,
			CachedInput: u.CachedInputTokens, Output: u.OutputTokens, Reasoning: u.ReasoningTokens}
		if fill, ok := u.Fill(); ok {
			c.Window, c.Fill = &u.ContextWindow, &fill
		}
		j.Context = c
	}
	for _, c := range o.rep.Compactions {
		j.Compactions = append(j.Compactions, compactionJSON{c.Line, c.Replaced, c.Chars})
	}
	if !o.loads {
		// The runtime holds no messages for a file it refuses.
		return j
	}
	if n, ok := o.minBudget(); ok {
		j.MinBudget = &n
	}
	if rs, ok := o.rep.Resume(); ok {
		j.Resume = &resumeJSON{rs.StartLine, rs.EndLine, rs.Messages, rs.Chars, num(rs.Tokens)}
	}
	j.Messages = o.rep.MessageCount()
	j.TotalChars = o.rep.TotalChars
	if counted {
		j.TotalTokens = num(o.rep.TotalTokens)
	}
	for _, u := range o.rep.Units {
		j.Units = append(j.Units, unitJSON{u.StartLine, u.EndLine, u.Len(), u.Chars, num(u.Tokens)})
	}
	if o.cutoff != nil {
		j.Cutoff = &cutoffJSON{o.cutoff.FirstKeptLine, o.cutoff.KeptUnits, o.cutoff.KeptChars, num(o.cutoff.KeptTokens)}
	}
	return j
}

func (o budgetOutcome) text(out io.Writer, file string, budget int64) error {
	w := bufio.NewWriter(out)
	rep := o.rep
	counted := o.tokenizer != ""
	totals := fmt.Sprintf("%s in %s, %s chars", textfmt.Plural(rep.MessageCount(), "message", "messages"),
		textfmt.Plural(len(rep.Units), "unit", "units"), textfmt.Thousands(rep.TotalChars))
	if counted {
		totals += fmt.Sprintf(", %s tokens (%s)", textfmt.Thousands(rep.TotalTokens), o.tokenizer)
	}
	if o.loads {
		fmt.Fprintf(w, "%s: %s\n", textfmt.Sanitize(file), totals)
	} else {
		// The editors show what the valid lines cost while the file is
		// broken; say so plainly, since the runtime itself holds nothing.
		if budget > 0 {
			fmt.Fprintf(w, "%s: %s, so the runtime holds no messages and %s %s cuts nothing\n",
				textfmt.Sanitize(file), rep.LoadFailure().Summary(), o.budgetName(), textfmt.Thousands(budget))
		} else {
			fmt.Fprintf(w, "%s: %s, so the runtime holds no messages\n", textfmt.Sanitize(file), rep.LoadFailure().Summary())
		}
		fmt.Fprintf(w, "once it loads, its valid lines would cost (invalid lines not counted): %s\n", totals)
	}
	if len(rep.Units) > 0 {
		header := []string{"unit", "start line", "end line", "messages", "chars", "from newest"}
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
		if counted {
			header = append(header, "tokens", "tokens from newest")
		}
		var cells []int64 // one row's, reused
		row := func(i int, u analysis.Unit) []int64 {
			cells = append(cells[:0], int64(i+1), int64(u.StartLine), int64(u.EndLine), int64(u.Len()), u.Chars, u.FromNewest)
			if counted {
				cells = append(cells, u.Tokens, u.TokensFromNewest)
			}
			return cells
		}
		// Column widths from the widest value, without holding the rows:
		// a session can have millions of units.
		widths := make([]int, len(header))
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
				fmt.Fprintf(w, "  ---- %s %s cuts here: the units below are kept ----\n", o.budgetName(), textfmt.Thousands(budget))
			}
			for c, v := range row(i, u) {
				pad(widths[c], cell(c, v))
			}
			fmt.Fprintln(w)
		}
	}
	if budget == 0 && o.loads {
		fmt.Fprintln(w, "no budget: give --budget N (or set budget in sessionls.toml) to see where it cuts")
	}
	if o.cutoff != nil {
		c := o.cutoff
		kept := textfmt.Thousands(c.KeptChars) + " chars"
		if counted {
			kept += ", " + textfmt.Thousands(c.KeptTokens) + " tokens"
		}
		fmt.Fprintf(w, "%s %s keeps %s of %s units (%s, %s) from line %d\n", o.budgetName(), textfmt.Thousands(budget),
			textfmt.Thousands(c.KeptUnits), textfmt.Thousands(len(rep.Units)), textfmt.Plural(c.KeptMessages, "message", "messages"),
			kept, c.FirstKeptLine)
	}
	usageText(w, rep, counted)
	return w.Flush()
}

// usageText writes, for a dialect whose file records them, the model's
// reported context at the last turn, the compaction points and, for a
// compacted file that loads, what a resume sends (with its tokens when
// counted):
//
//	context at the last turn (line 29): 9,502 of 200,000 tokens (5%), as the model reported it
//	compaction at line 21: the history before it replaced by a 225-char summary
//	a resume sends lines 22–29: 7 messages, 1,177 chars
func usageText(w io.Writer, rep *analysis.Report, counted bool) {
	if n := len(rep.Usage); n > 0 {
		u := rep.Usage[n-1]
		fmt.Fprintf(w, "context at the last turn (line %d): %s", u.Line, textfmt.Thousands(u.ContextTokens))
		if fill, ok := u.Fill(); ok {
			fmt.Fprintf(w, " of %s tokens (%d%%)", textfmt.Thousands(u.ContextWindow), fill)
		} else {
			fmt.Fprint(w, " tokens")
		}
		fmt.Fprintf(w, ", as the model reported it (+%s output)\n", textfmt.Thousands(u.OutputTokens))
	}
	for _, c := range rep.Compactions {
		fmt.Fprintf(w, "compaction at line %d: %s\n", c.Line, c.Summary())
	}
	if rs, ok := rep.Resume(); ok {
		fmt.Fprintln(w, rs.Summary(counted))
	}
}

// budgetName is how the text output names the budget.
func (o budgetOutcome) budgetName() string {
	if o.byTokens {
		return "token budget"
	}
	return "budget"
}

func newBudgetCmd(e *env) *cobra.Command {
	var (
		flags  budgetFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "budget [--budget N | --max-tokens N] [--tokens] [--tokenizer ENC] [--format text|json] FILE",
		Short: "Show a session's units, their costs, and where a character budget cuts",
		Long: `Show what trimContext does with FILE for a budget of N characters: the
units of messages it keeps or drops together (oldest first, physical line
numbers), what each costs (JSON.stringify length + 1 per message), and the
cutoff. N is --budget, or else the budget of FILE's configuration (the
closest sessionls.toml; see 'sessionls config').

--tokens adds token counts: a message's is the number of tokens of the very
text whose length is its cost, JSON.stringify of the message (the newline
excluded), with the tokenizer --tokenizer names (o200k_base, the default, or
cl100k_base; built in, nothing is downloaded). --max-tokens N packs units by
tokens instead, with the same unit rules, for a token budget (the runtime
itself budgets characters). Without a budget flag the configuration's
budget applies, else its max-tokens; its tokenizer is --tokenizer's default.
With no budget at all, the units and totals are shown and nothing is cut
("budget": 0, "cutoff": null).

JSON output (--format json) is exactly:
  {"file","messages","totalChars","units":[{"startLine","endLine","messages","chars"}],
   "budget","cutoff":{"firstKeptLine","keptUnits","keptChars"}|null,"error":string|null,
   "minBudget":number|null}
minBudget is the least budget trimContext accepts (the newest unit's cost);
null when the file does not load or holds no messages. With tokens counted,
"totalTokens" and "tokenizer" come after "totalChars", "tokens" last in
each unit, "budgetUnit" ("chars" or "tokens") after "budget", and
"keptTokens" last in the cutoff; minBudget is then in the budget's unit.

For a Claude Code or Codex CLI file that records the model's usage,
"context" follows minBudget: the last turn's {"line","tokens","window",
"fill","inputTokens","cachedInputTokens","outputTokens","reasoningTokens"}
(window and fill null when unknown; fill in percent), then "compactions":
[{"line","replaced","chars"}] when the history was compacted, and, when
it was and the file loads, "resume": what a resume sends, the messages
from the last compaction on, {"startLine","endLine","messages","chars"}
("tokens" last when tokens are counted); the text output ends with the
same.

Text output of a file that does not load lists the units of its valid lines
(what the file would cost once it loads), marked as such; JSON lists none.
When the budget is too small, the error says the least budget that works.

Exit codes: 0 the budget cuts cleanly; 1 the file does not load (error names
its first invalid line; units are then empty), trimContext throws for this
budget (error is the runtime's message; units are listed, cutoff is null),
or a message's tokens cannot be counted (error names its line); 2 usage,
I/O or configuration error.`,
		Example: `  sessionls budget session.jsonl
  sessionls budget --budget 20000 session.jsonl
  sessionls budget --budget 20000 --tokens session.jsonl
  sessionls budget --max-tokens 8000 --tokenizer cl100k_base session.jsonl
  sessionls budget --budget 20000 --format json session.jsonl | jq .cutoff
  cat session.jsonl | sessionls budget --budget 20000 -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != formatText && format != formatJSON {
				return usagef("unknown --format %q (want text or json)", format)
			}
			file := args[0]
			flags.optional = true
			opts, budget, d, err := flags.resolve(e, file)
			if err != nil {
				return err
			}
			rep, err := analyzeFile(cmd.Context(), e, file, d, opts)
			if err != nil {
				return ioFailed(e, file, err)
			}
			o := outcome(rep, budget, opts)
			if format == formatJSON {
				b, err := marshalIndent(o.json(file, budget))
				if err != nil {
					return fmt.Errorf("encoding the budget report: %w", err)
				}
				if _, err := e.stdout.Write(b); err != nil {
					return writeFailed(e, err)
				}
			} else {
				if err := o.text(e.stdout, file, budget); err != nil {
					return writeFailed(e, err)
				}
				if o.err != nil {
					fmt.Fprintf(e.stderr, "sessionls: %s: %s\n", textfmt.Sanitize(file), textfmt.Sanitize(o.errorText()))
				}
			}
			if o.err != nil {
				return exitError{ExitFindings}
			}
			return nil
		},
	}
	flags.register(cmd, "budget", true)
	cmd.Flags().StringVar(&format, "format", formatText, "output `FORMAT`: text or json")
	return cmd
}

// analyzeFile streams one named file ("-": stdin) through its dialect
// (d, or for nil the one detected from its first record).
func analyzeFile(ctx context.Context, e *env, path string, d dialect.Dialect, opts analysis.Options) (*analysis.Report, error) {
	if path == "-" {
		d, r, err := detectStream(d, e.stdin)
		if err != nil {
			return nil, err
		}
		return e.analyze(ctx, d, r, opts)
	}
	f, err := openRegular(path, "to read it anyway, give - and redirect it to stdin: sessionls budget --budget N - < FILE")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, r, err := detectStream(d, f)
	if err != nil {
		return nil, err
	}
	return e.analyze(ctx, d, r, opts)
}

// ioFailed reports an I/O error about path on stderr: exit 2.
func ioFailed(e *env, path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	fmt.Fprintf(e.stderr, "sessionls: cannot read %s: %v\n", textfmt.Sanitize(path), err)
	return exitError{ExitError}
}

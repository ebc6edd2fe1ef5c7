// Package cli is the sessionls command line: check, budget, trim, map, config,
// rules, version and serve. cmd/sessionls only wires the process to Run;
// everything that decides what is printed and which exit code is returned
// lives here, so the tests drive the commands in-process.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
)

// Exit codes, the same for every command.
const (
	ExitClean    = 0 // nothing to report
	ExitFindings = 1 // findings that fail the run, or a refused file
	ExitError    = 2 // usage error, I/O error or internal error
)

// env is everything a command reads from the process besides its arguments,
// so that tests can pin it (version, terminal detection, environment).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stdoutTTY      bool
	stderrTTY      bool
	getenv         func(string) string
	version        string // sessionls version, as `version` prints it
	goVersion      string
	now            func() time.Time
	// analyze reads a stream through its dialect (analyzeWith: for seed,
	// analysis.AnalyzeReader); tests swap it to reach the paths no real
	// input reaches (a bug in the engine).
	analyze func(context.Context, dialect.Dialect, io.Reader, analysis.Options) (*analysis.Report, error)
}

// exitError carries an exit code for a condition the command has already
// reported (findings, I/O errors).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageError is a wrong invocation: bad flag value, missing argument.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// Run runs sessionls with args (without the program name) and returns the
// process exit code. It never panics.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunContext(context.Background(), args, stdin, stdout, stderr)
}

// RunContext is Run with a context whose cancellation stops the work.
func RunContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{
		stdin:     stdin,
		stdout:    stdout,
		stderr:    stderr,
		stdoutTTY: isTerminal(stdout),
		stderrTTY: isTerminal(stderr),
		getenv:    os.Getenv,
		version:   buildVersion(),
		goVersion: runtime.Version(),
		now:       time.Now,
		analyze:   analyzeWith,
	}
	return runInterruptible(ctx, e, args)
}

// interruptGrace is how long a command may take to stop on its own once
// ctx is done (SIGINT, SIGTERM) before the run ends without it.
const interruptGrace = 500 * time.Millisecond

// runInterruptible runs a command line so that a done ctx ends the run
// within interruptGrace even if the command is stuck where ctx cannot reach
// it: a Read on stdin or a pipe that never delivers does not return when
// ctx is cancelled. The command goes on in its goroutine until the process
// exits, which the caller does next.
func runInterruptible(ctx context.Context, e *env, args []string) int {
	done := make(chan int, 1)
	go func() { done <- run(ctx, e, args) }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	timer := time.NewTimer(interruptGrace)
	defer timer.Stop()
	select {
	case code := <-done:
		return code
	case <-timer.C:
		fmt.Fprintln(e.stderr, "sessionls: interrupted")
		return ExitError
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// run executes one command line; a panic anywhere in the command's own
// goroutine (the check workers recover their own) becomes exit 2.
func run(ctx context.Context, e *env, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "sessionls: internal error: %v\n", r)
			if e.getenv("SESSIONLS_TRACEBACK") != "" {
				fmt.Fprintf(e.stderr, "%s", debug.Stack())
			}
			code = ExitError
		}
	}()
	root := newRoot(e)
	if args == nil {
		args = []string{} // cobra reads os.Args when given nil
	}
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitClean
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if cmd == nil {
		cmd = root
	}
	use := cmd.UseLine()
	if !cmd.HasParent() {
		use = "sessionls COMMAND [flags]"
	}
	fmt.Fprintf(e.stderr, "sessionls: %v\n", err)
	fmt.Fprintf(e.stderr, "Usage: %s\nRun '%s --help' for more information.\n", use, cmd.CommandPath())
	return ExitError
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "sessionls",
		Short: "Language server and CI linter for agent session (.jsonl) files",
		Long: `sessionls tells you what the agent runtime's loadSession and trimContext will
do with a session file: whether it loads, which line breaks it, what every
unit of messages costs, and where a character budget cuts.

Exit codes: 0 clean, 1 findings (or a refused file), 2 usage, I/O or
configuration error.`,
		Example: `  sessionls check sessions/
  sessionls check --format github --strict sessions/
  sessionls budget --budget 20000 session.jsonl
  sessionls trim --budget 20000 -o trimmed.jsonl session.jsonl
  sessionls serve --stdio`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       e.version,
		// Without a command there is nothing to do: a usage error, as for
		// an unknown command.
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("missing command (one of: check, budget, trim, map, config, rules, version, serve)")
		},
	}
	root.SetVersionTemplate(versionLine(e) + "\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.AddCommand(newCheckCmd(e), newBudgetCmd(e), newTrimCmd(e), newConfigCmd(e), newVersionCmd(e), newServeCmd(e), newRulesCmd(e), newMapCmd(e))
	return root
}

package cli

import (
	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/lsp"
)

func newServeCmd(e *env) *cobra.Command {
	var (
		stdio    bool
		logFile  string
		logLevel string
	)
	cmd := &cobra.Command{
		Use:   "serve [--stdio] [--log-file FILE] [--log-level LEVEL]",
		Short: "Run the language server on stdin/stdout",
		Long: `Run the sessionls language server, speaking the Language Server Protocol
on stdin and stdout. Logs go to stderr unless --log-file is given.`,
		Example: `  sessionls serve
  sessionls serve --stdio --log-file /tmp/sessionls.log --log-level debug`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch logLevel {
			case "debug", "info", "warn", "error":
			default:
				return usagef("invalid --log-level %q (want debug, info, warn or error)", logLevel)
			}
			code := lsp.Serve(cmd.Context(), lsp.Config{
				Stdin:    e.stdin,
				Stdout:   e.stdout,
				Stderr:   e.stderr,
				LogFile:  logFile,
				LogLevel: logLevel,
			})
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	// VS Code's language client appends --stdio; stdio is the only transport.
	cmd.Flags().BoolVar(&stdio, "stdio", false, "use stdin/stdout (the default and only transport; accepted for editors that pass it)")
	cmd.Flags().StringVar(&logFile, "log-file", "", "write logs to `FILE` instead of stderr")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log `LEVEL`: debug, info, warn or error")
	return cmd
}

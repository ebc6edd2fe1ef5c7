// Command sessionls is the language server and CI linter for agent session
// (.jsonl) files. See `sessionls --help`; the logic is in package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/sessionls/sessionls/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.RunContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

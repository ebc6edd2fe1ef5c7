// Package lsp is sessionls's language server: a thin translation of the
// analysis package's results into the Language Server Protocol.
package lsp

import (
	"context"
	"io"
)

// Config is what `sessionls serve` passes in.
type Config struct {
	Stdin    io.Reader
	Stdout   io.Writer
	LogFile  string // "" logs to Stderr
	LogLevel string // debug, info, warn, error
	Stderr   io.Writer
}

// Serve runs the server on Stdin/Stdout until exit or EOF and returns the
// process exit code: 0 after shutdown+exit or EOF after shutdown, 1 on exit
// without shutdown. TEMPORARY signature stub, replaced by the server.
func Serve(ctx context.Context, cfg Config) int { panic("not yet written") }

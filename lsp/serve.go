// Package lsp is sessionls's language server: a thin translation of the
// analysis package's results into the Language Server Protocol.
//
// It holds the features only: the connection (framing, the router, the
// lifecycle, cancellation, the in-place decoding of large documents) is
// package lsp/transport, which hands each message to server.Handle
// (handle.go) → protocol.ServerHandler → server, whose methods translate
// analysis.Document results.
package lsp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/lsp/transport"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Config is what `sessionls serve` passes in.
type Config struct {
	Stdin    io.Reader
	Stdout   io.Writer
	LogFile  string // "" logs to Stderr
	LogLevel string // debug, info, warn, error
	Stderr   io.Writer
}

// Exit codes of Serve.
const (
	exitOK       = 0 // shutdown, then exit or EOF
	exitNoShut   = 1 // exit or EOF without shutdown, or ctx cancelled
	exitBadSetup = 2 // bad --log-level or --log-file
)

// Serve runs the server on Stdin/Stdout until exit or EOF and returns the
// process exit code: 0 after shutdown+exit or EOF after shutdown, 1 on exit
// or EOF without shutdown (or when ctx is cancelled first), 2 when the
// logger cannot be set up. It never writes anything but LSP messages to
// Stdout; logs go to LogFile, or to Stderr.
func Serve(ctx context.Context, cfg Config) int {
	logger, closeLog, err := newLogger(cfg)
	if err != nil {
		if cfg.Stderr != nil {
			fmt.Fprintf(cfg.Stderr, "sessionls serve: %v\n", err)
		}
		return exitBadSetup
	}
	defer closeLog()
	defer transport.TuneGC()()
	rwc := stdio{r: cfg.Stdin, w: cfg.Stdout}
	return serve(ctx, rwc, logger, nil)
}

// serve runs the server over rwc. beforeRun is a test hook (see router).
func serve(ctx context.Context, rwc io.ReadWriteCloser, logger *zap.Logger, beforeRun func(context.Context, string)) int {
	return serveWith(ctx, rwc, logger, serveOptions{beforeRun: beforeRun})
}

// serveOptions are test hooks (see transport.Options).
type serveOptions struct {
	beforeRun func(context.Context, string)
	maxQueued int
	onFull    func()
	drain     time.Duration
	conn      func(jsonrpc2.Conn)
	// dialects replaces dialect.All() (tests: a fake dialect).
	dialects []dialect.Dialect
}

func serveWith(ctx context.Context, rwc io.ReadWriteCloser, logger *zap.Logger, opts serveOptions) int {
	newServer := func(ctx context.Context, conn jsonrpc2.Conn, post func(func()) bool) transport.Server {
		srv := newServer(ctx, logger, conn)
		srv.post = post
		if opts.dialects != nil {
			srv.dialects = opts.dialects
		}
		return srv
	}
	code := exitNoShut
	if transport.Serve(ctx, rwc, logger, newServer, transport.Options{
		BeforeRun: opts.beforeRun, MaxQueued: opts.maxQueued, OnFull: opts.onFull, Drain: opts.drain, Conn: opts.conn,
	}) {
		code = exitOK
	}
	logger.Info("exiting", zap.Int("code", code))
	return code
}

// stdio joins the process's stdin and stdout into one connection. Close
// closes stdin (when it can be closed) so that a blocked read returns;
// stdout is left to the caller.
type stdio struct {
	r io.Reader
	w io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdio) Close() error {
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// newLogger logs with zap to cfg.LogFile, or to cfg.Stderr (never stdout).
func newLogger(cfg Config) (*zap.Logger, func(), error) {
	level := zapcore.InfoLevel
	if cfg.LogLevel != "" {
		if err := level.UnmarshalText([]byte(strings.ToLower(cfg.LogLevel))); err != nil {
			return nil, nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", cfg.LogLevel)
		}
	}
	var out zapcore.WriteSyncer
	closeLog := func() {}
	switch {
	case cfg.LogFile != "":
		f, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		out = zapcore.Lock(f)
		closeLog = func() { _ = f.Close() }
	case cfg.Stderr != nil:
		out = zapcore.Lock(zapcore.AddSync(cfg.Stderr))
	default:
		return zap.NewNop(), closeLog, nil
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	logger := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(enc), out, level))
	return logger, func() { _ = logger.Sync(); closeLog() }, nil
}

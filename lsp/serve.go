// Package lsp is sessionls's language server: a thin translation of the
// analysis package's results into the Language Server Protocol.
//
// The handler chain is built by hand (see serve): a Content-Length stream
// (bounded framing, invalid messages answered, stray responses dropped,
// reading held while the router's queue is full) → jsonrpc2.NewConn → the router (lifecycle, exit, cancellation, unknown
// methods, one ordered worker, panic recovery) → protocol.ServerHandler →
// server, whose methods translate analysis.Document results.
package lsp

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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

// drainTimeout bounds how long exit waits for messages queued before it.
const drainTimeout = 3 * time.Second

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
	defer tuneGC()() // memory.go
	rwc := stdio{r: cfg.Stdin, w: cfg.Stdout}
	return serve(ctx, rwc, logger, nil)
}

// serve runs the server over rwc. beforeRun is a test hook (see router).
func serve(ctx context.Context, rwc io.ReadWriteCloser, logger *zap.Logger, beforeRun func(context.Context, string)) int {
	return serveWith(ctx, rwc, logger, serveOptions{beforeRun: beforeRun})
}

// serveOptions are test hooks.
type serveOptions struct {
	beforeRun func(context.Context, string) // see router.beforeRun
	maxQueued int                           // overrides maxQueued when > 0
	// started receives the router and the stream before anything is read,
	// so that a test can watch their counters.
	started func(*router, *stream)
	onFull  func() // see router.onFull
	// drain overrides drainTimeout when > 0 (the fuzz target cannot wait
	// seconds for a configuration pull that no one will answer).
	drain time.Duration
	// conn receives the connection before anything is read, so that a
	// test can wait for its read loop (conn.Done) after serve returns.
	conn func(jsonrpc2.Conn)
}

func serveWith(ctx context.Context, rwc io.ReadWriteCloser, logger *zap.Logger, opts serveOptions) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	st := newStream(rwc, logger)
	conn := jsonrpc2.NewConn(st)
	srv := newServer(ctx, logger, conn)
	r := newRouter(logger, srv)
	srv.post = r.post
	r.beforeRun = opts.beforeRun
	r.onFull = opts.onFull
	if opts.maxQueued > 0 {
		r.maxJobs = opts.maxQueued
	}
	r.ids = &st.ids
	st.gate = r.waitForRoom
	if opts.started != nil {
		opts.started(r, st)
	}
	if opts.conn != nil {
		opts.conn(conn)
	}
	worker := make(chan struct{})
	go func() {
		defer close(worker)
		r.work(ctx)
	}()
	conn.Go(ctx, r.handle)
	logger.Info("serving")

	select {
	case <-r.exited:
	case <-conn.Done():
		if err := conn.Err(); err != nil {
			logger.Info("connection closed", zap.Error(err))
		}
	case <-ctx.Done():
		logger.Info("context done", zap.Error(ctx.Err()))
	}
	drain := drainTimeout
	if opts.drain > 0 {
		drain = opts.drain
	}
	r.drain(ctx, drain)
	// Exit and EOF give the same code, so the race between an exit and
	// the EOF right behind it cannot change it.
	code := exitNoShut
	if r.shutDown() {
		code = exitOK
	}
	_ = conn.Close()
	cancel()
	// The goroutines serve started end before it returns: the worker (its
	// handler honours ctx) and the server's own calls to the client
	// (cancelled with ctx). A handler that ignores ctx is waited for drain
	// at most, then left behind with a log line. The connection's read
	// loop is not waited for: on stdio it may be blocked in a read of
	// stdin that closing does not interrupt (exit would wait out the
	// bound); tests wait for it through serveOptions.conn.
	stopped := make(chan struct{})
	go func() {
		<-worker
		srv.bg.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(drain):
		logger.Warn("exiting while a handler still runs", zap.Duration("waited", drain))
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

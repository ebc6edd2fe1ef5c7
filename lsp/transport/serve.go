// Package transport is the language server's side of the connection:
// everything between the client's bytes and the features.
//
// The handler chain is built by hand (see Serve): a Content-Length stream
// (bounded framing, invalid messages answered, stray responses dropped,
// reading held while the router's queue is full, didOpen and full-text
// didChange decoded in place) → jsonrpc2.NewConn → the router (lifecycle,
// exit, cancellation, unknown methods, one ordered worker, panic
// recovery) → the Server, which holds the features (package lsp).
//
// go.lsp.dev/jsonrpc2 is pinned at v0.10.0: the stream and the router work
// around its quirks (ids.go, router.go), and v1 is a different library
// under the same path.
package transport

import (
	"context"
	"io"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// Server is what the transport runs: the features of a language server.
// The router enforces the lifecycle and answers what Served refuses; every
// other message reaches Handle, on one worker goroutine, in arrival order.
type Server interface {
	// Served reports whether the server implements method: the router
	// answers any other request with MethodNotFound and drops any other
	// notification.
	Served(method string) bool
	// Handle handles one message. A request is answered through reply,
	// exactly once (the router answers one that is not, and drops a
	// second); an error initialize is answered with leaves the connection
	// uninitialized. A didOpen or a full-text didChange may arrive decoded
	// already, as *Open or *FullChange (fastdecode.go). The error returned
	// is logged.
	Handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error
	// Wait waits for the goroutines the server started on its own (calls
	// to the client it does not wait for); Serve calls it once the worker
	// has stopped and the server's context is done.
	Wait()
}

// NewServer builds the Server once the connection exists. ctx is done
// when Serve returns; conn makes calls and notifications to the client;
// post queues the server's own work on the worker, after the messages
// already queued, and returns false once exit has come (see router.post).
type NewServer func(ctx context.Context, conn jsonrpc2.Conn, post func(fn func()) bool) Server

// drainTimeout bounds how long exit waits for messages queued before it.
const drainTimeout = 3 * time.Second

// Options are test hooks; the zero value serves.
type Options struct {
	// BeforeRun is called on the worker before a message is handled: it
	// can block, or panic to test recovery.
	BeforeRun func(ctx context.Context, method string)
	// MaxQueued overrides maxQueued when > 0.
	MaxQueued int
	// OnFull is called each time reading stops because the queue is full.
	OnFull func()
	// Drain overrides drainTimeout when > 0 (a fuzz target cannot wait
	// seconds for a configuration pull that no one will answer).
	Drain time.Duration
	// Conn receives the connection before anything is read, so that a
	// test can wait for its read loop (conn.Done) after Serve returns.
	Conn func(jsonrpc2.Conn)

	// started receives the router and the stream before anything is read,
	// so that a test can watch their counters.
	started func(*router, *stream)
}

// Serve runs the server newServer builds over rwc until exit, EOF or ctx
// is done, and reports whether shutdown was received (the exit code is 0
// then).
func Serve(ctx context.Context, rwc io.ReadWriteCloser, logger *zap.Logger, newServer NewServer, opts Options) (shutDown bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	st := newStream(rwc, logger)
	conn := jsonrpc2.NewConn(st)
	r := newRouter(logger)
	srv := newServer(ctx, conn, r.post)
	r.srv = srv
	r.beforeRun = opts.BeforeRun
	r.onFull = opts.OnFull
	if opts.MaxQueued > 0 {
		r.maxJobs = opts.MaxQueued
	}
	r.ids = &st.ids
	st.gate = r.waitForRoom
	if opts.started != nil {
		opts.started(r, st)
	}
	if opts.Conn != nil {
		opts.Conn(conn)
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
	if opts.Drain > 0 {
		drain = opts.Drain
	}
	r.drain(ctx, drain)
	// Exit and EOF give the same code, so the race between an exit and
	// the EOF right behind it cannot change it.
	shutDown = r.shutDown()
	_ = conn.Close()
	cancel()
	// The goroutines Serve started end before it returns: the worker (its
	// handler honours ctx) and the server's own calls to the client
	// (cancelled with ctx). A handler that ignores ctx is waited for drain
	// at most, then left behind with a log line. The connection's read
	// loop is not waited for: on stdio it may be blocked in a read of
	// stdin that closing does not interrupt (exit would wait out the
	// bound); tests wait for it through Options.Conn.
	stopped := make(chan struct{})
	go func() {
		<-worker
		srv.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(drain):
		logger.Warn("exiting while a handler still runs", zap.Duration("waited", drain))
	}
	return shutDown
}

package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Bounds of the queue of pending work (messages accepted and not yet
// handled, the one running included). While either is reached the
// connection stops reading, so a client that sends without reading the
// replies is held back by the pipe instead of growing the server's memory.
// A client's response to a call of ours waits behind the bound too, so a
// server call made while the queue is full may run into its deadline (the
// configuration pull's is 5 s); clients that read their replies never fill
// the queue.
const (
	maxQueued      = 256
	maxQueuedBytes = 64 << 20 // of params; one larger message is taken alone
)

// lifecycle is where the connection is in initialize … shutdown.
type lifecycle uint8

const (
	stateNew         lifecycle = iota // nothing but initialize is served
	stateInitialized                  // initialize received: everything is served
	stateShutdown                     // shutdown received: only exit is served
)

// router is the outermost jsonrpc2 handler. It runs on the connection's
// read loop, so it never blocks: it enforces the lifecycle, answers
// unknown methods, handles exit and $/cancelRequest at once (they must not
// wait behind queued work), and queues everything else for one worker
// goroutine that runs messages strictly in arrival order (LSP requires
// edits to be applied in order, and a request to see every earlier edit).
// The queue is bounded (maxQueued, maxQueuedBytes): the stream asks
// waitForRoom before it reads each message, so a full queue stops the
// reading instead of blocking here.
type router struct {
	logger *zap.Logger
	srv    Server

	mu       sync.Mutex
	state    lifecycle
	inflight map[jsonrpc2.ID]context.CancelFunc
	queue    []job
	wake     chan struct{} // capacity 1: the queue is not empty
	exited   chan struct{} // closed by exit
	exitOnce sync.Once
	exiting  bool // exit received: nothing more is queued

	// The load of pending work: jobs queued or running and their params'
	// bytes, bounded by maxJobs and maxBytes (see waitForRoom).
	loadJobs  int
	loadBytes int
	maxJobs   int
	maxBytes  int
	room      chan struct{} // capacity 1: the worker finished a job
	peakJobs  int           // the highest loadJobs seen (tests)
	finished  int           // jobs the worker finished (tests)

	// ids resolves the string ids of $/cancelRequest that the stream maps
	// (see idTable); nil in tests that build a router alone.
	ids *idTable

	// beforeRun, when set (tests only), is called on the worker before a
	// message is handled: it can block, or panic to test recovery.
	beforeRun func(ctx context.Context, method string)
	// onFull, when set (tests only), is called each time reading stops
	// because the queue is full.
	onFull func()
}

type job struct {
	ctx   context.Context
	reply jsonrpc2.Replier
	req   jsonrpc2.Request
	id    *jsonrpc2.ID  // nil for a notification
	done  chan struct{} // a drain marker: closed when the worker reaches it
	size  int           // bytes of params, counted in the router's load
	// fn, when set, is the server's own work run on the worker (see post):
	// not a message, not counted in the load.
	fn func()
}

func newRouter(logger *zap.Logger) *router {
	return &router{
		logger:   logger,
		inflight: make(map[jsonrpc2.ID]context.CancelFunc),
		wake:     make(chan struct{}, 1),
		exited:   make(chan struct{}),
		maxJobs:  maxQueued,
		maxBytes: maxQueuedBytes,
		room:     make(chan struct{}, 1),
	}
}

// waitForRoom blocks while the queue of pending work is full; the stream
// calls it before it reads each message, so that a full queue stops the
// reading. It returns early only when ctx is done.
func (r *router) waitForRoom(ctx context.Context) error {
	r.mu.Lock()
	for r.loadJobs >= r.maxJobs || (r.loadJobs > 0 && r.loadBytes >= r.maxBytes) {
		r.mu.Unlock()
		if r.onFull != nil {
			r.onFull()
		}
		select {
		case <-r.room:
		case <-ctx.Done():
			return ctx.Err()
		}
		r.mu.Lock()
	}
	r.mu.Unlock()
	return nil
}

// shutDown reports whether shutdown was received (the exit code is 0).
func (r *router) shutDown() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state == stateShutdown
}

// handle is the jsonrpc2.Handler given to the connection. It never
// returns an error: jsonrpc2 v0.10.0's connection treats one as fatal, and
// stores it where a later read error of another type makes it panic.
func (r *router) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if err := r.dispatch(ctx, reply, req); err != nil {
		r.logger.Warn("replying", zap.String("method", req.Method()), zap.Error(err))
	}
	return nil
}

func (r *router) dispatch(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method := req.Method()
	call, isCall := req.(*jsonrpc2.Call)

	if isCall && isNotification(method) {
		// Refused, not run: a client that sends exit or didChange with an id
		// is confused about what it sent, and running it would hide that.
		// InvalidRequest rather than MethodNotFound: the method exists, the
		// message's shape (an id) is what is wrong.
		r.logger.Warn("refusing a notification sent as a request", zap.String("method", method))
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			fmt.Sprintf("%s is a notification: send it without an id", method)))
	}

	switch method {
	case protocol.MethodExit:
		// Handled here, on the read loop, so that an exit followed at once
		// by EOF is never lost to the race between the two. Params ({},
		// null or none) are ignored.
		r.logger.Info("exit", zap.Bool("after_shutdown", r.shutDown()))
		r.exitOnce.Do(func() {
			r.mu.Lock()
			r.exiting = true
			r.mu.Unlock()
			close(r.exited)
		})
		if isCall {
			return reply(ctx, nil, nil)
		}
		return nil
	case protocol.MethodCancelRequest:
		r.cancel(req.Params())
		if isCall {
			return reply(ctx, nil, nil)
		}
		return nil
	}

	r.mu.Lock()
	if r.exiting {
		r.mu.Unlock()
		return nil
	}
	var refuse error
	switch {
	case !isCall:
		// Notifications cannot be answered: drop those the state or the
		// server cannot take.
		if r.state != stateInitialized || !r.srv.Served(method) {
			r.mu.Unlock()
			r.logger.Debug("dropping notification", zap.String("method", method))
			return nil
		}
	case r.state == stateShutdown:
		refuse = jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			fmt.Sprintf("%s: the server is shutting down; only exit is accepted", method))
	case method == protocol.MethodInitialize:
		if r.state != stateNew {
			refuse = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize may be sent only once")
		} else {
			r.state = stateInitialized
		}
	case r.state == stateNew:
		refuse = jsonrpc2.NewError(jsonrpc2.ServerNotInitialized,
			fmt.Sprintf("%s: the server is not initialized", method))
	case !r.srv.Served(method):
		refuse = jsonrpc2.NewError(jsonrpc2.MethodNotFound,
			fmt.Sprintf("method not found: %s", method))
	case method == protocol.MethodShutdown:
		// From here on every request but exit is refused, even those that
		// arrive before the queued shutdown is answered.
		r.state = stateShutdown
	}
	if refuse != nil {
		r.mu.Unlock()
		r.logger.Debug("refusing request", zap.String("method", method), zap.Error(refuse))
		return reply(ctx, nil, refuse)
	}

	j := job{ctx: ctx, reply: reply, req: req, size: paramsSize(req)}
	if isCall {
		id := call.ID()
		jctx, cancel := context.WithCancel(ctx)
		j.ctx, j.id = jctx, &id
		r.inflight[id] = cancel
	}
	r.queue = append(r.queue, j)
	r.loadJobs++
	r.loadBytes += j.size
	r.peakJobs = max(r.peakJobs, r.loadJobs)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return nil
}

// cancel handles $/cancelRequest. Its id may be a number (which the
// protocol package decodes as float64 and then ignores) or a string.
func (r *router) cancel(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.ID) == 0 {
		r.logger.Warn("malformed $/cancelRequest", zap.ByteString("params", params))
		return
	}
	var id jsonrpc2.ID
	var num float64
	var str string
	switch {
	case json.Unmarshal(p.ID, &num) == nil:
		if num != math.Trunc(num) || num < math.MinInt32 || num > math.MaxInt32 {
			r.logger.Warn("$/cancelRequest for an id that no request can have", zap.Float64("id", num))
			return
		}
		id = jsonrpc2.NewNumberID(int32(num))
	case json.Unmarshal(p.ID, &str) == nil:
		id = jsonrpc2.NewStringID(str)
		if needsMapping(str) {
			// "" (which NewStringID would make the number 0) and our own
			// namespace: only the stream's table knows the id in use.
			var ok bool
			if r.ids != nil {
				id, ok = r.ids.lookup(str)
			}
			if !ok {
				r.logger.Debug("$/cancelRequest for a request not in flight", zap.String("id", str))
				return
			}
		}
	default:
		r.logger.Warn("malformed $/cancelRequest id", zap.ByteString("id", p.ID))
		return
	}
	r.mu.Lock()
	cancel, ok := r.inflight[id]
	r.mu.Unlock()
	r.logger.Debug("$/cancelRequest", zap.String("id", fmt.Sprintf("%q", id)), zap.Bool("in_flight", ok))
	if ok {
		cancel()
	}
}

// drain answers what was queued before exit (or EOF) so that no reply a
// client already asked for is lost. It waits for the worker to reach the
// end of the queue; past half of timeout it cancels every request still
// pending (they are moot now, and one may be waiting on the client), and
// past timeout (or when ctx is done and the worker with it) it gives up.
func (r *router) drain(ctx context.Context, timeout time.Duration) {
	done := make(chan struct{})
	r.mu.Lock()
	r.exiting = true
	r.queue = append(r.queue, job{done: done})
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	select {
	case <-done:
		return
	case <-ctx.Done(): // the worker has stopped
		return
	case <-time.After(timeout / 2):
	}
	r.mu.Lock()
	for _, cancel := range r.inflight {
		cancel()
	}
	r.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	case <-time.After(timeout / 2):
		r.logger.Warn("exiting before the queued messages were handled", zap.Duration("waited", timeout))
	}
}

// work runs queued messages one at a time until ctx is done.
func (r *router) work(ctx context.Context) {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 {
			r.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-r.wake:
			}
			continue
		}
		j := r.queue[0]
		r.queue[0] = job{}
		r.queue = r.queue[1:]
		r.mu.Unlock()
		if j.done != nil {
			close(j.done)
			continue
		}
		if j.fn != nil {
			r.runOwn(j.fn)
			continue
		}
		r.run(j)
		r.mu.Lock()
		r.loadJobs--
		r.loadBytes -= j.size
		r.finished++
		r.mu.Unlock()
		select {
		case r.room <- struct{}{}:
		default:
		}
	}
}

// run handles one message: it guarantees exactly one reply to a request,
// answers a cancelled request with RequestCancelled, and turns a panic into
// an InternalError reply so that the server keeps serving.
func (r *router) run(j job) {
	method := j.req.Method()
	replied := false
	reply := func(ctx context.Context, result any, err error) error {
		if replied {
			r.logger.Error("second reply dropped", zap.String("method", method))
			return nil
		}
		replied = true
		if err == nil && j.ctx.Err() != nil {
			result, err = nil, protocol.ErrRequestCancelled
		}
		err = invalidParams(method, err)
		if err != nil && method == protocol.MethodInitialize {
			// A failed initialize leaves the server uninitialized.
			r.mu.Lock()
			if r.state == stateInitialized {
				r.state = stateNew
			}
			r.mu.Unlock()
		}
		if j.id != nil {
			r.mu.Lock()
			if cancel, ok := r.inflight[*j.id]; ok {
				cancel()
				delete(r.inflight, *j.id)
			}
			r.mu.Unlock()
		}
		// The request's context may be cancelled, and the stream refuses to
		// write under a done context: reply under one that is not.
		return j.reply(context.WithoutCancel(ctx), result, err)
	}
	defer func() {
		if p := recover(); p != nil {
			r.logger.Error("handler panicked", zap.String("method", method),
				zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			if !replied && j.id != nil {
				_ = reply(j.ctx, nil, jsonrpc2.NewError(jsonrpc2.InternalError,
					fmt.Sprintf("internal error in %s: %v", method, p)))
			}
		}
		if !replied && j.id != nil {
			_ = reply(j.ctx, nil, jsonrpc2.NewError(jsonrpc2.InternalError, method+" was never answered"))
		}
	}()

	if j.ctx.Err() != nil {
		_ = reply(j.ctx, nil, protocol.ErrRequestCancelled)
		return
	}
	if ce := r.logger.Check(zap.DebugLevel, "handling"); ce != nil {
		start := time.Now()
		ce.Write(zap.String("method", method))
		defer func() {
			r.logger.Debug("handled", zap.String("method", method), zap.Duration("took", time.Since(start)))
		}()
	}
	if r.beforeRun != nil {
		r.beforeRun(j.ctx, method)
	}
	err := r.srv.Handle(j.ctx, reply, j.req)
	if err != nil {
		r.logger.Warn("handling message", zap.String("method", method), zap.Error(err))
	}
}

// invalidParams turns protocol.ServerHandler's answer to params that do not
// decode into the method's type (code 0, "JSON-RPC parse error: …") into
// InvalidParams with the same detail. The body itself was valid JSON (the
// stream decoded it), so a decoding failure here is always the params'.
func invalidParams(method string, err error) error {
	if err == nil {
		return nil
	}
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return err
	}
	detail, ok := strings.CutPrefix(err.Error(), jsonrpc2.ErrParse.Message+": ")
	if !ok {
		return err
	}
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: invalid params: %s", method, detail))
}

// post queues fn on the worker after the messages already queued, unless
// exit has come. It is how the server's own goroutines get work done where
// the handlers run, without locks.
func (r *router) post(fn func()) bool {
	r.mu.Lock()
	if r.exiting {
		r.mu.Unlock()
		return false
	}
	r.queue = append(r.queue, job{fn: fn})
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return true
}

// runOwn runs the server's own work on the worker; a panic is logged and
// the server keeps serving, as for a message (router.run).
func (r *router) runOwn(fn func()) {
	defer func() {
		if p := recover(); p != nil {
			r.logger.Error("background work panicked", zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
		}
	}()
	fn()
}

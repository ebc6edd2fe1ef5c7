package lsp

import (
	"context"
	"sync"

	"github.com/sessionls/sessionls/analysis/dialect"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// server implements the LSP methods, one file per feature (features.go
// lists them). Every method runs on the transport's single worker goroutine,
// in the order the messages arrived, so the handlers need no locking among
// themselves; mu guards what the read loop or background goroutines may
// also read.
type server struct {
	logger *zap.Logger
	conn   jsonrpc2.Conn
	// ctx outlives requests: notifications are sent under it, so a
	// cancelled request cannot drop a publishDiagnostics.
	ctx   context.Context
	files *fileManager
	// handlers serve the feature table's methods (dispatch.go).
	handlers map[string]handler
	toks     *tokenState // token counters and counts (tokens.go)

	// cfg: configuration files (sessionls.toml), see configfiles.go.
	cfg *configState

	// bg tracks the goroutines the server starts on its own (calls to the
	// client it does not wait for), so that serve returns only after they
	// have: nothing the server started logs or writes after it returned.
	bg sync.WaitGroup
	// post queues the server's own work on the worker, after the messages
	// already queued (set by serve; see transport.NewServer). False once
	// exit came.
	post func(fn func()) bool
	// configStamps: what the configuration files near open documents
	// looked like at the last poll (configwatch.go); worker only.
	configStamps map[string]configStamp

	// dialects are the session formats, in the order detection asks them
	// (dialect.All(); tests replace it).
	dialects []dialect.Dialect

	mu       sync.Mutex
	settings settings
	caps     clientCaps
	roots    []string
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	configuration   bool // workspace/configuration
	codeLensRefresh bool // workspace/codeLens/refresh
	documentChanges bool // versioned WorkspaceEdits
	watchFiles      bool // dynamic registration of workspace/didChangeWatchedFiles
	// unnecessaryTag: publishDiagnostics.tagSupport lists Unnecessary, so
	// the lines a budget trims can be faded (diagnostics.go).
	unnecessaryTag bool
	// plainHover: the client renders hovers as plain text only (eglot
	// without markdown-mode, in a terminal): no markdown marks then.
	plainHover bool
}

func newServer(ctx context.Context, logger *zap.Logger, conn jsonrpc2.Conn) *server {
	return &server{
		logger:   logger,
		conn:     conn,
		ctx:      ctx,
		files:    newFileManager(),
		handlers: handlers(),
		toks:     newTokenState(),
		settings: defaultSettings(),
		cfg:      newConfigState(),
		dialects: dialect.All(),
	}
}

func (s *server) currentSettings() settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

func (s *server) currentCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

func (s *server) currentRoots() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.roots
}

// notify sends a notification under the server's context (see ctx).
func (s *server) notify(method string, params any) {
	if err := s.conn.Notify(s.ctx, method, params); err != nil {
		s.logger.Warn("notify", zap.String("method", method), zap.Error(err))
	}
}

func (s *server) showError(msg string) {
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: msg})
}

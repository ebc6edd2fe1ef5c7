//go:build tools

// Package deps pins modules that packages will import while the tree is being
// built; removed once every dependency has a real importer.
package deps

import (
	_ "github.com/spf13/cobra"
	_ "github.com/stretchr/testify/require"
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "go.lsp.dev/uri"
	_ "go.uber.org/zap"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
)

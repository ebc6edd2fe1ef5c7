# Developer tasks, one entry point. Each target is a thin wrapper around the
# command CI runs, so `make X` and CI agree.
#
#   make test      the README's test command (race detector on)
#   make lint      gofmt, go vet, staticcheck, go mod tidy -diff
#   make generate  regenerate the files derived from code (rule docs, ...)
#   make editors   the real-editor tests (Neovim, Emacs, action, VS Code)
#   make bench     the Go benchmarks and the node comparison
#   make package   the VS Code extension (.vsix) with a fresh binary
#   make ci        what .ci/run does, on this machine
#   make build     bin/sessionls
.POSIX:
.PHONY: help all build test lint generate editors bench package ci clean

GO ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
BIN ?= bin/sessionls

help:
	@sed -n 's/^#   make /make /p' Makefile

all: build

build:
	$(GO) build -o $(BIN) ./cmd/sessionls

test:
	bash lsp/testdata/thirdparty/install.sh >/dev/null
	bash testdata/oracle/tokens/install.sh >/dev/null
	$(GO) test -race ./...
	$(GO) test -tags purego ./analysis/...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(GO) mod tidy -diff
	$(GO) run ./tools/gendocs -check

generate:
	$(GO) generate ./...

editors: build
	SESSIONLS_BIN=$$(pwd)/$(BIN) bash editors/nvim/test/run.sh
	SESSIONLS_BIN=$$(pwd)/$(BIN) bash editors/emacs/test/run.sh
	SESSIONLS_BIN=$$(pwd)/$(BIN) bash editors/ci/test.sh
	SESSIONLS_BIN=$$(pwd)/$(BIN) bash editors/vscode/test/run.sh

bench:
	$(GO) test -run XXX -bench . -benchmem ./analysis/... ./lsp/...
	bash bench/compare.sh

package: build
	bash editors/vscode/scripts/package.sh $$(pwd)/$(BIN) $$(pwd)/bin/sessionls.vsix

ci:
	bash .ci/run

clean:
	rm -rf bin

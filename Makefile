# Developer tasks, one entry point. Each target is a thin wrapper around the
# command CI runs, so `make X` and CI agree.
#
#   make test      the README's test command, race x3 where tests run concurrently, purego
#   make oracles   the npm-installed test oracles and the map's Chromium (skipped without npm, unless CI=true)
#   make lint      gofmt, go vet, staticcheck, go mod tidy -diff, generated docs
#   make fuzz      short fuzz runs beyond the seed corpora (FUZZTIME=30s)
#   make generate  regenerate the files derived from code (rule docs, ...)
#   make editors   every real-editor test (Neovim, Emacs, action, VS Code), then the verdict
#   make bench     the Go benchmarks and the node comparison
#   make package   the VS Code extension (.vsix) with a fresh binary
#   make ci        what .ci/run does, on this machine
#   make build     bin/sessionls
.POSIX:
.PHONY: help all build test race-again oracles lint fuzz generate editors bench package ci clean

GO ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
BIN ?= bin/sessionls
FUZZTIME ?= 30s
# Packages whose tests run goroutines against each other (the server and its
# clients, the worker pool, concurrent appends, check's workers and node appenders): run three times under the
# race detector, so a flake fails here and in CI, not for a newcomer.
RACE_AGAIN ?= ./lsp/... ./analysis ./internal/atomicfile ./internal/glob ./cli ./analysis/dialect/...

help:
	@sed -n 's/^#   make /make /p' Makefile

all: build

build:
	$(GO) build -o $(BIN) ./cmd/sessionls

test: oracles
	$(GO) test -race -timeout 30m ./...
	@$(MAKE) --no-print-directory race-again

# The packages with concurrent tests again (race x3), and the parser's
# portable path; make test runs it after the README's test command.
race-again:
	$(GO) test -race -count=3 -timeout 45m $(RACE_AGAIN)
	$(GO) test -short -tags purego ./analysis/...

# The oracles installed with npm (the third-party LSP client, js-tiktoken).
# Without npm the tests that need them skip; under CI=true they must run.
oracles:
	@if command -v npm >/dev/null 2>&1; then \
		bash lsp/testdata/thirdparty/install.sh >/dev/null && \
		bash testdata/oracle/tokens/install.sh >/dev/null && \
		{ bash cli/testdata/map/install.sh >/dev/null || [ -z "$$CI" ]; }; \
	elif [ -n "$$CI" ]; then \
		echo "npm is required under CI (the oracles of the differential tests)"; exit 1; \
	else \
		echo "npm not found: the tests that need the npm oracles will skip"; \
	fi

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(GO) mod tidy -diff
	$(GO) run ./tools/gendocs -check

generate:
	$(GO) generate ./...

fuzz:
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzTransport ./lsp $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzJSONRPCNesting ./lsp/transport $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzDecodeFastOpen ./lsp/transport $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzDecodeFastChange ./lsp/transport $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzSplitRuns ./lsp/transport $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzInPlace ./lsp/transport $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzDecodeLine ./analysis/dialect/codex $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzDialect ./analysis/dialect/claude $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzParseNumber ./analysis/line $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzForLine ./analysis/fix $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzParse ./config $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzCompileMatch ./internal/glob $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzPieces ./analysis/tokens $(FUZZTIME)
	GO=$(GO) tools/fuzzone/fuzz-one.sh FuzzScan ./internal/jsonscan $(FUZZTIME)

# Every editor suite runs even when an earlier one failed; the target fails
# if any did, naming them.
editors: build
	@passed=0; failed=0; names=""; \
	for t in editors/nvim/test/run.sh editors/emacs/test/run.sh editors/ci/test.sh editors/vscode/test/run.sh; do \
		printf '\n== editor test: %s ==\n' "$$t"; \
		if SESSIONLS_BIN=$$(pwd)/$(BIN) bash "$$t"; then passed=$$((passed + 1)); \
		else failed=$$((failed + 1)); names="$$names $$t"; fi; \
	done; \
	[ -z "$$names" ] || echo "FAILED:$$names"; \
	echo "editors: $$passed passed, $$failed failed"; \
	[ "$$failed" -eq 0 ]

bench:
	$(GO) test -run XXX -bench . -benchmem ./analysis/... ./lsp/...
	bash bench/compare.sh

package: build
	bash editors/vscode/scripts/package.sh $$(pwd)/$(BIN) $$(pwd)/bin/sessionls.vsix

ci:
	bash .ci/run

clean:
	rm -rf bin

#!/usr/bin/env bash
# Installs the third-party LSP client that lsp/thirdparty_test.go drives
# (vscode-languageserver-protocol, pinned by package-lock.json here) outside
# the source tree, idempotently, and prints its directory on stdout. .ci/run
# runs it before `go test`; usable alone:
#   lsp/testdata/thirdparty/install.sh
# Directory: ${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sessionls-ci}/thirdparty
# (the Go test looks there: $SESSIONLS_CACHE, else os.UserCacheDir()/sessionls-ci).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/sessionls-ci}
DIR="$CACHE/thirdparty"
# .complete holds the hash of the lockfile installed: the test treats an
# install of another lockfile as missing.
want=$(sha256sum "$SRC/package-lock.json" | cut -d' ' -f1)

# Two runs at once (a developer's and CI's) must not install over each other.
mkdir -p "$CACHE"
exec 8>"$CACHE/.thirdparty.lock"
flock 8

if [[ -f "$DIR/.complete" && $(<"$DIR/.complete") == "$want" ]]; then
  echo "$DIR"
  exit 0
fi
printf '[thirdparty] npm ci into %s\n' "$DIR" >&2
rm -rf "$DIR"
mkdir -p "$DIR"
cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
npm ci --prefix "$DIR" --no-audit --no-fund >&2
echo "$want" >"$DIR/.complete"
echo "$DIR"

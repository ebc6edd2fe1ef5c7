#!/usr/bin/env bash
# Installs the token oracle, the npm js-tiktoken package (pinned by
# package-lock.json here), outside the source tree, idempotently, and prints
# its directory on stdout. .ci/run runs it before `go test`; usable alone:
#   testdata/oracle/tokens/install.sh
# Directory: ${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sessionls-ci}/tokens
# (analysis/tokens's TestDiffJSTiktoken and bench/tokens.sh look there:
# $SESSIONLS_CACHE, else os.UserCacheDir()/sessionls-ci).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/sessionls-ci}
DIR="$CACHE/tokens"
# .complete holds the hash of the lockfile installed: the test treats an
# install of another lockfile as missing.
want=$(sha256sum "$SRC/package-lock.json" | cut -d' ' -f1)

# Two runs at once (a developer's and CI's) must not install over each other.
mkdir -p "$CACHE"
exec 8>"$CACHE/.tokens.lock"
flock 8

if [[ -f "$DIR/.complete" && $(<"$DIR/.complete") == "$want" ]]; then
  echo "$DIR"
  exit 0
fi
printf '[tokens] npm ci into %s\n' "$DIR" >&2
rm -rf "$DIR"
mkdir -p "$DIR"
cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
npm ci --prefix "$DIR" --ignore-scripts --no-audit --no-fund >&2
echo "$want" >"$DIR/.complete"
echo "$DIR"

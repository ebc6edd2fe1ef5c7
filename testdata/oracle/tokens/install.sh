#!/usr/bin/env bash
# Install the token oracle (js-tiktoken, pinned by package-lock.json in this
# directory) OUTSIDE the source tree, where the Go differential test
# analysis/tokens TestDiffJSTiktoken and bench/tokens.sh look for it:
#   ${SESSIONLS_TOKENS_ORACLE:-${SESSIONLS_CACHE:-$HOME/.cache/sessionls-ci}/tokens}
# Idempotent: does nothing when the installed lock file is this one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${SESSIONLS_TOKENS_ORACLE:-${SESSIONLS_CACHE:-$HOME/.cache/sessionls-ci}/tokens}
if [ -f "$dest/node_modules/js-tiktoken/package.json" ] && cmp -s "$here/package-lock.json" "$dest/package-lock.json"; then
	echo "js-tiktoken already installed in $dest"
	exit 0
fi
mkdir -p "$dest"
cp "$here/package.json" "$here/package-lock.json" "$dest/"
npm ci --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error
echo "js-tiktoken $(node -p "require('$dest/node_modules/js-tiktoken/package.json').version") installed in $dest"

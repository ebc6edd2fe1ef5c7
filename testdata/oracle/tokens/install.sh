#!/usr/bin/env bash
# Installs the token oracle, the npm js-tiktoken package (pinned by
# package-lock.json here), outside the source tree, idempotently, and prints
# its directory on stdout. .ci/run runs it before `go test`; usable alone:
#   testdata/oracle/tokens/install.sh
# Directory: ${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sessionls-ci}/tokens
# (analysis/tokens's TestDiffJSTiktoken and bench/tokens.sh look there:
# $SESSIONLS_CACHE, else os.UserCacheDir()/sessionls-ci).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../npm-cache.sh"
npm_cache_lock tokens "$here"
npm_cache_install

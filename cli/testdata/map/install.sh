#!/usr/bin/env bash
# Installs what cli/map_dom_test.go needs to render a map page in headless
# Chromium, idempotently: Debian's chromium (apt, as root; the VS Code test
# installs the same package) and puppeteer-core (pinned by package-lock.json
# here, npm ci outside the source tree; it downloads no browser). Prints
# the puppeteer-core directory on stdout. .ci/run runs it before `go test`;
# usable alone:
#   cli/testdata/map/install.sh
# Directory: ${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sessionls-ci}/map-dom
# (the Go test looks there: $SESSIONLS_CACHE, else os.UserCacheDir()/sessionls-ci).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../../testdata/npm-cache.sh"
npm_cache_lock map-dom "$here"

if ! command -v chromium >/dev/null 2>&1; then
  if [[ $(id -u) != 0 ]]; then
    echo "[map-dom] chromium is missing: install Debian's chromium package (as root)" >&2
    exit 1
  fi
  printf '[map-dom] apt-get install chromium\n' >&2
  export DEBIAN_FRONTEND=noninteractive
  # Another apt run (another test) may hold the lock: wait for it.
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium >&2
fi

# It downloads no browser: the test drives Debian's chromium.
npm_cache_install PUPPETEER_SKIP_DOWNLOAD=1

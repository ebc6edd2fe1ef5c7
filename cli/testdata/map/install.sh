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

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/sessionls-ci}
DIR="$CACHE/map-dom"
want=$(sha256sum "$SRC/package-lock.json" | cut -d' ' -f1)

mkdir -p "$CACHE"
exec 8>"$CACHE/.map-dom.lock"
flock 8

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

if [[ -f "$DIR/.complete" && $(<"$DIR/.complete") == "$want" ]]; then
  echo "$DIR"
  exit 0
fi
printf '[map-dom] npm ci into %s\n' "$DIR" >&2
rm -rf "$DIR"
mkdir -p "$DIR"
cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix "$DIR" --ignore-scripts --no-audit --no-fund >&2
echo "$want" >"$DIR/.complete"
echo "$DIR"

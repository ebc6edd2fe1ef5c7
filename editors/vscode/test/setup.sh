#!/usr/bin/env bash
# Installs what the real-VS-Code test needs, idempotently; progress goes to
# stderr, and stdout gets one line: code-server's entry point. run.sh runs it;
# usable alone:
#   editors/vscode/test/setup.sh
# Cache: ${SESSIONLS_CACHE:-$HOME/.cache/sessionls-ci}
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
CACHE=${SESSIONLS_CACHE:-${HOME:-/root}/.cache/sessionls-ci}
CS_ROOT="$CACHE/code-server-$CODE_SERVER_VERSION"
TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

log() { printf '[setup %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# Two runs at once (a developer's and CI's) must not install over each other.
mkdir -p "$CACHE"
exec 8>"$CACHE/.setup.lock"
flock 8

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
# The emoji font only makes the screenshots honest (demo.jsonl has emoji).
for pkg in libkrb5-dev libxkbfile-dev libsecret-1-dev fonts-noto-color-emoji; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  if [[ $(id -u) != 0 ]]; then
    log "missing Debian packages: ${need_apt[*]} (run as root, or install them first)"
    exit 1
  fi
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Another apt run (another test) may hold the lock: wait for it.
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${need_apt[@]}" >&2
fi

if [[ ! -f "$CS_ROOT/.complete" ]]; then
  log "installing code-server $CODE_SERVER_VERSION into $CS_ROOT (about a minute)"
  rm -rf "$CS_ROOT"
  mkdir -p "$CS_ROOT"
  (
    cd "$CS_ROOT"
    # Its postinstall downloads things (a ripgrep build, the marketplace
    # extensions) from hosts this machine cannot reach: its steps are done
    # by hand instead: install without scripts, point @vscode/ripgrep at
    # Debian's rg, rebuild the native modules, and make the links the
    # postinstall would make (node_modules.asar, the remote CLI and browser
    # helpers of linux).
    echo '{"name":"sessionls-code-server","private":true}' >package.json
    npm install --no-audit --no-fund --ignore-scripts "code-server@$CODE_SERVER_VERSION" >&2
    (
      cd node_modules/code-server/lib/vscode
      npm install --no-audit --no-fund --omit=dev --ignore-scripts >&2
      mkdir -p node_modules/@vscode/ripgrep/bin
      ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
      npm_config_yes=true npm rebuild >&2
      ln -sfn node_modules node_modules.asar
      (cd bin/remote-cli && ln -sf code-linux.sh code-server)
      (cd bin/helpers && ln -sf browser-linux.sh browser.sh)
      (cd extensions && npm install --no-audit --no-fund --omit=dev >&2)
    )
    npm rebuild argon2 >&2
  )
  if ! node "$CS_ROOT/node_modules/code-server/out/node/entry.js" --config "$CS_ROOT/unused-config.yaml" --version >&2; then
    log "code-server $CODE_SERVER_VERSION does not run after the install (see above)"
    exit 1
  fi
  touch "$CS_ROOT/.complete"
fi

# puppeteer-core only drives the Debian Chromium: it downloads no browser.
lock_sum=$(sha256sum "$TEST_DIR/package-lock.json" | cut -d' ' -f1)
if [[ "$(cat "$TEST_DIR/node_modules/.sessionls-lock-sum" 2>/dev/null)" != "$lock_sum" ]]; then
  log "npm ci in $TEST_DIR (puppeteer-core)"
  (cd "$TEST_DIR" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund >&2)
  echo "$lock_sum" >"$TEST_DIR/node_modules/.sessionls-lock-sum"
fi

CODE_SERVER="$CS_ROOT/node_modules/code-server/out/node/entry.js"
if [[ ! -f "$CODE_SERVER" ]]; then
  log "code-server entry point $CODE_SERVER is missing; remove $CS_ROOT and retry"
  exit 1
fi
echo "$CODE_SERVER"

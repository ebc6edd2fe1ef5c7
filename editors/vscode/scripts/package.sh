#!/usr/bin/env bash
# Builds the sessionls .vsix and prints its path on the last line of stdout.
#   editors/vscode/scripts/package.sh [path-to-sessionls-binary [out.vsix]]
# With a binary, it is bundled as bin/sessionls and the extension uses it
# when neither sessionls.path nor SESSIONLS_PATH is set.
# SESSIONLS_VSCE_TARGET (e.g. linux-x64, darwin-arm64) marks the .vsix as
# platform-specific, as it should be when it carries a binary.
# Needs node 20+ and the npm registry (npm ci); vsce itself runs offline.
set -euo pipefail

EXT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${1:-}
OUT_VSIX=${2:-}
cd "$EXT_DIR"

# dist/, bin/ and node_modules/ are shared by every run in this checkout:
# one packaging at a time (two e2e runs may start together).
exec 9>"$EXT_DIR/.package.lock"
flock 9

log() { printf '[package] %s\n' "$*" >&2; }

if [[ -n "$BIN" && ! -x "$BIN" ]]; then
  log "error: $BIN is not an executable file (build it with: go build -o /tmp/sessionls ./cmd/sessionls)"
  exit 2
fi

# npm ci only when node_modules was not installed from this very lock file.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ "$(cat node_modules/.sessionls-lock-sum 2>/dev/null)" != "$lock_sum" ]]; then
  log "npm ci"
  npm ci --no-audit --no-fund >&2
  echo "$lock_sum" >node_modules/.sessionls-lock-sum
fi

rm -rf dist

rm -rf bin
if [[ -n "$BIN" ]]; then
  mkdir -p bin
  cp "$BIN" bin/sessionls
  chmod 755 bin/sessionls
  log "bundled $BIN as bin/sessionls ($("$BIN" --version 2>/dev/null || echo 'version unknown'))"
fi

version=$(node -p 'require("./package.json").version')
target_args=()
suffix=""
if [[ -n "${SESSIONLS_VSCE_TARGET:-}" ]]; then
  target_args=(--target "$SESSIONLS_VSCE_TARGET")
  suffix="-$SESSIONLS_VSCE_TARGET"
fi
out=${OUT_VSIX:-"$EXT_DIR/sessionls$suffix-$version.vsix"}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
rm -f "$out"
# vsce runs vscode:prepublish, the esbuild bundle; node_modules stay out.
npx --no-install vsce package --no-dependencies "${target_args[@]}" -o "$out" >&2 || {
  log "error: vsce package failed"
  exit 1
}
log "built $out ($(du -h "$out" | cut -f1))"
echo "$out"

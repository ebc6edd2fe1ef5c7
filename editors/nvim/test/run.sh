#!/usr/bin/env bash
# End-to-end test of editors/nvim against the real server in headless Neovim.
#   SESSIONLS_BIN=/path/to/sessionls bash editors/nvim/test/run.sh
# Prints one PASS/FAIL (or SKIP) line last; exits 0 on PASS/SKIP, 1 on FAIL.
# Without nvim it installs Debian's neovim with apt-get; if that is not
# possible it skips, unless CI is set, where it fails.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
session=${SESSIONLS_SESSION:-$repo/testdata/sessions/demo.jsonl}

fail() { echo "FAIL nvim: $*"; exit 1; }
skip() {
  if [ -n "${CI:-}" ]; then fail "$* (CI is set, so this is a failure)"; fi
  echo "SKIP nvim: $*"; exit 0
}

bin=${SESSIONLS_BIN:-$(command -v sessionls || true)}
[ -n "$bin" ] || fail "set SESSIONLS_BIN to a sessionls binary"
[ -x "$bin" ] || fail "SESSIONLS_BIN=$bin is not executable"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

if ! command -v nvim >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing neovim with apt-get..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q neovim >/tmp/sessionls-nvim-apt.log 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q neovim >/tmp/sessionls-nvim-apt.log 2>&1; } ||
      skip "nvim is missing and apt-get install neovim failed (see /tmp/sessionls-nvim-apt.log)"
    command -v nvim >/dev/null 2>&1 || skip "nvim still missing after apt-get install neovim"
  else
    skip "nvim is missing and cannot be installed here"
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$session" "$tmp/session.jsonl"
mkdir -p "$tmp/cache" "$tmp/state" "$tmp/data"

start=$(date +%s.%N)
out=$(cd "$tmp" && XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data \
  SESSIONLS_BIN=$bin SESSIONLS_PLUGIN=$repo/editors/nvim SESSIONLS_FILE=$tmp/session.jsonl SESSIONLS_TMP=$tmp \
  timeout -k 5 120 nvim --headless -u NONE -i NONE -n -c "luafile $here/test.lua" </dev/null 2>"$tmp/stderr")
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "$out"
if [ $rc -eq 0 ] && echo "$out" | grep -q '^ALL OK: '; then
  echo "PASS nvim: $(echo "$out" | grep '^ALL OK: ' | sed 's/^ALL OK: //') in ${secs}s"
  exit 0
fi
[ -s "$tmp/stderr" ] && { echo "--- nvim stderr (last 30 lines):"; tail -n 30 "$tmp/stderr"; echo; }
[ $rc -eq 124 ] && fail "timed out after 120 s"
fail "$(echo "$out" | grep '^ERROR ' | head -1 | cut -c1-200) (exit $rc)"

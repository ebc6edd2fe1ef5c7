#!/usr/bin/env bash
# End-to-end test of editors/nvim against the real server in headless Neovim.
#   SESSIONLS_BIN=/path/to/sessionls bash editors/nvim/test/run.sh
# Prints one PASS/FAIL (or SKIP) line last; exits 0 on PASS/SKIP, 1 on FAIL.
# Without nvim it installs Debian's neovim with apt-get; if that is not
# possible it skips, unless CI is set, where it fails.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=nvim
. "$here/../../test/lib.sh"

have_nvim() { command -v nvim >/dev/null 2>&1; }
need nvim have_nvim neovim

scratch
mkdir -p "$tmp/cache" "$tmp/state" "$tmp/data"

run_suite env XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_DATA_HOME="$tmp/data" \
  SESSIONLS_BIN="$bin" SESSIONLS_PLUGIN="$repo/editors/nvim" SESSIONLS_FILE="$tmp/session.jsonl" SESSIONLS_TMP="$tmp" \
  nvim --headless -u NONE -i NONE -n -c "luafile $here/test.lua"

#!/usr/bin/env bash
# Takes docs/nvim.png: Neovim in a real terminal (xterm under Xvfb) with the
# plugin and the server, on a copy of testdata/sessions/demo.jsonl with its
# broken lines fixed and a round budget, so the picture shows what a user
# sees: lenses above the units, the cutoff, the faded trimmed lines, and a
# diagnostic.
#
#   SESSIONLS_BIN=/path/to/sessionls editors/nvim/scripts/screenshot.sh [OUT.png]
#
# Needs nvim, Xvfb, xterm and ImageMagick's import (Debian: neovim xvfb
# xterm imagemagick fonts-dejavu-core).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
out=${1:-$repo/docs/nvim.png}
bin=${SESSIONLS_BIN:?set SESSIONLS_BIN to a sessionls binary}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
for tool in nvim Xvfb xterm import; do
  command -v "$tool" >/dev/null || { echo "screenshot.sh: $tool is missing" >&2; exit 2; }
done

tmp=$(mktemp -d)
xvfb_pid=""
cleanup() {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# demo.jsonl with its two broken lines repaired the way a user would (the
# orphan tool result stays: a warning to show).
sed -e 's/"role":"system"/"role":"user"/' "$repo/testdata/sessions/demo.jsonl" |
  awk '{ if ($0 !~ /}$/ && $0 ~ /^\{/) print $0 "}"; else print }' >"$tmp/session.jsonl"

cat >"$tmp/init.lua" <<LUA
vim.opt.runtimepath:prepend("$repo/editors/nvim")
vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.wrap = false
vim.cmd("colorscheme default")
require("sessionls").setup({ cmd = { "$bin", "serve" }, budget = 500 })
LUA

display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1500x560x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
sleep 1
DISPLAY=$display xterm -geometry 160x26+0+0 -fa 'DejaVu Sans Mono' -fs 12 -bg '#1e1e1e' -fg '#d4d4d4' \
  -e sh -c "cd '$tmp' && nvim -u '$tmp/init.lua' -i NONE -n session.jsonl" &
sleep 4
DISPLAY=$display import -window root -crop 1440x500+0+0 "$out"
echo "$out"

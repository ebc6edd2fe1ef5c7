#!/usr/bin/env bash
# The sessionls extension in a real VS Code: code-server 4.100.3 (VS Code
# 1.100.3) driven by headless Chromium through puppeteer-core.
#
#   SESSIONLS_BIN=/path/to/sessionls editors/vscode/test/run.sh
#
# Installs what it needs (Debian packages, code-server, puppeteer-core),
# cached under ${SESSIONLS_CACHE:-$HOME/.cache/sessionls-ci}; packages the
# .vsix with that binary inside; installs it into a fresh extensions dir;
# serves a workspace holding copies of testdata/sessions/{demo,clean}.jsonl;
# and checks lenses, squiggles, the Problems panel, the status bar and the
# budget command against `sessionls check/budget --format json` (test/e2e.js).
# Screenshots and the log go to editors/vscode/test/out/ (or
# $SESSIONLS_VSCODE_OUT); with
# UPDATE_DOCS_SCREENSHOT=1 it only takes the README picture instead: a clean
# workspace with demo.jsonl repaired and budget 500, checked against the CLI,
# saved as docs/vscode.png.
set -euo pipefail

TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EXT_DIR=$(cd "$TEST_DIR/.." && pwd)
REPO=$(cd "$EXT_DIR/../.." && pwd)
OUT=${SESSIONLS_VSCODE_OUT:-"$TEST_DIR/out"}
start=$(date +%s)

fail() {
  echo "FAIL: vscode e2e: $*" >&2
  echo "vscode: 0 passed, 1 failed"
  exit 1
}
log() { printf '[run %3ss] %s\n' "$(($(date +%s) - start))" "$*"; }

[[ -n "${SESSIONLS_BIN:-}" ]] || fail "set SESSIONLS_BIN to a sessionls binary (go build -o /tmp/sessionls ./cmd/sessionls)"
SESSIONLS_BIN=$(cd "$(dirname "$SESSIONLS_BIN")" && pwd)/$(basename "$SESSIONLS_BIN")
[[ -x "$SESSIONLS_BIN" ]] || fail "SESSIONLS_BIN=$SESSIONLS_BIN is not an executable file"
export SESSIONLS_BIN

rm -rf "$OUT"
mkdir -p "$OUT"
# Everything below runs in main, its output copied to test/out/test.log.
main() {
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sessionls-vscode.XXXXXX")
CS_PID=""
E2E_PID=""
cleanup() {
  local rc=$?
  # Each was started with setsid: its process group holds its children
  # (code-server's extension host and sessionls; puppeteer's chromium).
  for pid in $E2E_PID $CS_PID; do
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  sleep 0.5
  for pid in $E2E_PID $CS_PID; do
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  if [[ $rc -ne 0 && -d "$WORK/user-data/logs" ]]; then
    echo "---- sessionls output channel (from code-server's logs) ----"
    find "$WORK/user-data/logs" -name '*sessionls*.log' -exec tail -n 60 {} \; 2>/dev/null || true
    echo "---- code-server log (tail) ----"
    tail -n 30 "$WORK/code-server.log" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "setup (apt, code-server, puppeteer-core; cached in ${SESSIONLS_CACHE:-${HOME:-/root}/.cache/sessionls-ci})"
CODE_SERVER=$(bash "$TEST_DIR/setup.sh") || fail "setup failed (see above)"

log "package the .vsix with $SESSIONLS_BIN"
mkdir -p "$WORK"
VSIX=$(bash "$EXT_DIR/scripts/package.sh" "$SESSIONLS_BIN" "$WORK/sessionls.vsix" | tail -n 1) || fail "packaging failed (see above)"
[[ -f "$VSIX" ]] || fail "packaging printed no .vsix path"

log "type-check and unit tests of the extension"
(cd "$EXT_DIR" && npx --no-install tsc --noEmit -p . && npm run --silent test:unit) || fail "type-check or unit tests failed (see above)"

mkdir -p "$WORK/user-data/User" "$WORK/extensions" "$WORK/workspace"
DOCS_BUDGET=500
if [[ "${UPDATE_DOCS_SCREENSHOT:-}" == 1 ]]; then
  # The README's picture: a clean workspace with demo.jsonl repaired the
  # way a user would (the orphan result stays, a warning to show) and a
  # round budget in the user settings (no .vscode folder in the explorer).
  sed -e 's/"role":"system"/"role":"user"/' "$REPO/testdata/sessions/demo.jsonl" |
    awk '{ if ($0 ~ /^\{/ && $0 !~ /}$/) print $0 "}"; else print }' >"$WORK/workspace/demo.jsonl"
else
  cp "$REPO/testdata/sessions/demo.jsonl" "$REPO/testdata/sessions/clean.jsonl" "$WORK/workspace/"
fi
cat >"$WORK/user-data/User/settings.json" <<'EOF'
{
  "telemetry.telemetryLevel": "off",
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "workbench.enableExperiments": false,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "chat.commandCenter.enabled": false,
  "window.commandCenter": false,
  "editor.minimap.enabled": false,
  "editor.autoClosingBrackets": "never",
  "editor.autoClosingQuotes": "never",
  "editor.autoSurround": "never",
  "editor.quickSuggestions": { "other": false, "comments": false, "strings": false },
  "editor.suggestOnTriggerCharacters": false,
  "editor.formatOnType": false,
  "editor.formatOnSave": false,
  "editor.hover.enabled": false,
  "files.insertFinalNewline": false,
  "files.trimTrailingWhitespace": false
}
EOF
if [[ "${UPDATE_DOCS_SCREENSHOT:-}" == 1 ]]; then
  node -e 'const fs = require("fs"); const f = process.argv[1]; const s = JSON.parse(fs.readFileSync(f, "utf8")); s["sessionls.budget"] = Number(process.argv[2]); fs.writeFileSync(f, JSON.stringify(s, null, 2));' \
    "$WORK/user-data/User/settings.json" "$DOCS_BUDGET"
fi
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
cat >"$WORK/config.yaml" <<EOF
bind-addr: 127.0.0.1:$port
auth: none
cert: false
EOF

cs=(node "$CODE_SERVER" --config "$WORK/config.yaml" --user-data-dir "$WORK/user-data"
  --extensions-dir "$WORK/extensions" --disable-telemetry --disable-update-check
  --disable-workspace-trust --disable-getting-started-override)
log "install the .vsix into a fresh extensions dir"
"${cs[@]}" --install-extension "$VSIX" >"$WORK/install.log" 2>&1 || {
  cat "$WORK/install.log"
  fail "code-server --install-extension $VSIX failed"
}
[[ -x "$WORK/extensions/sessionls.sessionls-0.1.0/bin/sessionls" ]] || fail "the installed extension has no executable bin/sessionls"

log "start code-server on 127.0.0.1:$port"
# Neither SESSIONLS_PATH nor PATH may decide which binary the extension
# runs: the test is about the one bundled in the .vsix.
env -u SESSIONLS_PATH setsid "${cs[@]}" "$WORK/workspace" >"$WORK/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
    break
  fi
  kill -0 "$CS_PID" 2>/dev/null || {
    cat "$WORK/code-server.log"
    fail "code-server exited during start-up"
  }
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || fail "code-server did not answer on port $port within 20 s"

log "drive Chromium (test/e2e.js)"
E2E_URL="http://127.0.0.1:$port/" E2E_WORKSPACE="$WORK/workspace" E2E_OUT="$OUT" E2E_PROFILE="$WORK/chromium" \
  E2E_DOCS="${UPDATE_DOCS_SCREENSHOT:-}" E2E_DOCS_BUDGET="$DOCS_BUDGET" \
  setsid node "$TEST_DIR/e2e.js" &
E2E_PID=$!
if ! wait "$E2E_PID"; then
  E2E_PID=""
  fail "assertions failed (log and screenshots in $OUT)"
fi
E2E_PID=""

if [[ "${UPDATE_DOCS_SCREENSHOT:-}" == 1 ]]; then
  mkdir -p "$REPO/docs"
  cp "$OUT/docs.png" "$REPO/docs/vscode.png"
  log "copied the final screenshot to docs/vscode.png"
fi
log "PASS in $(($(date +%s) - start)) s; screenshots and test.log in $OUT"
echo "vscode: 1 passed, 0 failed"
}

main 2>&1 | tee "$OUT/test.log"
exit "${PIPESTATUS[0]}"

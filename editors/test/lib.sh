# Shared by the real-editor suites editors/{nvim,emacs}/test/run.sh, which
# set `here` (their directory) and `suite` (the name on their last line)
# and source this file: the repository, the session, the binary, the
# PASS/FAIL/SKIP protocol, installing the editor, and running its test file.
repo=$(cd "$here/../../.." && pwd)
session=${SESSIONLS_SESSION:-$repo/testdata/sessions/demo.jsonl}

fail() { echo "FAIL $suite: $*"; exit 1; }
skip() {
  if [ -n "${CI:-}" ]; then fail "$* (CI is set, so this is a failure)"; fi
  echo "SKIP $suite: $*"; exit 0
}

bin=${SESSIONLS_BIN:-$(command -v sessionls || true)}
[ -n "$bin" ] || fail "set SESSIONLS_BIN to a sessionls binary"
[ -x "$bin" ] || fail "SESSIONLS_BIN=$bin is not executable"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# need WHAT CHECK PKG...: unless the command CHECK succeeds, install the
# Debian packages PKG with apt-get (as root; after apt-get update if the
# first try fails); skip when WHAT is still missing.
need() {
  local what=$1 check=$2 log=/tmp/sessionls-$suite-apt.log
  shift 2
  $check && return
  if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
    skip "$what is missing and cannot be installed here"
  fi
  echo "installing $* with apt-get..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >"$log" 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >"$log" 2>&1; } ||
    skip "$what is missing and apt-get install $* failed (see $log)"
  $check || skip "$what still missing after apt-get install $*"
}

# scratch: a temporary directory $tmp, removed on exit, holding a copy of
# the session as session.jsonl.
scratch() {
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cp "$session" "$tmp/session.jsonl"
}

# run_suite CMD...: runs CMD (the editor on its test file) in $tmp within
# 120 s and prints its output, then the PASS line with what the test file
# counted ("ALL OK: ..."), or FAIL with its first error.
run_suite() {
  local start out rc secs
  start=$(date +%s.%N)
  out=$(cd "$tmp" && timeout -k 5 120 "$@" </dev/null 2>"$tmp/stderr")
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "$out"
  if [ $rc -eq 0 ] && echo "$out" | grep -q '^ALL OK: '; then
    echo "PASS $suite: $(echo "$out" | grep '^ALL OK: ' | sed 's/^ALL OK: //') in ${secs}s"
    exit 0
  fi
  [ -s "$tmp/stderr" ] && { echo "--- $suite stderr (last 30 lines):"; tail -n 30 "$tmp/stderr"; echo; }
  [ $rc -eq 124 ] && fail "timed out after 120 s"
  fail "$(echo "$out" | grep '^ERROR ' | head -1 | cut -c1-200) (exit $rc)"
}

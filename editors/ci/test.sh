#!/usr/bin/env bash
# Local test of the GitHub Action (action.yml), the pre-commit hook
# (.pre-commit-hooks.yaml) and the Helix configuration (editors/helix).
#   SESSIONLS_BIN=/path/to/sessionls bash editors/ci/test.sh
#
# - action.yml: parsed with PyYAML and checked for shape; then its run
#   steps are run VERBATIM in bash with the GITHUB_* files a runner gives:
#   the Go probe, `go install github.com/sessionls/sessionls/cmd/sessionls@latest`
#   against a file:// module proxy built from this checkout (no network),
#   and the check step on testdata, compared with the CLI run directly.
# - .pre-commit-hooks.yaml: shape, the files regex, `go install ./...` as
#   pre-commit's golang hooks do (into a scratch GOBIN), and the entry run
#   on file names the way pre-commit passes them.
# - editors/helix/languages.toml: parsed with python3's tomllib, shape.
# Prints PASS/FAIL last; exits 0 or 1. Skips a part whose tool is missing,
# unless CI is set.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo" || exit 1

checks=0
failures=0
skipped=""
ok() { checks=$((checks + 1)); echo "ok   $*"; }
bad() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $*"; }
skip_part() {
  if [ -n "${CI:-}" ]; then bad "$* (CI is set)"; else skipped="$skipped; $*"; echo "skip $*"; fi
}
# expect DESCRIPTION WANT_EXIT GOT_EXIT
expect_exit() { if [ "$3" -eq "$2" ]; then ok "$1 (exit $3)"; else bad "$1: exit $3, want $2"; fi; }

bin=${SESSIONLS_BIN:-$(command -v sessionls || true)}
[ -n "$bin" ] && [ -x "$bin" ] || { echo "FAIL ci: set SESSIONLS_BIN to a sessionls binary"; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
start=$(date +%s)

have_yaml=false
python3 -c 'import yaml' 2>/dev/null && have_yaml=true

# step_script NAME: print the `run` script of the action step named NAME.
step_script() {
  python3 - "$1" "$repo/action.yml" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[2]))
for s in doc["runs"]["steps"]:
    if s.get("name") == sys.argv[1]:
        print(s["run"])
        break
else:
    sys.exit("no step named " + sys.argv[1])
PY
}

# ------------------------------------------------------------ action.yml
if $have_yaml; then
  if out=$(python3 - <<'PY' 2>&1
import yaml
doc = yaml.safe_load(open("action.yml"))
errs = []
def want(cond, msg):
    if not cond:
        errs.append(msg)
inputs = doc.get("inputs", {})
want(inputs.get("paths", {}).get("default") == ".", "inputs.paths.default is not '.'")
want(inputs.get("version", {}).get("default") == "latest", "inputs.version.default is not 'latest'")
want(inputs.get("args", {}).get("default") == "", "inputs.args.default is not ''")
want("go-version" in inputs, "no inputs.go-version")
for k, v in inputs.items():
    want(isinstance(v.get("description"), str) and v["description"], f"input {k} has no description")
runs = doc.get("runs", {})
want(runs.get("using") == "composite", "runs.using is not composite")
steps = runs.get("steps", [])
names = [s.get("name") for s in steps]
for s in steps:
    if "run" in s:
        want(s.get("shell") == "bash", f"run step {s.get('name')!r} has no shell: bash")
        want("${{" not in s["run"], f"run step {s.get('name')!r} puts ${{{{ }}}} in the script (pass inputs through env)")
setup = [s for s in steps if str(s.get("uses", "")).startswith("actions/setup-go@")]
want(len(setup) == 1, "no actions/setup-go step")
if setup:
    want("steps.go.outputs.found" in str(setup[0].get("if", "")), "setup-go does not depend on the Go probe")
install = next((s for s in steps if s.get("name") == "Install sessionls"), {})
want('go install "github.com/sessionls/sessionls/cmd/sessionls@${SESSIONLS_VERSION}"' in install.get("run", ""),
     "install step does not go install cmd/sessionls@version")
want(install.get("env", {}).get("SESSIONLS_VERSION") == "${{ inputs.version }}", "install step env lacks inputs.version")
check = next((s for s in steps if s.get("name") == "Check session files"), {})
want("sessionls check --format github $SESSIONLS_ARGS $SESSIONLS_PATHS" in check.get("run", ""),
     "check step does not run sessionls check --format github ARGS PATHS")
want(check.get("env", {}).get("SESSIONLS_PATHS") == "${{ inputs.paths }}", "check step env lacks inputs.paths")
want(check.get("env", {}).get("SESSIONLS_ARGS") == "${{ inputs.args }}", "check step env lacks inputs.args")
want(inputs.get("summary", {}).get("default") == "false", "inputs.summary.default is not 'false'")
want(check.get("env", {}).get("SESSIONLS_SUMMARY") == "${{ inputs.summary }}", "check step env lacks inputs.summary")
print("\n".join(errs) if errs else "steps: " + ", ".join(map(str, names)))
raise SystemExit(1 if errs else 0)
PY
  ); then ok "action.yml parses: $out"; else bad "action.yml shape: $out"; fi

  # The runner's files.
  export GITHUB_OUTPUT=$tmp/github_output GITHUB_PATH=$tmp/github_path RUNNER_TEMP=$tmp/runner
  mkdir -p "$RUNNER_TEMP"; : >"$GITHUB_OUTPUT"; : >"$GITHUB_PATH"

  # Step "Look for Go".
  if bash -e -c "$(step_script 'Look for Go')" && grep -qx 'found=true' "$GITHUB_OUTPUT"; then
    ok "step 'Look for Go' writes found=true to GITHUB_OUTPUT"
  else
    bad "step 'Look for Go': GITHUB_OUTPUT is: $(cat "$GITHUB_OUTPUT")"
  fi

  # Step "Install sessionls" against a file:// proxy holding this checkout
  # as github.com/sessionls/sessionls v0.0.1 (dependencies come from the
  # module cache, as they are already downloaded).
  if command -v go >/dev/null 2>&1; then
    proxy=$tmp/proxy/github.com/sessionls/sessionls/@v
    mkdir -p "$proxy"
    if python3 - "$proxy" <<'PY'
import os, subprocess, sys, zipfile
proxy = sys.argv[1]
ver = "v0.0.1"
prefix = f"github.com/sessionls/sessionls@{ver}/"
files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                       check=True, capture_output=True).stdout.decode().split("\0")
# Module zips hold no nested modules, vendor or VCS directories.
nested = {os.path.dirname(f) for f in files if f.endswith("/go.mod")}
with zipfile.ZipFile(os.path.join(proxy, ver + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for f in files:
        if not f or not os.path.isfile(f) or f.startswith(("vendor/", ".git/")):
            continue
        if any(f.startswith(d + "/") for d in nested):
            continue
        z.write(f, prefix + f)
open(os.path.join(proxy, "list"), "w").write(ver + "\n")
open(os.path.join(proxy, ver + ".info"), "w").write('{"Version":"%s","Time":"2026-01-01T00:00:00Z"}' % ver)
open(os.path.join(proxy, ver + ".mod"), "w").write(open("go.mod").read())
PY
    then
      install_out=$(cd "$tmp" && SESSIONLS_VERSION=latest GOPROXY=file://$tmp/proxy GOSUMDB=off \
        GONOSUMDB=github.com/sessionls GOFLAGS=-mod=mod GOTOOLCHAIN=local GOMODCACHE=$(go env GOMODCACHE) \
        timeout 150 bash -c "$(step_script 'Install sessionls')" 2>&1)
      rc=$?
      if [ $rc -eq 0 ] && [ -x "$RUNNER_TEMP/sessionls-bin/sessionls" ] &&
        grep -qx "$RUNNER_TEMP/sessionls-bin" "$GITHUB_PATH"; then
        ok "step 'Install sessionls' (version latest, file:// proxy) installs $(echo "$install_out" | tail -1 | cut -c1-80) and adds it to GITHUB_PATH"
      else
        bad "step 'Install sessionls' (exit $rc): $(echo "$install_out" | tail -5)"
      fi
    else
      bad "could not build the file:// module proxy"
    fi
  else
    skip_part "step 'Install sessionls' (no go)"
  fi

  # Step "Check session files": with the binary on PATH (the installed one
  # if the install step worked, else SESSIONLS_BIN) and the inputs as env.
  check_bin_dir=$(dirname "$bin")
  [ -x "$RUNNER_TEMP/sessionls-bin/sessionls" ] && check_bin_dir=$RUNNER_TEMP/sessionls-bin
  script=$(step_script 'Check session files')
  run_check() { # DIR PATHS ARGS -> stdout; exit code of the step
    (cd "$1" && PATH=$check_bin_dir:$PATH SESSIONLS_PATHS=$2 SESSIONLS_ARGS=$3 bash -c "$script")
  }

  got=$(run_check "$repo" "testdata/sessions" ""); rc=$?
  want=$("$check_bin_dir/sessionls" check --format github testdata/sessions)
  expect_exit "check step on testdata/sessions fails" 1 $rc
  if [ -n "$got" ] && [ "$got" = "$want" ]; then
    ok "check step output equals sessionls check --format github testdata/sessions ($(echo "$got" | wc -l) annotations)"
  else
    bad "check step output differs from the CLI's:"; diff <(echo "$want") <(echo "$got") | head -20
  fi
  if echo "$got" | grep -q '^::error file=testdata/sessions/demo.jsonl,line=8,'; then
    ok "check step annotates demo.jsonl line 8 (::error file=…,line=8,…)"
  else
    bad "no ::error annotation for testdata/sessions/demo.jsonl line 8"
  fi
  bad_lines=$(echo "$got" | grep -v '^::\(error\|warning\|notice\) file=' || true)
  if [ -z "$bad_lines" ]; then ok "every output line is a workflow command"; else bad "non-annotation output: $bad_lines"; fi

  got=$(run_check "$repo" "testdata/sessions/clean.jsonl" ""); rc=$?
  expect_exit "check step on clean.jsonl passes" 0 $rc
  got=$(run_check "$repo" "testdata/sessions/units.jsonl" ""); rc=$?
  expect_exit "check step on units.jsonl (warnings only) passes" 0 $rc
  got=$(run_check "$repo" "testdata/sessions/units.jsonl" "--strict"); rc=$?
  expect_exit "check step with args '--strict' on units.jsonl fails" 1 $rc
  got=$(run_check "$repo" "testdata/sessions/clean.jsonl testdata/sessions/units.jsonl" "--strict --disable orphan-tool-result,duplicate-call-id,missing-tool-result"); rc=$?
  expect_exit "check step with two paths and two flags in args" 0 $rc

  # Input summary "true": the context map's breakdown goes to the job
  # summary, the annotations stay the same.
  export GITHUB_STEP_SUMMARY=$tmp/step_summary.md
  : >"$GITHUB_STEP_SUMMARY"
  want=$(run_check "$repo" "testdata/sessions/units.jsonl" "--budget 400")
  got=$(cd "$repo" && PATH=$check_bin_dir:$PATH SESSIONLS_PATHS=testdata/sessions/units.jsonl SESSIONLS_ARGS="--budget 400" \
    SESSIONLS_SUMMARY=true bash -c "$script"); rc=$?
  expect_exit "check step with summary true on units.jsonl passes" 0 $rc
  if [ "$got" = "$want" ] && grep -q '^## sessionls: where the context goes' "$GITHUB_STEP_SUMMARY" &&
    grep -q '| testdata/sessions/units.jsonl | yes |.*keeps from line' "$GITHUB_STEP_SUMMARY"; then
    ok "summary true appends the breakdown to GITHUB_STEP_SUMMARY ($(wc -l <"$GITHUB_STEP_SUMMARY") lines), annotations unchanged"
  else
    bad "summary true: GITHUB_STEP_SUMMARY is: $(head -c 600 "$GITHUB_STEP_SUMMARY")"
  fi
  unset GITHUB_STEP_SUMMARY

  # The default paths ".": a directory walk from the workspace root.
  mkdir -p "$tmp/ws/logs/deep" && cp testdata/sessions/demo.jsonl "$tmp/ws/logs/deep/" &&
    cp testdata/sessions/clean.jsonl "$tmp/ws/"
  got=$(run_check "$tmp/ws" "." ""); rc=$?
  expect_exit "check step with the default paths '.' finds logs/deep/demo.jsonl" 1 $rc
  if echo "$got" | grep -q 'file=\(\./\)\?logs/deep/demo.jsonl,line=8,'; then
    ok "annotations name files relative to the workspace"
  else
    bad "annotations for paths '.': $(echo "$got" | head -3)"
  fi
else
  skip_part "action.yml (python3 has no yaml module)"
fi

# --------------------------------------------------- .pre-commit-hooks.yaml
if $have_yaml; then
  if out=$(python3 - <<'PY' 2>&1
import re, yaml
hooks = yaml.safe_load(open(".pre-commit-hooks.yaml"))
errs = []
h = next((h for h in hooks if h.get("id") == "sessionls-check"), None)
if h is None:
    raise SystemExit("no hook with id sessionls-check")
for k, v in {"entry": "sessionls check", "language": "golang", "files": r"\.jsonl$"}.items():
    if h.get(k) != v:
        errs.append(f"{k} is {h.get(k)!r}, want {v!r}")
rx = re.compile(h["files"])
for name, want in [("a.jsonl", True), ("logs/x/session.jsonl", True), ("a.json", False),
                   ("a.jsonl.bak", False), ("jsonl", False)]:
    if bool(rx.search(name)) != want:
        errs.append(f"files regex on {name!r}: {not want}, want {want}")
print("\n".join(errs) if errs else "id sessionls-check, golang, files " + h["files"])
raise SystemExit(1 if errs else 0)
PY
  ); then ok ".pre-commit-hooks.yaml: $out"; else bad ".pre-commit-hooks.yaml: $out"; fi
else
  skip_part ".pre-commit-hooks.yaml shape (python3 has no yaml module)"
fi

# pre-commit's golang hooks run `go install ./...` in the hook repository.
if command -v go >/dev/null 2>&1; then
  if out=$(GOBIN=$tmp/precommit-bin GOFLAGS=-mod=mod GOTOOLCHAIN=local timeout 150 go install ./... 2>&1) &&
    [ -x "$tmp/precommit-bin/sessionls" ]; then
    ok "go install ./... (what pre-commit runs) installs sessionls"
  else
    bad "go install ./...: $out"
  fi
else
  skip_part "go install ./... (no go)"
fi
hook_bin=$bin
[ -x "$tmp/precommit-bin/sessionls" ] && hook_bin=$tmp/precommit-bin/sessionls
# pre-commit appends the staged file names to the entry.
"$hook_bin" check testdata/sessions/clean.jsonl >/dev/null 2>&1
expect_exit "hook entry on clean.jsonl" 0 $?
"$hook_bin" check testdata/sessions/clean.jsonl testdata/sessions/demo.jsonl >"$tmp/hook.out" 2>&1
expect_exit "hook entry on clean.jsonl demo.jsonl" 1 $?
if grep -q 'demo.jsonl' "$tmp/hook.out"; then ok "hook output names demo.jsonl"; else bad "hook output: $(head -3 "$tmp/hook.out")"; fi

# ------------------------------------------------- editors/helix/languages.toml
if python3 -c 'import tomllib' 2>/dev/null; then
  if out=$(python3 - <<'PY' 2>&1
import tomllib
doc = tomllib.load(open("editors/helix/languages.toml", "rb"))
errs = []
langs = [l for l in doc.get("language", []) if l.get("name") == "jsonl"]
if len(langs) != 1:
    raise SystemExit("no single [[language]] named jsonl")
l = langs[0]
for k, v in {"file-types": ["jsonl"], "roots": [], "language-servers": ["sessionls"],
             "grammar": "json", "scope": "source.jsonl", "auto-format": False}.items():
    if l.get(k) != v:
        errs.append(f"language.{k} is {l.get(k)!r}, want {v!r}")
srv = doc.get("language-server", {}).get("sessionls", {})
if srv.get("command") != "sessionls" or srv.get("args") != ["serve"]:
    errs.append(f"language-server.sessionls is {srv!r}")
b = srv.get("config", {}).get("budget")
if not (isinstance(b, int) and b > 0):
    errs.append(f"config.budget is {b!r}, want a positive integer")
q = open("editors/helix/runtime/queries/jsonl/highlights.scm").read().strip()
if q != "; inherits: json":
    errs.append(f"highlights.scm is {q!r}")
print("\n".join(errs) if errs else "language jsonl -> sessionls serve, budget %d" % b)
raise SystemExit(1 if errs else 0)
PY
  ); then ok "editors/helix/languages.toml: $out"; else bad "editors/helix/languages.toml: $out"; fi
else
  skip_part "helix languages.toml (python3 has no tomllib: needs 3.11+)"
fi

secs=$(( $(date +%s) - start ))
if [ $failures -eq 0 ]; then
  echo "PASS ci: $checks checks in ${secs}s${skipped:+ (skipped$skipped)}"
  exit 0
fi
echo "FAIL ci: $failures of $checks checks failed (${secs}s)"
exit 1

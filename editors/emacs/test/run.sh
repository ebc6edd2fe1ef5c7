#!/usr/bin/env bash
# End-to-end test of editors/emacs/sessionls.el with eglot in batch Emacs.
#   SESSIONLS_BIN=/path/to/sessionls bash editors/emacs/test/run.sh
# Prints one PASS/FAIL (or SKIP) line last; exits 0 on PASS/SKIP, 1 on FAIL.
# Without emacs or eglot it installs emacs-nox and elpa-eglot with apt-get;
# if that is not possible it skips, unless CI is set, where it fails.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=emacs
. "$here/../../test/lib.sh"

have_eglot() {
  command -v emacs >/dev/null 2>&1 &&
    emacs --batch --eval '(kill-emacs (if (locate-library "eglot") 0 1))' >/dev/null 2>&1
}
need "emacs or eglot" have_eglot emacs-nox elpa-eglot

scratch

# The README's Emacs setup, as written, in `emacs -Q` (no init file, no
# site-start, no package activation: nothing loads eglot for it). The
# snippet must find eglot itself (Debian's elpa-eglot on Emacs 28), and a
# session buffer must get its mode and run eglot-ensure.
readme_setup() {
  local snippet
  snippet=$(awk '/\*\*Emacs/ { f = 1 } f && /```elisp/ { g = 1; next } g && /```/ { exit } g { print }' "$repo/README.md")
  [ -n "$snippet" ] || fail "no elisp block in README.md's Emacs entry"
  snippet=${snippet//\/path\/to\/sessionls/$repo}
  printf '%s\n' "$snippet" >"$tmp/readme-setup.el"
  printf '{"role":"user","content":"hi"}\n' >"$tmp/readme.jsonl"
  (cd "$tmp" && HOME=$tmp timeout -k 5 60 emacs -Q --batch -l "$tmp/readme-setup.el" --eval '
    (progn
      (setq sessionls-program "'"$bin"'")
      (advice-add (quote eglot-ensure) :override (lambda () (setq st-ensured t)))
      (defvar st-ensured nil)
      (condition-case err
          (progn (find-file "readme.jsonl")
                 (unless (eq major-mode (quote sessionls-jsonl-mode)) (error "major mode is %s" major-mode))
                 (with-current-buffer "*Messages*"
                   (when (string-match-p "void-function\\|mode specification error" (buffer-string))
                     (error "%s" (buffer-string))))
                 (unless st-ensured (error "eglot-ensure did not run"))
                 (kill-emacs 0))
        (error (message "README setup: %S" err) (kill-emacs 1))))') >"$tmp/readme.out" 2>&1
}
if readme_setup; then
  echo "ok   the README's Emacs setup works under emacs -Q (mode set, eglot-ensure run)"
else
  cat "$tmp/readme.out"
  fail "the README's Emacs setup fails under emacs -Q"
fi

# A large session (15 MB from bench/gen): lenses after opening it and after
# one typed character, timed. Lens placement was quadratic and jsonrpc
# pretty-printed the whole document into its events buffer: such a file got
# no lenses within 150 s and one typed character froze Emacs for minutes.
if (cd "$repo" && go run ./bench/gen -size 15M -o "$tmp/big.jsonl") 2>"$tmp/gen.err"; then
  if big=$(cd "$tmp" && HOME=$tmp SESSIONLS_BIN=$bin SESSIONLS_EL_DIR=$repo/editors/emacs \
      SESSIONLS_FILE=$tmp/big.jsonl timeout -k 5 150 emacs --batch -l "$here/big.el" </dev/null 2>"$tmp/big.err"); then
    echo "$big" | grep -v '^ALL OK'
  else
    echo "$big"; tail -n 20 "$tmp/big.err"
    fail "large session: $(echo "$big" | grep '^ERROR ' | head -1)"
  fi
  rm -f "$tmp/big.jsonl"
else
  cat "$tmp/gen.err"
  fail "cannot generate the large session with bench/gen"
fi

run_suite env HOME="$tmp" SESSIONLS_BIN="$bin" SESSIONLS_EL_DIR="$repo/editors/emacs" \
  SESSIONLS_FILE="$tmp/session.jsonl" SESSIONLS_TMP="$tmp" \
  emacs --batch -l "$here/test.el"

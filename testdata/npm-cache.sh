# Shared by the install.sh scripts of the npm test oracles (sourced): each
# installs the package-lock.json beside it with npm ci outside the source
# tree, idempotently, and prints the directory on stdout. The directory is
# ${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sessionls-ci}/NAME
# (the Go tests look there: $SESSIONLS_CACHE, else
# os.UserCacheDir()/sessionls-ci).

# npm_cache_lock NAME SRC: sets SRC, DIR and want (the hash of SRC's
# lockfile: .complete holds the hash of the lockfile installed, and the
# tests treat an install of another lockfile as missing), and holds NAME's
# lock until the script exits: two runs at once (a developer's and CI's)
# must not install over each other.
npm_cache_lock() {
  local cache=${SESSIONLS_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/sessionls-ci}
  NAME=$1
  SRC=$2
  DIR="$cache/$1"
  want=$(sha256sum "$SRC/package-lock.json" | cut -d' ' -f1)
  mkdir -p "$cache"
  exec 8>"$cache/.$1.lock"
  flock 8
}

# npm_cache_install [VAR=VALUE...]: npm ci into DIR (scripts off, with the
# variables given) unless it holds this lockfile already; prints DIR.
npm_cache_install() {
  if [[ -f "$DIR/.complete" && $(<"$DIR/.complete") == "$want" ]]; then
    echo "$DIR"
    return
  fi
  printf '[%s] npm ci into %s\n' "$NAME" "$DIR" >&2
  rm -rf "$DIR"
  mkdir -p "$DIR"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
  env "$@" npm ci --prefix "$DIR" --ignore-scripts --no-audit --no-fund >&2
  echo "$want" >"$DIR/.complete"
  echo "$DIR"
}

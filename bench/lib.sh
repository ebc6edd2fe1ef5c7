# Shared by the bench scripts, sourced from the repository root: the output
# directory $OUT and the binary $BIN, the generator's $SEED, building,
# generating transcripts, and timing commands under GNU time (which every
# script needs: sourcing fails without it).

OUT=bench/out
BIN=$OUT/sessionls
SEED=${SEED:-1}
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "$(basename "$0"): GNU time (/usr/bin/time) is required" >&2; exit 1; }

# need_node: fail unless node is installed.
need_node() {
	command -v node >/dev/null || { echo "$(basename "$0"): node is required" >&2; exit 1; }
}

# build: sessionls at $BIN.
build() {
	echo "building sessionls..." >&2
	go build -o "$BIN" ./cmd/sessionls
}

# generate FILE SIZE: a transcript of SIZE from bench/gen (seed $SEED),
# unless FILE already holds one.
generate() {
	if [ ! -s "$1" ]; then
		echo "generating $1 ($2, seed $SEED)..." >&2
		go run ./bench/gen -size "$2" -seed "$SEED" -o "$1"
	fi
}

# wall, cpu, rss FILE: from GNU time -v's report, the wall seconds (it
# prints h:mm:ss or m:ss.ss), user + system seconds, and peak RSS in MiB.
wall() {
	awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + p[i]
		printf "%.3f", s }' "$1"
}
cpu() { awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }

# once NAME CMD...: one run of CMD under GNU time; kept in
# $OUT/NAME.{time,out,err,status} when it is the fastest so far (the
# machine may be shared: the best of a few runs is the least disturbed).
once() {
	local name=$1 w best
	shift
	set +e
	/usr/bin/time -v -o "$OUT/$name.try.time" "$@" >"$OUT/$name.try.out" 2>"$OUT/$name.try.err"
	echo $? >"$OUT/$name.try.status"
	set -e
	w=$(wall "$OUT/$name.try.time")
	best=$([ -s "$OUT/$name.time" ] && wall "$OUT/$name.time" || echo "")
	if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
		for ext in time out err status; do mv "$OUT/$name.try.$ext" "$OUT/$name.$ext"; done
	fi
	rm -f "$OUT/$name".try.*
}

# measure NAME CMD...: the fastest of $REPEAT runs of CMD, in $OUT/NAME.*.
measure() {
	local name=$1 r
	shift
	rm -f "$OUT/$name".{time,out,err,status}
	for r in $(seq "$REPEAT"); do
		echo "running $name ($r/$REPEAT): $*" >&2
		once "$name" "$@"
	done
}

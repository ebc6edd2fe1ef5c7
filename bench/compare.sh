#!/usr/bin/env bash
# Compare sessionls with the node reference (the runtime's load + estimate)
# on one large transcript, in one run, so the figures are comparable ratios.
#
#   bench/compare.sh [FILE]        default FILE: bench/out/session-$SIZE.jsonl
#   SIZE=64M bench/compare.sh      generate a smaller file (default 1G)
#   BUDGET=100000                  the budget for `sessionls budget`
#
# Needs go, node and GNU time (/usr/bin/time). Prints a table of wall
# seconds, throughput, peak RSS and the throughput ratio sessionls / node,
# and checks that sessionls's totalChars equals node's.
set -euo pipefail

cd "$(dirname "$0")/.."
SIZE=${SIZE:-1G}
SEED=${SEED:-1}
BUDGET=${BUDGET:-100000}
OUT=bench/out
FILE=${1:-$OUT/session-$SIZE.jsonl}
BIN=$OUT/sessionls
mkdir -p "$OUT"

command -v node >/dev/null || { echo "compare.sh: node is required" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "compare.sh: GNU time (/usr/bin/time) is required" >&2; exit 1; }

echo "building sessionls..." >&2
go build -o "$BIN" ./cmd/sessionls
if [ ! -s "$FILE" ]; then
	echo "generating $FILE ($SIZE, seed $SEED)..." >&2
	go run ./bench/gen -size "$SIZE" -seed "$SEED" -o "$FILE"
fi
BYTES=$(stat -c %s "$FILE")

echo "warming the page cache..." >&2
cat "$FILE" >/dev/null

# measure NAME CMD...: runs CMD under GNU time; records wall seconds, peak
# RSS (KiB) and exit status in $OUT/NAME.{time,out}.
measure() {
	local name=$1
	shift
	echo "running $name: $*" >&2
	set +e
	/usr/bin/time -v -o "$OUT/$name.time" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	echo $? >"$OUT/$name.status"
	set -e
}

measure check "$BIN" check "$FILE"
measure budget "$BIN" budget --max-chars "$BUDGET" "$FILE"
measure budgetjson "$BIN" budget --max-chars "$BUDGET" --format json "$FILE"
measure node node bench/reference.mjs "$FILE"

wall() { # GNU time prints h:mm:ss or m:ss.ss
	awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + p[i]
		printf "%.3f", s }' "$OUT/$1.time"
}
rss() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$OUT/$1.time"; }

NODE_WALL=$(wall node)
printf '\nfile: %s (%s bytes)\n\n' "$FILE" "$BYTES"
printf '| %-45s | %8s | %8s | %13s | %16s | %6s |\n' command "wall s" "MB/s" "peak RSS MiB" "vs node (speed)" exit
printf '|%s|%s|%s|%s|%s|%s|\n' "-----------------------------------------------" "----------" "----------" "---------------" "------------------" "--------"
for name in check budget budgetjson node; do
	w=$(wall $name)
	case $name in
	check) label="sessionls check" ;;
	budget) label="sessionls budget --max-chars $BUDGET" ;;
	budgetjson) label="sessionls budget --max-chars $BUDGET --format json" ;;
	node) label="node bench/reference.mjs (load + estimate)" ;;
	esac
	awk -v l="$label" -v w="$w" -v b="$BYTES" -v r="$(rss $name)" -v nw="$NODE_WALL" -v s="$(cat "$OUT/$name.status")" \
		'BEGIN { printf "| %-45s | %8.2f | %8.0f | %13s | %15.1fx | %6s |\n", l, w, b / 1e6 / w, r, nw / w, s }'
done

# totalChars must agree: sessionls budget --format json vs the reference.
ours=$(grep -o '"totalChars": *[0-9]*' "$OUT/budgetjson.out" | head -n1 | grep -o '[0-9]*$' || true)
theirs=$(grep -o '"totalChars": *[0-9]*' "$OUT/node.out" | head -n1 | grep -o '[0-9]*$' || true)
echo
if [ -n "$ours" ] && [ "$ours" = "$theirs" ]; then
	echo "totalChars agree: $ours"
else
	echo "totalChars DISAGREE: sessionls ${ours:-<none>} (see $OUT/budgetjson.out), node ${theirs:-<none>} (see $OUT/node.out)"
	exit 1
fi

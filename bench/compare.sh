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
printf '| %-50s | %8s | %8s | %13s | %16s | %6s |\n' command "wall s" "MB/s" "peak RSS MiB" "vs node (speed)" exit
printf '|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------------------" "----------" "----------" "---------------" "------------------" "--------"
for name in check budget budgetjson node; do
	w=$(wall $name)
	case $name in
	check) label="sessionls check" ;;
	budget) label="sessionls budget --max-chars $BUDGET" ;;
	budgetjson) label="sessionls budget --max-chars $BUDGET --format json" ;;
	node) label="node bench/reference.mjs (load + estimate)" ;;
	esac
	awk -v l="$label" -v w="$w" -v b="$BYTES" -v r="$(rss $name)" -v nw="$NODE_WALL" -v s="$(cat "$OUT/$name.status")" \
		'BEGIN { printf "| %-50s | %8.2f | %8.0f | %13s | %15.1fx | %6s |\n", l, w, b / 1e6 / w, r, nw / w, s }'
done

# totalChars must agree: sessionls budget --format json vs the reference.
total() { grep -o '"totalChars": *[0-9]*' "$1" | head -n1 | grep -o '[0-9]*$' || true; }
ours=$(total "$OUT/budgetjson.out")
theirs=$(total "$OUT/node.out")
CHECKED=$FILE
if grep -q 'Cannot create a string longer than' "$OUT/budgetjson.out"; then
	# The file is past V8's string limit: the runtime's readFile throws, and
	# sessionls says so (totalChars 0). Check the totals on a file the
	# runtime can read: the generator is deterministic and writes whole
	# rounds, so the same seed at a smaller size is a prefix of this file.
	echo
	echo "$FILE is longer than the runtime can read into one string; sessionls reports:"
	grep -o '"error": *"[^"]*"' "$OUT/budgetjson.out"
	CHECKED=$OUT/session-256M.jsonl
	if [ ! -s "$CHECKED" ]; then
		echo "generating $CHECKED for the totals check..." >&2
		go run ./bench/gen -size 256M -seed "$SEED" -o "$CHECKED"
	fi
	"$BIN" budget --max-chars "$BUDGET" --format json "$CHECKED" >"$OUT/budgetjson-256M.out" || true
	node bench/reference.mjs "$CHECKED" >"$OUT/node-256M.out"
	ours=$(total "$OUT/budgetjson-256M.out")
	theirs=$(total "$OUT/node-256M.out")
fi
echo
if [ -n "$ours" ] && [ "$ours" = "$theirs" ]; then
	echo "totalChars agree on $CHECKED: $ours"
else
	echo "totalChars DISAGREE on $CHECKED: sessionls ${ours:-<none>}, node ${theirs:-<none>} (outputs in $OUT/)"
	exit 1
fi

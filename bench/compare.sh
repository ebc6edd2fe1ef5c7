#!/usr/bin/env bash
# Compare sessionls with the node reference (the runtime's load + estimate)
# on one large transcript, in one run, so the figures are comparable ratios.
#
#   bench/compare.sh [FILE]        default FILE: bench/out/session-$SIZE.jsonl
#   SIZE=64M bench/compare.sh      generate a smaller file (default 1G)
#   BUDGET=100000                  the budget for `sessionls budget`
#   REPEAT=3                       runs per command; the fastest is kept
#
# Needs go, node and GNU time (/usr/bin/time). Prints a table of wall
# seconds, throughput, peak RSS and the throughput ratio sessionls / node,
# and checks that sessionls's totalChars equals node's.
set -euo pipefail

cd "$(dirname "$0")/.."
. bench/lib.sh
need_node
SIZE=${SIZE:-1G}
BUDGET=${BUDGET:-100000}
REPEAT=${REPEAT:-3}
FILE=${1:-$OUT/session-$SIZE.jsonl}

build
generate "$FILE" "$SIZE"
BYTES=$(stat -c %s "$FILE")

echo "warming the page cache..." >&2
cat "$FILE" >/dev/null

measure check "$BIN" check "$FILE"
measure budget "$BIN" budget --max-chars "$BUDGET" "$FILE"
measure budgetjson "$BIN" budget --max-chars "$BUDGET" --format json "$FILE"
measure node node bench/reference.mjs "$FILE"

NODE_WALL=$(wall "$OUT/node.time")
NODE_CPU=$(cpu "$OUT/node.time")
printf '\nfile: %s (%s bytes)\n\n' "$FILE" "$BYTES"
printf 'best of %s runs each; MB/s = 10^6 bytes per wall second; CPU s = user + system;\n' "$REPEAT"
printf 'speed vs node = node wall / wall (higher is faster); CPU vs node = CPU / node CPU (lower is cheaper)\n\n'
printf '| %-50s | %8s | %8s | %8s | %13s | %13s | %13s | %6s |\n' command "wall s" "CPU s" "MB/s" "peak RSS MiB" "speed vs node" "CPU vs node" exit
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------------------" "----------" "----------" "----------" "---------------" "---------------" "---------------" "--------"
for name in check budget budgetjson node; do
	w=$(wall "$OUT/$name.time")
	case $name in
	check) label="sessionls check" ;;
	budget) label="sessionls budget --max-chars $BUDGET" ;;
	budgetjson) label="sessionls budget --max-chars $BUDGET --format json" ;;
	node) label="node bench/reference.mjs (load + estimate)" ;;
	esac
	awk -v l="$label" -v w="$w" -v c="$(cpu "$OUT/$name.time")" -v b="$BYTES" -v r="$(rss "$OUT/$name.time")" \
		-v nw="$NODE_WALL" -v nc="$NODE_CPU" -v s="$(cat "$OUT/$name.status")" \
		'BEGIN { printf "| %-50s | %8.2f | %8.2f | %8.0f | %13s | %12.1fx | %12.2fx | %6s |\n", l, w, c, b / 1e6 / w, r, nw / w, c / nc, s }'
done

# totalChars must agree: sessionls budget --format json vs the reference.
total() { grep -o '"totalChars": *[0-9]*' "$1" | head -n1 | grep -o '[0-9]*$' || true; }
ours=$(total "$OUT/budgetjson.out")
theirs=$(total "$OUT/node.out")
CHECKED=$FILE
if [ "$ours" = 0 ] && [ "${theirs:-0}" != 0 ] && ! grep -q '"error": *"invalid session' "$OUT/budgetjson.out"; then
	# The file is past V8's string limit: the runtime's readFile throws, and
	# sessionls says so (no messages, totalChars 0). Check the totals on a
	# file the runtime can read: the generator is deterministic and writes
	# whole rounds, so the same seed at a smaller size is a prefix of this
	# file.
	echo
	echo "$FILE is longer than the runtime can read into one string; sessionls reports:"
	grep -o '"error": *"[^"]*"' "$OUT/budgetjson.out" || true
	CHECKED=$OUT/session-256M.jsonl
	generate "$CHECKED" 256M
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

#!/usr/bin/env bash
# Token counting throughput: `sessionls budget --tokens` beside js-tiktoken
# counting the same text (JSON.stringify of every normalized message, see
# testdata/oracle/tokens/tokens.mjs total), in one run, so the figures are
# comparable ratios.
#
#   bench/tokens.sh [FILE]         default FILE: bench/out/session-$SIZE.jsonl
#   SIZE=32M                       size of the generated transcript (js-tiktoken
#                                  reads the file as one string and needs minutes)
#   TOKENIZER=o200k_base           or cl100k_base
#   REPEAT=1                       runs per command; the fastest is kept
#   BIG=1G                         also count a transcript of this size alone
#                                  (bench/out/session-$BIG.jsonl; js-tiktoken
#                                  cannot read it): the issue-19 check, within
#                                  60 s on 2 cores at 128 MiB or less
#
# Needs go, node, npm (js-tiktoken is installed into a cache outside the
# tree by testdata/oracle/tokens/install.sh) and GNU time (/usr/bin/time). Prints wall seconds, throughput, peak
# RSS and the ratio, and checks that both count the same total.
set -euo pipefail

cd "$(dirname "$0")/.."
. bench/lib.sh
need_node
SIZE=${SIZE:-32M}
TOKENIZER=${TOKENIZER:-o200k_base}
REPEAT=${REPEAT:-1}
BIG=${BIG:-}
FILE=${1:-$OUT/session-$SIZE.jsonl}
SESSIONLS_TOKENS_ORACLE=$(bash testdata/oracle/tokens/install.sh)
export SESSIONLS_TOKENS_ORACLE

build
generate "$FILE" "$SIZE"
BYTES=$(stat -c %s "$FILE")
cat "$FILE" >/dev/null # warm the page cache

if [ -n "$BIG" ]; then
	BIGFILE=$OUT/session-$BIG.jsonl
	generate "$BIGFILE" "$BIG"
	cat "$BIGFILE" >/dev/null
fi

measure tokens-chars "$BIN" budget --max-chars 100000 --format json "$FILE"
measure tokens-sessionls "$BIN" budget --tokens --tokenizer "$TOKENIZER" --max-chars 100000 --format json "$FILE"
measure tokens-node node testdata/oracle/tokens/tokens.mjs total "$FILE" "$TOKENIZER"
if [ -n "$BIG" ]; then
	measure tokens-big "$BIN" budget --tokens --tokenizer "$TOKENIZER" --max-chars 100000 --format json "$BIGFILE"
fi

NODE_WALL=$(wall "$OUT/tokens-node.time")
NODE_CPU=$(cpu "$OUT/tokens-node.time")
printf '\nfile: %s (%s bytes), tokenizer %s, best of %s run(s), %s cores\n\n' "$FILE" "$BYTES" "$TOKENIZER" "$REPEAT" "$(nproc)"
printf 'speed vs node = node wall / wall; CPU vs node = node CPU / CPU (the work ratio, which a\n'
printf 'loaded machine disturbs less than wall time; node uses one core, sessionls all of them);\n'
printf 'MB/s per core = bytes / CPU seconds\n\n'
printf '| %-52s | %8s | %8s | %8s | %13s | %12s | %13s | %11s | %6s |\n' command "wall s" "CPU s" "MB/s" "MB/s per core" "peak RSS MiB" "speed vs node" "CPU vs node" exit
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "------------------------------------------------------" "----------" "----------" "----------" "---------------" "--------------" "---------------" "-------------" "--------"
names="chars sessionls node"
[ -n "$BIG" ] && names="$names big"
for name in $names; do
	b=$BYTES
	case $name in
	chars) label="sessionls budget (characters only)" ;;
	sessionls) label="sessionls budget --tokens --tokenizer $TOKENIZER" ;;
	node) label="node tokens.mjs total (js-tiktoken)" ;;
	big)
		label="sessionls budget --tokens, $BIG (no node run)"
		b=$(stat -c %s "$BIGFILE")
		;;
	esac
	w=$(wall "$OUT/tokens-$name.time")
	awk -v l="$label" -v w="$w" -v c="$(cpu "$OUT/tokens-$name.time")" -v b="$b" -v r="$(rss "$OUT/tokens-$name.time")" \
		-v nw="$NODE_WALL" -v nc="$NODE_CPU" -v s="$(cat "$OUT/tokens-$name.status")" -v big="$([ $name = big ] && echo 1)" \
		'BEGIN {
			if (big) printf "| %-52s | %8.2f | %8.2f | %8.1f | %13.1f | %12s | %13s | %11s | %6s |\n", l, w, c, b / 1e6 / w, b / 1e6 / c, r, "", "", s
			else printf "| %-52s | %8.2f | %8.2f | %8.1f | %13.1f | %12s | %12.1fx | %10.1fx | %6s |\n", l, w, c, b / 1e6 / w, b / 1e6 / c, r, nw / w, nc / c, s }'
done

if [ -n "$BIG" ]; then
	# Past V8's string limit (about 512 MiB), budget counts every message
	# and then reports the runtime's RangeError with exit 1, as the runtime
	# would refuse the file (see bench/compare.sh).
	printf '\n%s: %s s wall (target: 60 s on 2 cores; %s cores here), peak RSS %s MiB (target: 128 MiB), exit %s, %s tokens%s\n' \
		"$BIGFILE" "$(wall "$OUT/tokens-big.time")" "$(nproc)" "$(rss "$OUT/tokens-big.time")" "$(cat "$OUT/tokens-big.status")" \
		"$(grep -o '"totalTokens": *[0-9]*' "$OUT/tokens-big.out" | head -n1 | grep -o '[0-9]*$' || echo '<none>')" \
		"$(grep -q '"error": "RangeError' "$OUT/tokens-big.out" && echo " (past V8's string limit: the runtime's RangeError, as node would refuse it)")"
fi

num() { grep -o "\"$1\": *[0-9]*" "$2" | head -n1 | grep -o '[0-9]*$' || true; }
ours=$(num totalTokens "$OUT/tokens-sessionls.out")
theirs=$(num totalTokens "$OUT/tokens-node.out")
echo
if [ -n "$ours" ] && [ "$ours" = "$theirs" ]; then
	echo "totalTokens agree: $ours"
else
	echo "totalTokens DISAGREE: sessionls ${ours:-<none>}, js-tiktoken ${theirs:-<none>} (outputs in $OUT/)"
	exit 1
fi

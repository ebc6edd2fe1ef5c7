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
#
# Needs go, node, npm (js-tiktoken is installed into a cache outside the
# tree by testdata/oracle/tokens/install.sh) and GNU time (/usr/bin/time). Prints wall seconds, throughput, peak
# RSS and the ratio, and checks that both count the same total.
set -euo pipefail

cd "$(dirname "$0")/.."
SIZE=${SIZE:-32M}
SEED=${SEED:-1}
TOKENIZER=${TOKENIZER:-o200k_base}
REPEAT=${REPEAT:-1}
OUT=bench/out
FILE=${1:-$OUT/session-$SIZE.jsonl}
BIN=$OUT/sessionls
mkdir -p "$OUT"

command -v node >/dev/null || { echo "tokens.sh: node is required" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "tokens.sh: GNU time (/usr/bin/time) is required" >&2; exit 1; }
SESSIONLS_TOKENS_ORACLE=$(bash testdata/oracle/tokens/install.sh)
export SESSIONLS_TOKENS_ORACLE

echo "building sessionls..." >&2
go build -o "$BIN" ./cmd/sessionls
if [ ! -s "$FILE" ]; then
	echo "generating $FILE ($SIZE, seed $SEED)..." >&2
	go run ./bench/gen -size "$SIZE" -seed "$SEED" -o "$FILE"
fi
BYTES=$(stat -c %s "$FILE")
cat "$FILE" >/dev/null # warm the page cache

wall() {
	awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + p[i]
		printf "%.3f", s }' "$1"
}
cpu() { awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }

measure() { # NAME CMD...: the fastest of REPEAT runs, in $OUT/tokens-NAME.*
	local name=tokens-$1 best="" r w
	shift
	for r in $(seq "$REPEAT"); do
		echo "running $name ($r/$REPEAT): $*" >&2
		set +e
		/usr/bin/time -v -o "$OUT/$name.try.time" "$@" >"$OUT/$name.try.out" 2>"$OUT/$name.try.err"
		echo $? >"$OUT/$name.try.status"
		set -e
		w=$(wall "$OUT/$name.try.time")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w
			for ext in time out err status; do mv "$OUT/$name.try.$ext" "$OUT/$name.$ext"; done
		fi
	done
	rm -f "$OUT/$name".try.*
}

measure chars "$BIN" budget --max-chars 100000 --format json "$FILE"
measure sessionls "$BIN" budget --tokens --tokenizer "$TOKENIZER" --max-chars 100000 --format json "$FILE"
measure node node testdata/oracle/tokens/tokens.mjs total "$FILE" "$TOKENIZER"

NODE_WALL=$(wall "$OUT/tokens-node.time")
NODE_CPU=$(cpu "$OUT/tokens-node.time")
printf '\nfile: %s (%s bytes), tokenizer %s, best of %s run(s), %s cores\n\n' "$FILE" "$BYTES" "$TOKENIZER" "$REPEAT" "$(nproc)"
printf 'speed vs node = node wall / wall; CPU vs node = node CPU / CPU (the work ratio, which a\n'
printf 'loaded machine disturbs less than wall time; node uses one core, sessionls all of them)\n\n'
printf '| %-52s | %8s | %8s | %8s | %12s | %13s | %11s | %6s |\n' command "wall s" "CPU s" "MB/s" "peak RSS MiB" "speed vs node" "CPU vs node" exit
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "------------------------------------------------------" "----------" "----------" "----------" "--------------" "---------------" "-------------" "--------"
for name in chars sessionls node; do
	case $name in
	chars) label="sessionls budget (characters only)" ;;
	sessionls) label="sessionls budget --tokens --tokenizer $TOKENIZER" ;;
	node) label="node tokens.mjs total (js-tiktoken)" ;;
	esac
	w=$(wall "$OUT/tokens-$name.time")
	awk -v l="$label" -v w="$w" -v c="$(cpu "$OUT/tokens-$name.time")" -v b="$BYTES" -v r="$(rss "$OUT/tokens-$name.time")" \
		-v nw="$NODE_WALL" -v nc="$NODE_CPU" -v s="$(cat "$OUT/tokens-$name.status")" \
		'BEGIN { printf "| %-52s | %8.2f | %8.2f | %8.1f | %12s | %12.1fx | %10.1fx | %6s |\n", l, w, c, b / 1e6 / w, r, nw / w, nc / c, s }'
done

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

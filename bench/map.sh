#!/usr/bin/env bash
# The context map's cost beside check's, in one run: for each size, on the
# same transcript (bench/gen, seed $SEED), `sessionls check FILE`,
# `sessionls map --max-chars $BUDGET -o PAGE FILE` and
# `sessionls budget --max-chars $BUDGET --format json FILE`, interleaved
# (check, map, budget, check, map, budget, ...) so that a shared machine's
# load falls on all three alike; the fastest of $REPEAT runs of each is kept.
#
#   bench/map.sh                   sizes 50M and 1G
#   SIZES="50M 256M" REPEAT=5 bench/map.sh
#   TOKENS=1 bench/map.sh          adds map --tokens beside budget --tokens
#                                  (the tokenizer's cost, the same in both)
#
# Needs go and GNU time (/usr/bin/time). Prints, per size, wall and CPU
# seconds, peak RSS, the map's wall and RSS over check's (the target: at
# most 2x, and at most 128 MiB on 1 GiB), the page's size (target: at most
# 5 MB) and its bins; and checks that the page's cutoff is budget's
# firstKeptLine. Also prints the load average before and after: the
# figures mean little on a loaded machine without it.
set -euo pipefail

cd "$(dirname "$0")/.."
. bench/lib.sh
SIZES=${SIZES:-50M 1G}
BUDGET=${BUDGET:-100000}
REPEAT=${REPEAT:-3}

build

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for size in $SIZES; do
	FILE=$OUT/session-$size.jsonl
	generate "$FILE" "$size"
	BYTES=$(stat -c %s "$FILE")
	PAGE=$OUT/map-$size.html
	names="check-$size map-$size budget-$size"
	[ -n "${TOKENS:-}" ] && names="$names maptokens-$size budgettokens-$size"
	for n in $names; do rm -f "$OUT/$n".*; done
	echo "warming the page cache..." >&2
	cat "$FILE" >/dev/null
	for r in $(seq "$REPEAT"); do
		echo "run $r/$REPEAT on $FILE" >&2
		once "check-$size" "$BIN" check "$FILE"
		once "map-$size" "$BIN" map --max-chars "$BUDGET" -o "$PAGE" "$FILE"
		once "budget-$size" "$BIN" budget --max-chars "$BUDGET" --format json "$FILE"
		if [ -n "${TOKENS:-}" ]; then
			once "maptokens-$size" "$BIN" map --tokens --max-chars "$BUDGET" -o "$OUT/map-tokens-$size.html" "$FILE"
			once "budgettokens-$size" "$BIN" budget --tokens --max-chars "$BUDGET" --format json "$FILE"
		fi
	done

	cw=$(wall "$OUT/check-$size.time")
	cr=$(rss "$OUT/check-$size.time")
	printf '\nfile: %s (%s bytes); best of %s interleaved runs each; CPU s = user + system\n\n' "$FILE" "$BYTES" "$REPEAT"
	printf '| %-58s | %7s | %7s | %8s | %12s | %10s | %10s | %4s |\n' command "wall s" "CPU s" "MB/s" "peak RSS MiB" "wall/check" "RSS/check" exit
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "------------------------------------------------------------" "---------" "---------" "----------" "--------------" "------------" "------------" "------"
	for n in $names; do
		case $n in
		check-*) label="sessionls check" ;;
		map-*) label="sessionls map --max-chars $BUDGET -o PAGE" ;;
		budget-*) label="sessionls budget --max-chars $BUDGET --format json" ;;
		maptokens-*) label="sessionls map --tokens --max-chars $BUDGET -o PAGE" ;;
		budgettokens-*) label="sessionls budget --tokens --max-chars $BUDGET --format json" ;;
		esac
		w=$(wall "$OUT/$n.time")
		awk -v l="$label" -v w="$w" -v c="$(cpu "$OUT/$n.time")" -v b="$BYTES" -v r="$(rss "$OUT/$n.time")" \
			-v cw="$cw" -v cr="$cr" -v s="$(cat "$OUT/$n.status")" \
			'BEGIN { printf "| %-58s | %7.2f | %7.2f | %8.0f | %12s | %9.2fx | %9.2fx | %4s |\n", l, w, c, b / 1e6 / w, r, w / cw, r / cr, s }'
	done
	pb=$(stat -c %s "$PAGE")
	bins=$(grep -o 'data-bins="[0-9]*"' "$PAGE" | grep -o '[0-9]*')
	units=$(grep -o 'id="units" hidden data-units="[0-9]*"' "$PAGE" | grep -o '[0-9]*"$' | tr -d '"')
	printf '\npage: %s bytes (%.2f MB), %s units drawn as %s bins\n' "$pb" "$(awk -v b="$pb" 'BEGIN { print b / 1e6 }')" "$units" "$bins"
	# The cutoff drawn is budget's firstKeptLine (none when the file does
	# not load: past V8's string limit, a 1 GiB file cannot).
	want=$(grep -o '"firstKeptLine": *[0-9]*' "$OUT/budget-$size.out" | grep -o '[0-9]*$' || true)
	got=$(grep -o 'id="cutoff"[^>]*data-first-kept-line="[0-9]*"' "$PAGE" | grep -o '[0-9]*"$' | tr -d '"' || true)
	if [ "${want:-none}" = "${got:-none}" ]; then
		echo "cutoff: page and budget agree (firstKeptLine ${want:-none: $(grep -o '"error": *"[^"]\{0,60\}' "$OUT/budget-$size.out" | cut -c11-)})"
	else
		echo "cutoff DISAGREES: page ${got:-none}, budget ${want:-none}"
		exit 1
	fi
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# fuzz-one.sh TARGET PKG FUZZTIME: go test -fuzz TARGET in PKG for FUZZTIME.
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" at the -fuzztime boundary, having found nothing and written no
# input (golang/go#75804, a race between the deadline and its child
# context; fixed in Go 1.27). A run that fails that way, with no new file
# under PKG/testdata/fuzz/TARGET, is run once more; any other failure, or
# one that wrote an input, fails at once.
set -u
target=$1 pkg=$2 fuzztime=$3
go=${GO:-go}
dir="$pkg/testdata/fuzz/$target"
rc=1
for attempt in 1 2; do
	before=$(ls "$dir" 2>/dev/null)
	out=$("$go" test -run XXX -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 200x "$pkg" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 0 ] && exit 0
	after=$(ls "$dir" 2>/dev/null)
	if [ "$before" != "$after" ] || ! grep -q '^    context deadline exceeded$' <<<"$out"; then
		exit "$rc"
	fi
	echo "fuzz-one: $target failed at its -fuzztime deadline with no input written (Go's fuzz coordinator race, golang/go#75804); run $attempt of 2"
done
exit "$rc"

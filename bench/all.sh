#!/usr/bin/env bash
# Runs the bench scripts one after the other on one build of fetch, for the
# README's table: each script's output, with the date, the commit and the
# machine's load before and after, goes to standard output (tee it to a
# file). Every script refuses its figure when the load is above
# BENCH_MAX_LOAD as it starts (bench/lib.sh), so run this on a quiet machine.
#
#   bash bench/all.sh [SCRIPT...]   (default: the set below, in its order)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
scripts=("$@")
if [ ${#scripts[@]} -eq 0 ]; then
	scripts=(start https small-https small bulk crawl crawlmem queue fleetcrawl latency parse many)
fi
export FETCH_BIN=${FETCH_BIN:-$(mktemp -d /tmp/fetch-all.XXXXXX)/fetch}
if [ ! -x "$FETCH_BIN" ]; then
	(cd "$root" && go build -o "$FETCH_BIN" ./cmd/fetch) || exit 1
fi
echo "bench/all.sh: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD), fetch $FETCH_BIN"
rc=0
# cool: wait (at most 3 minutes) for the one-minute load to fall to 1.0:
# the script before raises it, and the next would refuse its figure.
cool() {
	local i
	for ((i = 0; i < 36; i++)); do
		awk '{exit !($1 <= 1.0)}' /proc/loadavg && return
		sleep 5
	done
}
for s in "${scripts[@]}"; do
	cool
	echo
	echo "=== bench/$s.sh (load $(cut -d' ' -f1 /proc/loadavg) as it starts, $(date -u +%H:%M:%S))"
	bash "$here/$s.sh" || { echo "bench/$s.sh: exit $?"; rc=1; }
done
echo
echo "bench/all.sh: done $(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg)"
exit $rc

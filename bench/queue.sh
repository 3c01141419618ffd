#!/usr/bin/env bash
# Jobs per second of the work queue (fetch enqueue / worker) with 1 and 2
# worker processes, and the CPU a job costs (the workers' and the
# nats-server cluster's, user + system) against plain "fetch -K" of the
# same URLs: JOBS small files from a local nginx (started here by
# integration_test/servers/http.sh), queued on Debian's nats-server cluster
# of three (servers/nats.sh, restarted empty for each count), enqueued in
# batches of the default size (fetch enqueue --batch). Each worker
# runs --parallel 16 --per-host 64 --drain; the time is from the first
# worker's start to the last one's exit, and every run is checked: JOBS
# lines in results.jsonl, none twice. fetch -K runs --parallel 16
# --per-host 64 -O into a folder. As every figure of bench/, it is taken on
# a quiet machine only (bench/lib.sh: BENCH_ALLOW_LOAD=1 marks it LOADED).
#
#   bash bench/queue.sh [JOBS]      (default 10000, the issue's count: with
#                                    3000 a run was a third start and drain)
#   QUEUE_OUT=dir    write fetch -K's files and the workers' stores under
#                    dir (default /dev/shm, tmpfs, where there is one)
#   BATCH=N          enqueue with --batch N (default: fetch enqueue's)
#
# The files go to tmpfs by default for the reason bench/small.sh gives: on
# ext4 the file system's own inode allocation (it scans the inodes deleted
# in the last minutes for every file it creates) swamped the workers' CPU
# and moved it threefold from run to run (perf: 60% of a worker's CPU in
# ext4's find_inode_bit and recently_deleted).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
jobs=${1:-10000}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs python3

trap 'bash "$root/integration_test/servers/nats.sh" stop; bash "$root/integration_test/servers/http.sh" stop' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
(cd "$root" && go build -o "$IT_DIR/bin/" ./cmd/fetch ./queue/cmd/fetch-queue)
fetch=$IT_DIR/bin/fetch

# JOBS small files, 1 KiB each of its own random bytes (so that the
# records' digests differ, as a crawl's do: results are published
# compressed), in the nginx root.
mkdir -p "$FETCH_IT_HTTP_ROOT/q"
list=$IT_DIR/queue-urls.txt
python3 - "$FETCH_IT_HTTP_ROOT/q" "$jobs" "http://$FETCH_IT_HTTP_ADDR/q" >"$list" <<'PY'
import os, sys
root, n, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(n):
    with open(f"{root}/{i}.bin", "wb") as f:
        f.write(os.urandom(1024))
    print(f"{base}/{i}.bin")
PY

# server_cpu: the CPU seconds (user + system) the nats-server processes
# have used so far.
server_cpu() {
	local pid t=0 hz
	hz=$(getconf CLK_TCK)
	while read -r pid; do
		[ -r "/proc/$pid/stat" ] || continue
		t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
	done <"$IT_DIR/nats.pids"
	python3 -c "print(f'{$t / $hz:.2f}')"
}

outroot=${QUEUE_OUT:-/dev/shm}
[ -d "$outroot" ] && [ -w "$outroot" ] || outroot=$IT_DIR
outdir=$(mktemp -d "$outroot/fetch-queue-bench.XXXXXX")
trap 'rm -rf "$outdir"; bash "$root/integration_test/servers/nats.sh" stop; bash "$root/integration_test/servers/http.sh" stop' EXIT

figure_start
out=$(mktemp -d "$outdir/plain.XXXXXX")
read -r tp _ cp < <(cd "$out" && measure "$fetch" -s --parallel 16 --per-host 64 -O -K "$list")
n=$(find "$out" -type f | wc -l)
[ "$n" -eq "$jobs" ] || { echo "fetch -K: $n files for $jobs URLs" >&2; exit 1; }
python3 -c "print(f'fetch -K: {$jobs} URLs in {$tp:.2f}s, {$cp / $jobs * 1e6:.0f} us CPU a URL')"
for n in 1 2; do
	bash "$root/integration_test/servers/nats.sh" stop
	bash "$root/integration_test/servers/nats.sh" start
	source "$IT_DIR/nats.env"
	store=$(mktemp -d "$outdir/store.XXXXXX")
	"$fetch" enqueue --nats "$FETCH_IT_NATS_URL" ${BATCH:+--batch "$BATCH"} -K "$list" >/dev/null
	s0=$(server_cpu)
	t0=$(date +%s.%N)
	pids=()
	for ((w = 0; w < n; w++)); do
		measure "$fetch" worker --nats "$FETCH_IT_NATS_URL" --store "$store" -s --parallel 16 --per-host 64 --drain >"$IT_DIR/worker.$w.m" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	t1=$(date +%s.%N)
	s1=$(server_cpu)
	cw=$(cat "$IT_DIR"/worker.*.m | head -n "$n" | awk '{s += $3} END {print s}')
	rm -f "$IT_DIR"/worker.*.m
	lines=$(wc -l <"$store/results.jsonl")
	uniq=$(python3 -c 'import json,sys; print(len({json.loads(l)["url"] for l in open(sys.argv[1])}))' "$store/results.jsonl")
	[ "$lines" -eq "$jobs" ] && [ "$uniq" -eq "$jobs" ] || { echo "workers=$n: $lines lines, $uniq URLs for $jobs jobs" >&2; exit 1; }
	python3 -c "
jobs, wall, cw, cs, cp = $jobs, $t1 - $t0, $cw, $s1 - $s0, $cp
per = (cw + cs) / jobs * 1e6
print(f'workers=$n${BATCH:+, batch $BATCH}: {jobs} jobs in {wall:.2f}s = {jobs / wall:.0f} jobs/s; CPU a job {per:.0f} us (workers {cw / jobs * 1e6:.0f}, servers {cs / jobs * 1e6:.0f}) = {per / (cp / jobs * 1e6):.2f} x fetch -K')"
done
echo "load: $(load)"

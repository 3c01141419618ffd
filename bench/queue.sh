#!/usr/bin/env bash
# Jobs per second of the work queue (fetch enqueue / worker) with 1, 2 and
# 4 worker processes on this machine: JOBS small files from a local nginx
# (started here by integration_test/servers/http.sh), queued on Debian's
# nats-server with JetStream (servers/nats.sh, restarted empty for each
# count). Each worker runs --parallel 16 --per-host 64 --drain; the time is
# from the first worker's start to the last one's exit, and every run is
# checked: JOBS lines in results.jsonl, none twice.
#
#   bash bench/queue.sh [JOBS]      (default 3000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
jobs=${1:-3000}
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

# JOBS small files, 1 KiB each, in the nginx root.
mkdir -p "$FETCH_IT_HTTP_ROOT/q"
head -c 1024 /dev/urandom >"$IT_DIR/one.bin"
list=$IT_DIR/queue-urls.txt
: >"$list"
for ((i = 0; i < jobs; i++)); do
	cp "$IT_DIR/one.bin" "$FETCH_IT_HTTP_ROOT/q/$i.bin"
	echo "http://$FETCH_IT_HTTP_ADDR/q/$i.bin" >>"$list"
done

echo "load before: $(uptime)"
for n in 1 2 4; do
	bash "$root/integration_test/servers/nats.sh" stop
	bash "$root/integration_test/servers/nats.sh" start
	source "$IT_DIR/nats.env"
	store=$(mktemp -d "$IT_DIR/store.XXXXXX")
	"$fetch" enqueue --nats "$FETCH_IT_NATS_URL" -K "$list" >/dev/null
	t0=$(date +%s.%N)
	pids=()
	for ((w = 0; w < n; w++)); do
		"$fetch" worker --nats "$FETCH_IT_NATS_URL" --store "$store" -s --parallel 16 --per-host 64 --drain &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	t1=$(date +%s.%N)
	lines=$(wc -l <"$store/results.jsonl")
	uniq=$(python3 -c 'import json,sys; print(len({json.loads(l)["url"] for l in open(sys.argv[1])}))' "$store/results.jsonl")
	[ "$lines" -eq "$jobs" ] && [ "$uniq" -eq "$jobs" ] || { echo "workers=$n: $lines lines, $uniq URLs for $jobs jobs" >&2; exit 1; }
	python3 -c "print(f'workers={$n}: {$jobs} jobs in {$t1 - $t0:.2f}s = {$jobs / ($t1 - $t0):.0f} jobs/s')"
done
echo "load after: $(uptime)"

#!/usr/bin/env bash
# A fleet crawl of bench/crawl.sh's generated site (PAGES pages, default
# 5000) on a local nginx (integration_test/servers/http.sh), queued on
# Debian's nats-server cluster of three (servers/nats.sh): "fetch enqueue
# -r -l 100" of the site, then WORKERS (default 3) "fetch worker --drain"
# processes, each with a store of its own, --parallel 4 --per-host 4,
# robots.txt obeyed. It checks and prints issue 27's target, counted where
# it happens:
#   - requests: nginx's access log against the site's unique URLs (the
#     pages, index.html, the folder and logo.png), none requested twice,
#     and robots.txt once for the fleet;
#   - stored: the records of the workers' stores (results.jsonl), every
#     URL of the site once across them, none failed.
# It exits 1 when a target is not met. The wall time is printed only on a
# quiet machine (bench/lib.sh's figure_start).
#
#   bash bench/fleetcrawl.sh [PAGES] [WORKERS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
pages=${1:-5000}
workers=${2:-3}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
# The counts are taken whatever the load; the wall time only when the
# machine was quiet (figure_start's mark stays empty).
allow=${BENCH_ALLOW_LOAD:-}
BENCH_ALLOW_LOAD=1
source "$here/lib.sh"
BENCH_ALLOW_LOAD=$allow
need_pkgs python3

trap 'bash "$root/integration_test/servers/nats.sh" stop; bash "$root/integration_test/servers/http.sh" stop' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
bash "$root/integration_test/servers/nats.sh" start
source "$IT_DIR/nats.env"
(cd "$root" && go build -o "$IT_DIR/bin/fetch" ./cmd/fetch)
(cd "$root/queue" && go build -o "$IT_DIR/bin/fetch-queue" ./cmd/fetch-queue)
fetch=$IT_DIR/bin/fetch

# The site of bench/crawl.sh: /site/index.html links to the first page;
# page i links to pages 10i+1 .. 10i+10, to the index, to itself by "./"
# and "../site/" spellings, and to one shared image.
python3 - "$FETCH_IT_HTTP_ROOT/site" "$pages" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
def page(i):
    kids = [k for k in range(10 * i + 1, 10 * i + 11) if k < n]
    links = "".join(f'<a href="p{k}.html">{k}</a>\n' for k in kids)
    return f'<html><body><a href="index.html">home</a> <a href="./p{i}.html">me</a> <a href="../site/p{i}.html">me</a>\n<img src="logo.png">\n{links}</body></html>\n'
for i in range(n):
    with open(os.path.join(d, f"p{i}.html"), "w") as f:
        f.write(page(i))
with open(os.path.join(d, "index.html"), "w") as f:
    f.write('<html><body><a href="p0.html">start</a></body></html>\n')
with open(os.path.join(d, "logo.png"), "wb") as f:
    f.write(b"\x89PNG" + b"\0" * 1000)
PY
unique=$((pages + 3)) # the pages, index.html, /site/ and logo.png
log=$IT_DIR/http/logs/access.log
base=http://$FETCH_IT_HTTP_ADDR/site/
q=(--nats "$FETCH_IT_NATS_URL")

before=$(wc -l <"$log")
"$fetch" enqueue "${q[@]}" -r -l 100 "$base"
BENCH_ALLOW_LOAD=1 figure_start 2>/dev/null
t0=$(date +%s.%N)
pids=()
for ((w = 0; w < workers; w++)); do
	"$fetch" worker "${q[@]}" --store "$IT_DIR/store.$w" -s --parallel 4 --per-host 4 --drain &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
t1=$(date +%s.%N)

# The requests of the crawl: nginx's log since the enqueue, by path.
tail -n +"$((before + 1))" "$log" | awk '{print $7}' | sort | uniq -c | sort -rn >"$IT_DIR/requests.txt"
requests=$(awk '$2 ~ "^/site/" {n += $1} END {print n + 0}' "$IT_DIR/requests.txt")
paths=$(awk '$2 ~ "^/site/" {n++} END {print n + 0}' "$IT_DIR/requests.txt")
twice=$(awk '$1 > 1' "$IT_DIR/requests.txt" | wc -l)
robots=$(awk '$2 == "/robots.txt" {print $1}' "$IT_DIR/requests.txt")
robots=${robots:-0}
others=$(awk '$2 !~ "^/site/" && $2 != "/robots.txt" {n += $1} END {print n + 0}' "$IT_DIR/requests.txt")
# What the stores hold: every record, the URLs, those stored twice, the
# failures.
read -r records stored dup failed < <(python3 - "$IT_DIR" "$workers" <<'PY'
import collections, json, os, sys
d, w = sys.argv[1], int(sys.argv[2])
urls = collections.Counter()
failed = 0
for i in range(w):
    p = os.path.join(d, f"store.{i}", "results.jsonl")
    if not os.path.exists(p):
        continue
    for line in open(p):
        r = json.loads(line)
        urls[r["url"]] += 1
        failed += r["status"] != 0
print(sum(urls.values()), len(urls), sum(1 for n in urls.values() if n > 1), failed)
PY
)
per_worker=$(for ((w = 0; w < workers; w++)); do [ -f "$IT_DIR/store.$w/results.jsonl" ] && wc -l <"$IT_DIR/store.$w/results.jsonl" || echo 0; done | paste -sd' ')

echo "site: $unique unique URLs ($pages pages); $workers workers on nats-server's cluster of 3; load before: $load_before${load_mark}"
echo "requests: $requests for the site's $paths paths ($twice requested more than once, $others elsewhere), robots.txt $robots"
echo "stored: $records records of $stored URLs ($dup stored more than once, $failed failed); by worker: $per_worker"
if [ -z "$load_mark" ]; then
	python3 -c "print(f'wall: {$t1 - $t0:.2f}s from the workers start to the last one exit')"
else
	echo "wall: not reported (the machine was not quiet)"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
ok=1
[ "$requests" -eq "$unique" ] && [ "$paths" -eq "$unique" ] && [ "$twice" -eq 0 ] && [ "$robots" -eq 1 ] || ok=0
[ "$records" -eq "$unique" ] && [ "$stored" -eq "$unique" ] && [ "$dup" -eq 0 ] && [ "$failed" -eq 0 ] || ok=0
if [ "$ok" = 1 ]; then
	echo "target met: every URL requested once and stored once, robots.txt once"
else
	echo "target NOT met (requests by path: $IT_DIR/requests.txt)" >&2
	exit 1
fi

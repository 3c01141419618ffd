#!/usr/bin/env bash
# Compares fetch -r with wget2 -r (wget when wget2 is not installed) on a
# generated site of PAGES pages (default 5000) on a local nginx (started
# here by integration_test/servers/http.sh), at the same politeness
# (--parallel 4, no robots.txt, no parent folder): the requests each made,
# counted in nginx's access log, against the unique URLs of the site; the
# peak RSS and the CPU (user + system) of each; and, on a quiet machine
# only (bench/lib.sh's figure_start), the wall time and its ratio
# fetch/wget2.
#
#   bash bench/crawl.sh [PAGES] [ROUNDS]   (default 5000 pages, 3 alternating rounds, medians; FETCH_BIN=path skips the build)
#
# Targets (issue 25): requests = unique URLs (+ robots.txt); fetch's wall
# <= 0.5 x wget2's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
pages=${1:-5000}
rounds=${2:-3}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
# Requests and RSS are counted whatever the load; the wall time is printed
# only when the machine was quiet (figure_start's mark stays empty).
allow=${BENCH_ALLOW_LOAD:-}
BENCH_ALLOW_LOAD=1
source "$here/lib.sh"
BENCH_ALLOW_LOAD=$allow
need_pkgs python3 time
wget=$(command -v wget2 || true)
if [ -z "$wget" ]; then
	need_pkgs wget2 || true
	wget=$(command -v wget2 || command -v wget)
fi

trap 'bash "$root/integration_test/servers/http.sh" stop' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
fetch=${FETCH_BIN:-$IT_DIR/bin/fetch}
[ -n "${FETCH_BIN:-}" ] || (cd "$root" && go build -o "$fetch" ./cmd/fetch)

# The site (bench/site.py): a tree of PAGES pages under /site/.
python3 "$here/site.py" "$FETCH_IT_HTTP_ROOT/site" "$pages"
unique=$((pages + 3)) # the pages, index.html, /site/ and logo.png
log=$IT_DIR/http/logs/access.log
base=http://$FETCH_IT_HTTP_ADDR/site/

# The mirrors are written to tmpfs (CRAWL_OUT=dir to write them elsewhere):
# on ext4, creating 5,000 files just after the last run deleted 5,000
# costs either tool seconds that vary from run to run (1.3 to 3.6 s for
# the same fetch command), which swamps the crawling.
out=$(mktemp -d "${CRAWL_OUT:-/dev/shm}/fetch-crawl.XXXXXX")
trap 'bash "$root/integration_test/servers/http.sh" stop; rm -rf "$out"' EXIT

# nginx_ticks: the CPU clock ticks (user + system) nginx (one process,
# no master) has used so far.
nginx_ticks() { awk '{print $14 + $15}' "/proc/$(cat "$IT_DIR/http/nginx.pid")/stat"; }

# run NAME CMD...: mirror the site with CMD into a fresh folder; print
# "NAME requests RSS_KIB WALL CPU NGINX_CPU" (CPU: user + system seconds).
run() {
	local name=$1 before after wall rss cpu t0 t1
	shift
	rm -rf "$out"
	mkdir -p "$out"
	before=$(wc -l <"$log")
	t0=$(nginx_ticks)
	read -r wall rss cpu < <(cd "$out" && measure "$@")
	t1=$(nginx_ticks)
	after=$(wc -l <"$log")
	echo "$name $((after - before)) $rss $wall $cpu $(python3 -c "print(($t1 - $t0) / $(getconf CLK_TCK))")"
}

BENCH_ALLOW_LOAD=1 figure_start 2>/dev/null
# The same politeness: four connections to the host each (fetch's
# --per-host is 2 by default; wget2 opens one a thread).
fws=() wws=() fcs=() wcs=() fns=() wns=()
for ((r = 1; r <= rounds; r++)); do
	read -r _ fr fm fw fc fn < <(run fetch "$fetch" -r -l 100 --parallel 4 --per-host 4 --no-robots -s "$base")
	read -r _ wr wm ww wc wn < <(run wget "$wget" -r -l 100 --no-parent -e robots=off --max-threads=4 -q -P . "$base" 2>/dev/null ||
		run wget "$wget" -r -l 100 --no-parent -e robots=off -q -P . "$base")
	fws+=("$fw") wws+=("$ww") fcs+=("$fc") wcs+=("$wc") fns+=("$fn") wns+=("$wn")
done
fw=$(median "${fws[@]}") ww=$(median "${wws[@]}")
echo "site: $unique unique URLs ($pages pages); load before: $load_before${load_mark}"
echo "fetch -r: $fr requests, peak RSS $((fm / 1024)) MiB"
echo "$(basename "$wget") -r: $wr requests, peak RSS $((wm / 1024)) MiB"
# The CPU each spent (user + system, medians), printed whatever the load
# (a loaded machine inflates both): with nginx on the same two cores, the
# CPU is what bounds the wall.
echo "cpu: fetch $(median "${fcs[@]}")s, $(basename "$wget") $(median "${wcs[@]}")s; nginx serving fetch $(median "${fns[@]}")s, serving $(basename "$wget") $(median "${wns[@]}")s (medians of $rounds rounds${load_mark:+, LOADED})"
# The floor of a run's wall on this machine: the CPU of the client and of
# nginx shared by the cores (printed so that a wall target can be judged
# against it).
python3 -c "import os, sys; c, n = float(sys.argv[1]), float(sys.argv[2]); print(f'floor: (fetch + nginx CPU) / {os.cpu_count()} cores = {(c + n) / os.cpu_count():.3f}s')" "$(median "${fcs[@]}")" "$(median "${fns[@]}")"
if [ -z "$load_mark" ]; then
	python3 -c "import sys; f, w = float(sys.argv[1]), float(sys.argv[2]); print(f'wall: fetch {f:.3f}s, $(basename "$wget") {w:.3f}s, ratio {f / w:.3f} (medians of $rounds alternating rounds)')" "$fw" "$ww"
else
	echo "wall: not reported (the machine was not quiet)"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

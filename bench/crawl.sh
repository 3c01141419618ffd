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

# The site: /site/index.html links to the first ten pages; page i links to
# pages 10i+1 .. 10i+10 (a tree, PAGES deep enough), to the index, to
# itself by "./" and "../site/" spellings, and to one shared image.
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

# The mirrors are written to tmpfs (CRAWL_OUT=dir to write them elsewhere):
# on ext4, creating 5,000 files just after the last run deleted 5,000
# costs either tool seconds that vary from run to run (1.3 to 3.6 s for
# the same fetch command), which swamps the crawling.
out=$(mktemp -d "${CRAWL_OUT:-/dev/shm}/fetch-crawl.XXXXXX")
trap 'bash "$root/integration_test/servers/http.sh" stop; rm -rf "$out"' EXIT

# run NAME CMD...: mirror the site with CMD into a fresh folder; print
# "NAME requests RSS_KIB WALL CPU" (CPU: user + system seconds).
run() {
	local name=$1 before after wall rss cpu
	shift
	rm -rf "$out"
	mkdir -p "$out"
	before=$(wc -l <"$log")
	read -r wall rss cpu < <(cd "$out" && measure "$@")
	after=$(wc -l <"$log")
	echo "$name $((after - before)) $rss $wall $cpu"
}

BENCH_ALLOW_LOAD=1 figure_start 2>/dev/null
# The same politeness: four connections to the host each (fetch's
# --per-host is 2 by default; wget2 opens one a thread).
fws=() wws=() fcs=() wcs=()
for ((r = 1; r <= rounds; r++)); do
	read -r _ fr fm fw fc < <(run fetch "$fetch" -r -l 100 --parallel 4 --per-host 4 --no-robots -s "$base")
	read -r _ wr wm ww wc < <(run wget "$wget" -r -l 100 --no-parent -e robots=off --max-threads=4 -q -P . "$base" 2>/dev/null ||
		run wget "$wget" -r -l 100 --no-parent -e robots=off -q -P . "$base")
	fws+=("$fw") wws+=("$ww") fcs+=("$fc") wcs+=("$wc")
done
fw=$(median "${fws[@]}") ww=$(median "${wws[@]}")
echo "site: $unique unique URLs ($pages pages); load before: $load_before${load_mark}"
echo "fetch -r: $fr requests, peak RSS $((fm / 1024)) MiB"
echo "$(basename "$wget") -r: $wr requests, peak RSS $((wm / 1024)) MiB"
# The CPU each spent (user + system, medians), printed whatever the load
# (a loaded machine inflates both): with nginx on the same two cores, the
# CPU is what bounds the wall.
echo "cpu: fetch $(median "${fcs[@]}")s, $(basename "$wget") $(median "${wcs[@]}")s (medians of $rounds rounds${load_mark:+, LOADED})"
if [ -z "$load_mark" ]; then
	python3 -c "import sys; f, w = float(sys.argv[1]), float(sys.argv[2]); print(f'wall: fetch {f:.3f}s, $(basename "$wget") {w:.3f}s, ratio {f / w:.3f} (medians of $rounds alternating rounds)')" "$fw" "$ww"
else
	echo "wall: not reported (the machine was not quiet)"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# The peak RSS of fetch -r -l 1 over one page of LINKS distinct links
# (default 1,000,000: some 52 MB of HTML) on a local nginx, every link in
# scope and kept (each a 404: the frontier's load, not the mirror's), with
# the frontier in memory and with --state. RSS is valid on a loaded
# machine, so it is printed whatever the load; no wall time is.
#
#   bash bench/crawlmem.sh [LINKS]      (FETCH_BIN=path skips the build;
#                                        ONLY=memory or ONLY=state runs one)
#
# Target (issue 25): peak RSS <= 64 MiB for both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
links=${1:-1000000}
own=""
[ -n "${IT_DIR:-}" ] || own=1
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
need_pkgs python3 time

# The page, the access log and the state are hundreds of MB: a folder
# made here goes at the end.
trap 'bash "$root/integration_test/servers/http.sh" stop; [ -z "$own" ] || rm -rf "$IT_DIR"' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
fetch=${FETCH_BIN:-$IT_DIR/bin/fetch}
[ -n "${FETCH_BIN:-}" ] || (cd "$root" && go build -o "$fetch" ./cmd/fetch)

mkdir -p "$FETCH_IT_HTTP_ROOT/m"
python3 - "$FETCH_IT_HTTP_ROOT/m/links.html" "$links" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("<html><body>\n")
    for i in range(n):
        f.write(f'<a href="p/{i:07d}.html">page {i}</a>\n')
    f.write("</body></html>\n")
PY
echo "page: $(stat -c %s "$FETCH_IT_HTTP_ROOT/m/links.html") bytes, $links links"

# rss NAME ARGS...: run fetch -r -l 1 with ARGS in a fresh folder; print
# NAME's peak RSS and the requests it made (nginx's access log).
rss() {
	local name=$1 before after kib
	shift
	rm -rf "$IT_DIR/out"
	mkdir -p "$IT_DIR/out"
	before=$(wc -l <"$IT_DIR/http/logs/access.log")
	(cd "$IT_DIR/out" && /usr/bin/time -f '%M' -o "$IT_DIR/rss" "$fetch" -r -l 1 --parallel 8 --no-robots -s "$@" \
		"http://$FETCH_IT_HTTP_ADDR/m/links.html" >/dev/null 2>"$IT_DIR/stderr") || true
	kib=$(tail -n 1 "$IT_DIR/rss")
	after=$(wc -l <"$IT_DIR/http/logs/access.log")
	echo "$name: peak RSS $((kib / 1024)) MiB ($kib KiB), $((after - before)) requests"
}
[ "${ONLY:-memory}" != memory ] || rss "memory frontier"
[ "${ONLY:-state}" != state ] || rss "--state" --state "$IT_DIR/state"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Many URLs: a -K list of N URLs (default 100,000) of small files on a local
# nginx (started here, on 127.0.0.1), fetched with --parallel 8 to stdout.
# Prints the wall time and the peak RSS for N/5 and for N URLs: memory
# that grew with the number of URLs would show as a higher peak for N.
#
#   bash bench/many.sh [N]        (FETCH_BIN=path: a binary already built)
#
# Target (issue 14): peak RSS <= 64 MiB at N = 100,000, and no growth
# from N/5 to N beyond the list itself.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
n=${1:-100000}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs python3 time

trap 'bash "$root/integration_test/servers/http.sh" stop; rm -f "$IT_DIR/many.txt" "$IT_DIR/few.txt"' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
fetch=$(build_fetch)

mkdir -p "$FETCH_IT_HTTP_ROOT/many"
for i in $(seq 0 99); do
	[ -e "$FETCH_IT_HTTP_ROOT/many/f$i" ] || head -c 512 /dev/urandom >"$FETCH_IT_HTTP_ROOT/many/f$i"
done
python3 - "$n" "http://$FETCH_IT_HTTP_ADDR/many/f" "$IT_DIR/many.txt" "$IT_DIR/few.txt" <<'PY'
import sys
n, base, many, few = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
for name, k in ((many, n), (few, n // 5)):
    with open(name, "w") as f:
        for i in range(k):
            f.write(f"{base}{i % 100}?n={i}\n")
PY
read -r tf mf cf < <(measure "$fetch" -s --parallel 8 --per-host 8 -K "$IT_DIR/few.txt")
read -r tm mm cm < <(measure "$fetch" -s --parallel 8 --per-host 8 -K "$IT_DIR/many.txt")
python3 - "$n" "$(load)" "$tf" "$mf" "$cf" "$tm" "$mm" "$cm" "$(stat -c %s "$IT_DIR/many.txt")" <<'PY'
import sys
n, load = int(sys.argv[1]), sys.argv[2]
tf, mf, cf, tm, mm, cm, size = map(float, sys.argv[3:10])
print(f"-K of {n//5} URLs: {tf:.1f}s, cpu {cf:.1f}s, peak RSS {mf/1024:.1f} MiB; load {load}")
print(f"-K of {n} URLs: {tm:.1f}s, cpu {cm:.1f}s, peak RSS {mm/1024:.1f} MiB (list {size/2**20:.1f} MiB)"
      f" | target <= 64 MiB: {'met' if mm/1024 <= 64 else 'NOT met'}; growth {(mm-mf)/1024:.1f} MiB for {n - n//5} more URLs")
PY

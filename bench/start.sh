#!/usr/bin/env bash
# Process start: `fetch file:///F` against `curl -s file:///F` for a small
# file F, one after the other ROUNDS times; prints the median wall time,
# CPU and peak RSS of each and the ratios. A many-invocation script pays
# this on every call.
#
#   bash bench/start.sh [ROUNDS]    (default 60; FETCH_BIN=path skips the build)
#
# Targets (issue 29): wall <= 1.2 x curl; peak RSS <= curl's.
#
# A third row measures fetch built with CGO_ENABLED=0 (FETCH_STATIC_BIN=path
# to give one; with FETCH_BIN and no FETCH_STATIC_BIN the row is left out):
# a static binary, Go's own DNS resolver, no libc mapped, which takes about
# 1.2 MiB less RSS. The targets are judged on the binary `go build` makes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-60}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3
fetch=$(build_fetch)
static=${FETCH_STATIC_BIN:-}
if [ -z "$static" ] && [ -z "${FETCH_BIN:-}" ]; then
	static=$IT_DIR/bin/fetch-static
	(cd "$root" && CGO_ENABLED=0 go build -o "$static" ./cmd/fetch)
fi
echo hello >"$IT_DIR/small.txt"
f=() c=() s=()
for ((r = 1; r <= rounds; r++)); do
	f+=("$(measure "$fetch" "file://$IT_DIR/small.txt")")
	c+=("$(measure curl -s "file://$IT_DIR/small.txt")")
	if [ -n "$static" ]; then s+=("$(measure "$static" "file://$IT_DIR/small.txt")"); fi
done
python3 - "$rounds" "$(load)" "${f[*]}" "${c[*]}" "${s[*]}" <<'PY'
import statistics, sys
rounds, load, f, c, s = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split(), sys.argv[5].split()
def med(v, i): return statistics.median(float(x) for x in v[i::3])
fw, fr, fc = med(f, 0), med(f, 1), med(f, 2)
cw, cr, cc = med(c, 0), med(c, 1), med(c, 2)
print(f"fetch: wall {fw*1000:.2f} ms, CPU {fc*1000:.2f} ms, peak RSS {fr/1024:.1f} MiB")
print(f"curl:  wall {cw*1000:.2f} ms, CPU {cc*1000:.2f} ms, peak RSS {cr/1024:.1f} MiB")
if s:
    sw, sr, sc = med(s, 0), med(s, 1), med(s, 2)
    print(f"fetch built with CGO_ENABLED=0: wall {sw*1000:.2f} ms ({sw/cw:.2f} x curl), CPU {sc*1000:.2f} ms, peak RSS {sr/1024:.1f} MiB ({sr/cr:.2f} x curl)")
print(f"wall {fw/cw:.2f} x curl (target <= 1.2: {'yes' if fw/cw <= 1.2 else 'no'}); RSS {fr/cr:.2f} x curl (target <= 1.0: {'yes' if fr <= cr else 'no'})")
print(f"medians of {rounds} rounds; load {load}")
PY

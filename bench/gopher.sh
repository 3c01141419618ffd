#!/usr/bin/env bash
# Compares fetch with curl (which speaks gopher) on a 64 MiB binary item
# (type 9) served by a local gophernicus, started here by
# integration_test/servers/gopher.sh. Runs alternate, fetch then curl;
# prints the median of each and the ratio fetch/curl.
#
#   bash bench/gopher.sh [ROUNDS]      (default 11)
#
# Target (issue 5): ratio <= 1.0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-11}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3

trap 'bash "$root/integration_test/servers/gopher.sh" stop' EXIT
GOPHER_BIG_MIB=64 bash "$root/integration_test/servers/gopher.sh" start
source "$IT_DIR/gopher.env"
(cd "$root" && go build -o "$IT_DIR/bin/fetch" ./cmd/fetch)
fetch=$IT_DIR/bin/fetch
item=gopher://$FETCH_IT_GOPHER_ADDR/9/big.bin

# The two must deliver the same bytes before their speed means anything.
want=$(sha256sum "$FETCH_IT_GOPHER_ROOT/big.bin" | cut -d' ' -f1)
for tool in "$fetch" curl; do
	got=$("$tool" -s "$item" | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] || { echo "$tool delivered different bytes" >&2; exit 1; }
done

declare -a f c
# One warm-up run of each, not counted (page cache, first start).
timeit "$fetch" -s "$item" >/dev/null
timeit curl -s "$item" >/dev/null
for ((r = 1; r <= rounds; r++)); do
	f+=("$(timeit "$fetch" -s "$item")")
	c+=("$(timeit curl -s "$item")")
	printf 'round %d: 64 MiB fetch %ss curl %ss\n' "$r" "${f[-1]}" "${c[-1]}"
done

mf=$(median "${f[@]}")
mc=$(median "${c[@]}")
python3 - "$mf" "$mc" "$rounds" <<'PY'
import sys
f, c = map(float, sys.argv[1:3])
print(f"medians of {sys.argv[3]} rounds")
print(f"64 MiB binary item: fetch {f:.3f}s  curl {c:.3f}s  ratio {f/c:.2f}  (target <= 1.0)")
PY

#!/usr/bin/env bash
# Compares fetch with curl on a local nginx (started here, by
# integration_test/servers/http.sh): the 64 MiB file over http and over
# https (HTTP/1.1 for fetch, its default; curl as built, HTTP/2). Runs alternate,
# fetch then curl, stdout to /dev/null; prints the median wall time and
# peak RSS of each and the ratio fetch/curl.
#
#   bash bench/http.sh [ROUNDS]      (default 7; FETCH_BIN=path skips the build)
#
# Targets (issue 4): time ratio <= 1.0; fetch's peak RSS <= 32 MiB.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-7}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3 time

trap 'bash "$root/integration_test/servers/http.sh" stop' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
# FETCH_BIN, when set, names a binary already built.
fetch=${FETCH_BIN:-$IT_DIR/bin/fetch}
[ -n "${FETCH_BIN:-}" ] || (cd "$root" && go build -o "$fetch" ./cmd/fetch)
plain=http://$FETCH_IT_HTTP_ADDR/big.bin
secure=https://$FETCH_IT_HTTPS_ADDR/big.bin
ca=$FETCH_IT_HTTP_CACERT

# measure CMD...: run CMD with stdout to /dev/null; print "SECONDS KIB",
# the wall time and the peak resident set size.
measure() {
	local out t0 t1
	out=$(mktemp)
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$out" "$@" >/dev/null
	t1=$(date +%s%N)
	printf '%s %s\n' "$(python3 -c "print(f'{($t1 - $t0) / 1e9:.4f}')")" "$(cat "$out")"
	rm -f "$out"
}

declare -a ft fm ct cm st sm xt xm
# One warm-up run of each, not counted (page cache, first connections).
measure "$fetch" -s "$plain" >/dev/null
measure curl -s "$plain" >/dev/null
for ((r = 1; r <= rounds; r++)); do
	read -r t m < <(measure "$fetch" -s "$plain")
	ft+=("$t") fm+=("$m")
	read -r t m < <(measure curl -s "$plain")
	ct+=("$t") cm+=("$m")
	read -r t m < <(measure "$fetch" -s --cacert "$ca" "$secure")
	st+=("$t") sm+=("$m")
	read -r t m < <(measure curl -s --cacert "$ca" "$secure")
	xt+=("$t") xm+=("$m")
	printf 'round %d: http fetch %ss %sKiB curl %ss %sKiB; https fetch %ss %sKiB curl %ss %sKiB\n' \
		"$r" "${ft[-1]}" "${fm[-1]}" "${ct[-1]}" "${cm[-1]}" "${st[-1]}" "${sm[-1]}" "${xt[-1]}" "${xm[-1]}"
done

python3 - "$rounds" "$(median "${ft[@]}")" "$(median "${ct[@]}")" "$(median "${fm[@]}")" "$(median "${cm[@]}")" \
	"$(median "${st[@]}")" "$(median "${xt[@]}")" "$(median "${sm[@]}")" "$(median "${xm[@]}")" <<'PY'
import sys
rounds = sys.argv[1]
ft, ct, fm, cm, st, xt, sm, xm = map(float, sys.argv[2:10])
mib = 64 / 1.0
print(f"medians of {rounds} rounds, 64 MiB file from nginx on 127.0.0.1")
print(f"http:  fetch {ft:.3f}s ({mib/ft:.0f} MiB/s)  curl {ct:.3f}s ({mib/ct:.0f} MiB/s)  ratio {ft/ct:.2f}  (target <= 1.0)")
print(f"       peak RSS fetch {fm/1024:.1f} MiB  curl {cm/1024:.1f} MiB  (target: fetch <= 32 MiB)")
print(f"https: fetch {st:.3f}s ({mib/st:.0f} MiB/s)  curl {xt:.3f}s ({mib/xt:.0f} MiB/s)  ratio {st/xt:.2f}")
print(f"       peak RSS fetch {sm/1024:.1f} MiB  curl {xm/1024:.1f} MiB")
PY

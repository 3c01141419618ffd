#!/usr/bin/env bash
# HTTPS bulk: the 64 MiB file from nginx over TLS 1.2 (nginx 1.22 of Debian
# bookworm enables no TLS 1.3 unless told; integration_test/
# servers/http.sh), written with -o to tmpfs, by fetch as it is (HTTP/1.1),
# fetch --http2, curl as built (HTTP/2, which nginx offers) and curl
# --http1.1. Runs alternate; prints the median wall time, peak RSS and CPU
# (user + system, wait4) of each, and the ratios to plain curl.
#
#   bash bench/https.sh [ROUNDS]    (default 7; FETCH_BIN=path skips the build)
#
# Targets (issue 29): fetch's wall <= 0.9 x curl's, CPU <= 1.0 x curl's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-7}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3

out=$(mktemp -d /dev/shm/fetch-https.XXXXXX)
trap 'bash "$root/integration_test/servers/http.sh" stop; rm -rf "$out"' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
fetch=$(build_fetch)
url=https://$FETCH_IT_HTTPS_ADDR/big.bin
ca=$FETCH_IT_HTTP_CACERT

names=("fetch" "fetch --http2" "curl" "curl --http1.1")
declare -A res
for ((r = 1; r <= rounds; r++)); do
	res[0]+=" $(measure "$fetch" -s --cacert "$ca" -o "$out/f" "$url")"
	res[1]+=" $(measure "$fetch" -s --http2 --cacert "$ca" -o "$out/f" "$url")"
	res[2]+=" $(measure curl -s --cacert "$ca" -o "$out/c" "$url")"
	res[3]+=" $(measure curl -s --http1.1 --cacert "$ca" -o "$out/c" "$url")"
	rm -f "$out/f" "$out/c"
done
python3 - "$rounds" "$(load)" "${names[@]}" -- "${res[0]}" "${res[1]}" "${res[2]}" "${res[3]}" <<'PY'
import statistics, sys
args = sys.argv[1:]
rounds, load = args[0], args[1]
sep = args.index("--")
names, runs = args[2:sep], args[sep + 1:]
med = []
for name, text in zip(names, runs):
    v = [float(x) for x in text.split()]
    wall, rss, cpu = (statistics.median(v[i::3]) for i in range(3))
    med.append((name, wall, rss, cpu))
_, cw, _, cc = med[2]
for name, wall, rss, cpu in med:
    print(f"{name:16s} wall {wall:.3f} s ({wall/cw:.2f} x curl)  cpu {cpu:.3f} s ({cpu/cc:.2f} x curl)  peak RSS {rss/1024:.1f} MiB")
f = med[0]
print(f"target (fetch as it is): wall <= 0.9 x curl: {'yes' if f[1]/cw <= 0.9 else 'no'}; cpu <= 1.0 x curl: {'yes' if f[3]/cc <= 1.0 else 'no'}")
print(f"medians of {rounds} rounds; load {load}")
PY

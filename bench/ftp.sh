#!/usr/bin/env bash
# Compares fetch with curl on a local vsftpd (started here, by
# integration_test/servers/ftp.sh): one 64 MiB file, and 200 small files
# (curl with every URL on one command line, so that it too reuses its
# connection; fetch with --parallel 4). Runs alternate, fetch then curl;
# prints the median of each and the ratio fetch/curl.
#
#   bash bench/ftp.sh [ROUNDS]      (default 7)
#
# Targets (issue 3): bulk ratio <= 1.0; small files <= 0.5.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-7}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3

trap 'bash "$root/integration_test/servers/ftp.sh" stop' EXIT
bash "$root/integration_test/servers/ftp.sh" start
source "$IT_DIR/ftp.env"
(cd "$root" && go build -o "$IT_DIR/bin/fetch" ./cmd/fetch)
fetch=$IT_DIR/bin/fetch
base=ftp://$FETCH_IT_FTP_ADDR

small=()
for i in $(seq -f '%03g' 1 "$FETCH_IT_FTP_SMALL"); do small+=("$base/small/f$i.bin"); done

declare -a fb cb fs cs
# One warm-up run of each, not counted (page cache, first logins).
timeit "$fetch" -s "$base/big.bin" >/dev/null
timeit curl -s "$base/big.bin" >/dev/null
for ((r = 1; r <= rounds; r++)); do
	fb+=("$(timeit "$fetch" -s "$base/big.bin")")
	cb+=("$(timeit curl -s "$base/big.bin")")
	fs+=("$(timeit "$fetch" -s --parallel 4 --per-host 4 "${small[@]}")")
	cs+=("$(timeit curl -s "${small[@]}")")
	printf 'round %d: 64 MiB fetch %ss curl %ss; %d small fetch %ss curl %ss\n' \
		"$r" "${fb[-1]}" "${cb[-1]}" "${#small[@]}" "${fs[-1]}" "${cs[-1]}"
done

mfb=$(median "${fb[@]}")
mcb=$(median "${cb[@]}")
mfs=$(median "${fs[@]}")
mcs=$(median "${cs[@]}")
python3 - "$mfb" "$mcb" "$mfs" "$mcs" "${#small[@]}" "$rounds" <<'PY'
import sys
fb, cb, fs, cs = map(float, sys.argv[1:5])
n, rounds = sys.argv[5], sys.argv[6]
print(f"medians of {rounds} rounds")
print(f"64 MiB file:    fetch {fb:.3f}s  curl {cb:.3f}s  ratio {fb/cb:.2f}  (target <= 1.0)")
print(f"{n} small files: fetch {fs:.3f}s  curl {cs:.3f}s  ratio {fs/cs:.2f}  (fetch --parallel 4; target <= 0.5)")
PY

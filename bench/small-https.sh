#!/usr/bin/env bash
# Small files over HTTPS: 1000 files of 1 KiB from nginx
# (integration_test/servers/http.sh, TLS on 127.0.0.1), written with -O
# into a folder on tmpfs, by fetch --parallel P --per-host P as it is
# (HTTP/1.1) against curl -Z --parallel-max P as built (HTTP/2, which
# nginx offers, so all on one connection), with fetch --http2 and
# curl -Z --http1.1 beside them. Runs alternate; prints the median wall
# time and client CPU (user + sys, wait4) per file of each and the ratios
# to plain curl -Z. Then one more run of each, with -v and not timed,
# counts the TLS handshakes each made and how many resumed a session:
# counts the load does not change much (fetch's resumptions depend on how
# many connections are dialed before the first handshake ends).
#
#   bash bench/small-https.sh [ROUNDS] [P]   (default 7 rounds, P = 64)
#   FETCH_BIN=path   measure that binary instead of building one
#   SMALL_OUT=dir    write the files under dir (default /dev/shm; see
#                    bench/small.sh for why tmpfs)
#
# Targets (issue 29): wall <= 0.7 x curl -Z, CPU per file <= curl's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-7}
par=${2:-64}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3

outroot=${SMALL_OUT:-/dev/shm}
[ -d "$outroot" ] && [ -w "$outroot" ] || outroot=$IT_DIR
outroot=$(mktemp -d "$outroot/fetch-small-https.XXXXXX")
trap 'bash "$root/integration_test/servers/http.sh" stop; rm -rf "$outroot"' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
fetch=$(build_fetch)
ca=$FETCH_IT_HTTP_CACERT

mkdir -p "$FETCH_IT_HTTP_ROOT/small"
for i in $(seq -f '%04g' 1 1000); do
	[ -e "$FETCH_IT_HTTP_ROOT/small/f$i.bin" ] || head -c 1024 /dev/urandom >"$FETCH_IT_HTTP_ROOT/small/f$i.bin"
done
urls=()
for i in $(seq -f '%04g' 1 1000); do urls+=("https://$FETCH_IT_HTTPS_ADDR/small/f$i.bin"); done
n=${#urls[@]}

# fresh NAME: a new, empty output folder, $out (removed only at the end;
# see bench/small.sh).
fresh() { out=$outroot/$1 && mkdir -p "$out"; }
check() {
	local got
	got=$(find "$out" -type f | wc -l)
	[ "$got" -eq "$n" ] || { echo "$1 wrote $got files, not $n" >&2; exit 1; }
}

names=("fetch" "fetch --http2" "curl -Z" "curl -Z --http1.1")
# client I ARGS...: the command line of client I writing into $out.
client() {
	case $1 in
	0) echo "$fetch" -s --cacert "$ca" --parallel "$par" --per-host "$par" -O --output-dir "$out" ;;
	1) echo "$fetch" -s --http2 --cacert "$ca" --parallel "$par" --per-host "$par" -O --output-dir "$out" ;;
	2) echo curl -s --no-progress-meter --cacert "$ca" -Z --parallel-max "$par" --remote-name-all --output-dir "$out" ;;
	3) echo curl -s --no-progress-meter --http1.1 --cacert "$ca" -Z --parallel-max "$par" --remote-name-all --output-dir "$out" ;;
	esac
}

fresh warm
$(client 0) "${urls[@]}"
check "fetch (warm-up)"
declare -A res
for ((r = 1; r <= rounds; r++)); do
	for i in 0 1 2 3; do
		fresh "$r-$i"
		# shellcheck disable=SC2046 # the command line is split on purpose
		res[$i]+=" $(measure $(client "$i") "${urls[@]}")"
		check "${names[$i]}"
	done
done
load_line=$(load)

# Counts, from one more run of each with -v, not timed: TLS handshakes
# (fetch: "TLS 1.x, ..." lines; curl: "SSL connection using" lines) and
# how many of them resumed a session.
counts=()
for i in 0 1 2 3; do
	fresh "count-$i"
	# shellcheck disable=SC2046
	cmd=($(client "$i"))
	cmd=("${cmd[@]/#-s/-v}") # -s (the only argument starting so) becomes -v
	"${cmd[@]}" "${urls[@]}" 2>"$out.trace" >/dev/null
	if ((i < 2)); then
		hs=$(grep -c '\* TLS 1\.[0-9], ' "$out.trace" || true)
		re=$(grep -c ', session resumed$' "$out.trace" || true)
	else
		hs=$(grep -c 'SSL connection using' "$out.trace" || true)
		re=$(grep -ci 're-using session' "$out.trace" || true)
	fi
	counts+=("$hs/$re")
done

python3 - "$rounds" "$load_line (files on $(stat -f -c %T "$outroot"))" "$n" "$par" "${names[@]}" -- \
	"${res[0]}" "${res[1]}" "${res[2]}" "${res[3]}" -- "${counts[@]}" <<'PY'
import statistics, sys
args = sys.argv[1:]
rounds, load, n, par = args[0], args[1], int(args[2]), args[3]
s1 = args.index("--")
s2 = args.index("--", s1 + 1)
names, runs, counts = args[4:s1], args[s1 + 1:s2], args[s2 + 1:]
med = []
for name, text in zip(names, runs):
    v = [float(x) for x in text.split()]
    med.append((name, statistics.median(v[0::3]), statistics.median(v[1::3]), statistics.median(v[2::3])))
_, cw, _, cc = med[2]
def ok(b): return "met" if b else "NOT met"
print(f"medians of {rounds} rounds; load {load}")
print(f"https {n} x 1 KiB -O, P = {par}; ratios to curl -Z; TLS handshakes made/resumed in one -v run:")
for (name, wall, rss, cpu), c in zip(med, counts):
    hs, re = c.split("/")
    print(f"  {name:18s} wall {wall:.3f} s ({wall/cw:.2f})  CPU {cpu/n*1e3:.3f} ms/file ({cpu/cc:.2f})  peak RSS {rss/1024:.1f} MiB  handshakes {hs}, resumed {re}")
f = med[0]
print(f"fetch as it is: wall ratio {f[1]/cw:.2f} (<= 0.7: {ok(f[1]/cw <= 0.7)}), CPU ratio {f[3]/cc:.2f} (<= 1.0: {ok(f[3] <= cc)})")
PY

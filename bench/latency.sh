#!/usr/bin/env bash
# Latency: small files through bench/delayproxy, which simulates a round
# trip of RTT (default 20 ms) in front of local servers started here on
# 127.0.0.1 (vsftpd, nginx); for FTP it carries the data connections too.
#   FTP:  200 files of 1 KiB: fetch --parallel 8, curl (every URL on one
#         command line: one connection, sequential) and lftp 'mget -P 8'.
#   HTTP: 1000 files of 1 KiB: fetch --parallel P, curl -Z --parallel-max P.
#   HTTP over two connections (a crawler's politeness cap), 200 of those
#         files: fetch --parallel 2 and curl -Z --parallel-max 2, one request
#         per connection at a time, against fetch --parallel 8 --per-host 2
#         --pipeline 4, four at a time on each (HTTP/1.1 pipelining).
# Runs alternate; prints the median wall time of each and the ratios.
#
#   bash bench/latency.sh [ROUNDS] [P]   (default 3 rounds, P = 64)
#   RTT=50ms, FETCH_BIN=path             (the round trip; a binary already built)
#
# Targets (issue 14): FTP <= 0.25 x curl and <= lftp; HTTP <= curl -Z.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-3}
par=${2:-64}
rtt=${RTT:-20ms}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl lftp python3 time

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; bash "$root/integration_test/servers/http.sh" stop; bash "$root/integration_test/servers/ftp.sh" stop; rm -rf "$IT_DIR/out"' EXIT
bash "$root/integration_test/servers/ftp.sh" start
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/ftp.env"
source "$IT_DIR/http.env"
fetch=$(build_fetch)
(cd "$root" && go build -o "$IT_DIR/bin/delayproxy" ./bench/delayproxy)

# proxy NAME ARGS...: start a delay proxy; its address goes to $IT_DIR/NAME.addr.
proxy() {
	local name=$1
	shift
	"$IT_DIR/bin/delayproxy" -rtt "$rtt" "$@" >"$IT_DIR/$name.addr" &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$IT_DIR/$name.addr" ] && return; sleep 0.1; done
	echo "delayproxy $name did not start" >&2
	exit 1
}
proxy ftpx -ftp -to "$FETCH_IT_FTP_ADDR"
proxy httpx -to "$FETCH_IT_HTTP_ADDR"
fa=$(cat "$IT_DIR/ftpx.addr")
ha=$(cat "$IT_DIR/httpx.addr")

mkdir -p "$FETCH_IT_HTTP_ROOT/small"
for i in $(seq -f '%04g' 1 1000); do
	[ -e "$FETCH_IT_HTTP_ROOT/small/f$i.bin" ] || head -c 1024 /dev/urandom >"$FETCH_IT_HTTP_ROOT/small/f$i.bin"
done
ftpurls=() names=() httpurls=()
for i in $(seq -f '%03g' 1 "$FETCH_IT_FTP_SMALL"); do
	ftpurls+=("ftp://$fa/small/f$i.bin")
	names+=("small/f$i.bin")
done
for i in $(seq -f '%04g' 1 1000); do httpurls+=("http://$ha/small/f$i.bin"); done
nf=${#ftpurls[@]}
nh=${#httpurls[@]}

fresh() { rm -rf "$IT_DIR/out" && mkdir -p "$IT_DIR/out"; }
check() {
	local n
	n=$(find "$IT_DIR/out" -type f | wc -l)
	[ "$n" -eq "$1" ] || { echo "$2 wrote $n files, not $1" >&2; exit 1; }
}
lftp_cmd=(lftp -e "set cmd:fail-exit yes; set net:max-retries 1; mget -P 8 -O $IT_DIR/out ${names[*]}; quit" "ftp://anonymous:x@$fa")

declare -a ff cf lf fh ch f2 c2 fp
polite=("${httpurls[@]:0:200}")
np=${#polite[@]}
for ((r = 1; r <= rounds; r++)); do
	fresh
	read -r t _ _ < <(measure "$fetch" -s --parallel 8 --per-host 8 -O --output-dir "$IT_DIR/out" "${ftpurls[@]}")
	check "$nf" "fetch (ftp)"
	ff+=("$t")
	fresh
	read -r t _ _ < <(measure curl -s --remote-name-all --output-dir "$IT_DIR/out" "${ftpurls[@]}")
	check "$nf" "curl (ftp)"
	cf+=("$t")
	fresh
	read -r t _ _ < <(measure "${lftp_cmd[@]}")
	check "$nf" "lftp"
	lf+=("$t")
	fresh
	read -r t _ _ < <(measure "$fetch" -s --parallel "$par" --per-host "$par" -O --output-dir "$IT_DIR/out" "${httpurls[@]}")
	check "$nh" "fetch (http)"
	fh+=("$t")
	fresh
	read -r t _ _ < <(measure curl -s --no-progress-meter -Z --parallel-max "$par" --remote-name-all --output-dir "$IT_DIR/out" "${httpurls[@]}")
	check "$nh" "curl (http)"
	ch+=("$t")
	fresh
	read -r t _ _ < <(measure "$fetch" -s --parallel 2 --per-host 2 -O --output-dir "$IT_DIR/out" "${polite[@]}")
	check "$np" "fetch (http, 2 connections)"
	f2+=("$t")
	fresh
	read -r t _ _ < <(measure curl -s --no-progress-meter -Z --parallel-max 2 --remote-name-all --output-dir "$IT_DIR/out" "${polite[@]}")
	check "$np" "curl (http, 2 connections)"
	c2+=("$t")
	fresh
	read -r t _ _ < <(measure "$fetch" -s --parallel 8 --per-host 2 --pipeline 4 -O --output-dir "$IT_DIR/out" "${polite[@]}")
	check "$np" "fetch (http, 2 connections, pipelined)"
	fp+=("$t")
	printf 'round %d: ftp fetch %ss curl %ss lftp %ss; http fetch %ss curl %ss; 2 connections: fetch %ss curl %ss pipelined %ss\n' \
		"$r" "${ff[-1]}" "${cf[-1]}" "${lf[-1]}" "${fh[-1]}" "${ch[-1]}" "${f2[-1]}" "${c2[-1]}" "${fp[-1]}"
done

python3 - "$rounds" "$(load)" "$rtt" "$nf" "$nh" "$par" "$(median "${ff[@]}")" "$(median "${cf[@]}")" "$(median "${lf[@]}")" \
	"$(median "${fh[@]}")" "$(median "${ch[@]}")" "$np" "$(median "${f2[@]}")" "$(median "${c2[@]}")" "$(median "${fp[@]}")" <<'PY'
import sys
rounds, load, rtt, nf, nh, par = sys.argv[1:7]
ff, cf, lf, fh, ch = map(float, sys.argv[7:12])
np = sys.argv[12]
f2, c2, fp = map(float, sys.argv[13:16])
def ok(b): return "met" if b else "NOT met"
print(f"medians of {rounds} rounds through a {rtt} round trip; load {load}")
print(f"ftp  {nf} x 1 KiB: fetch --parallel 8 {ff:.2f}s | curl (one connection) {cf:.2f}s | lftp mget -P 8 {lf:.2f}s"
      f" | fetch/curl {ff/cf:.2f} (<= 0.25: {ok(ff/cf <= 0.25)}), fetch/lftp {ff/lf:.2f} (<= 1.0: {ok(ff <= lf)})")
print(f"http {nh} x 1 KiB: fetch --parallel {par} {fh:.2f}s | curl -Z --parallel-max {par} {ch:.2f}s | ratio {fh/ch:.2f} (<= 1.0: {ok(fh <= ch)})")
print(f"http {np} x 1 KiB over 2 connections: fetch --parallel 2 {f2:.2f}s | curl -Z --parallel-max 2 {c2:.2f}s"
      f" | fetch --parallel 8 --per-host 2 --pipeline 4 {fp:.2f}s: {fp/c2:.2f} of curl's time, {fp/f2:.2f} of unpipelined fetch's")
PY

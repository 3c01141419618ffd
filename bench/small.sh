#!/usr/bin/env bash
# Small files, written with -O into a folder: 200 FTP files of 1 KiB from
# vsftpd (fetch --parallel 4; curl with every URL on one command line, one
# connection, sequential) and 1000 HTTP files of 1 KiB from nginx (fetch
# --parallel P against curl -Z --parallel-max P). Servers start here, on
# 127.0.0.1. Runs alternate, fetch then curl; prints the median wall time
# and the median client CPU (user+sys) per file of each, and the ratios.
#
#   bash bench/small.sh [ROUNDS] [P]      (default 7 rounds, P = 64)
#   FETCH_BIN=path   measure that binary instead of building one
#   SMALL_OUT=dir    write the files under dir (default: /dev/shm, tmpfs,
#                    where there is one; else under the bench's own folder)
#
# The files go to tmpfs by default because on ext4 the file system's own
# cost swamps both clients' and moves from run to run: ext4 scans the
# inodes deleted in the last minutes for every file it creates, so a run
# after another run's clean-up (or anything else that deleted files on
# that disk) costs either client up to three times as much CPU, and the
# ratios drift towards 1. SMALL_OUT=/some/ext4/folder measures on disk.
#
# Targets (issue 14): CPU per file <= curl's; wall <= 0.7 x curl -Z (HTTP),
# <= 1.0 x curl (FTP).
#
# The HTTP rounds also time bench/layers, the same 1000 files fetched with
# fetch's layers peeled off one at a time (fetch.Batch without the CLI;
# fetch.Client.Do without the Batch; no fetch at all, plain sockets), and
# print what each costs: where fetch's time per file goes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-7}
par=${2:-64}
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3 time

outroot=${SMALL_OUT:-/dev/shm}
[ -d "$outroot" ] && [ -w "$outroot" ] || outroot=$IT_DIR
outroot=$(mktemp -d "$outroot/fetch-small.XXXXXX")
trap 'bash "$root/integration_test/servers/http.sh" stop; bash "$root/integration_test/servers/ftp.sh" stop; rm -rf "$outroot"' EXIT
bash "$root/integration_test/servers/ftp.sh" start
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/ftp.env"
source "$IT_DIR/http.env"
fetch=$(build_fetch)
layers=$IT_DIR/bin/layers
(cd "$root" && go build -o "$layers" ./bench/layers)

mkdir -p "$FETCH_IT_HTTP_ROOT/small"
for i in $(seq -f '%04g' 1 1000); do
	[ -e "$FETCH_IT_HTTP_ROOT/small/f$i.bin" ] || head -c 1024 /dev/urandom >"$FETCH_IT_HTTP_ROOT/small/f$i.bin"
done
ftpurls=() httpurls=()
for i in $(seq -f '%03g' 1 "$FETCH_IT_FTP_SMALL"); do ftpurls+=("ftp://$FETCH_IT_FTP_ADDR/small/f$i.bin"); done
for i in $(seq -f '%04g' 1 1000); do httpurls+=("http://$FETCH_IT_HTTP_ADDR/small/f$i.bin"); done
nf=${#ftpurls[@]}
nh=${#httpurls[@]}

# fresh NAME: a new, empty output folder, $out. Folders are removed only
# at the end: creating files right after deleting as many makes ext4 scan
# its recently deleted inodes, which costs either client more than its own
# work, and unevenly.
fresh() { out=$outroot/$1 && mkdir -p "$out"; }
check() {
	local n
	n=$(find "$out" -type f | wc -l)
	[ "$n" -eq "$1" ] || { echo "$2 wrote $n files, not $1" >&2; exit 1; }
}

declare -a fft ffc cft cfc fht fhc cht chc
declare -A lt lc
fresh warm
"$fetch" -s --parallel 4 --per-host 4 -O --output-dir "$out" "${ftpurls[@]}"
check "$nf" "fetch (ftp)"
for ((r = 1; r <= rounds; r++)); do
	fresh "$r-ftp-fetch"
	read -r t m c < <(measure "$fetch" -s --parallel 4 --per-host 4 -O --output-dir "$out" "${ftpurls[@]}")
	check "$nf" "fetch (ftp)"
	fft+=("$t") ffc+=("$c")
	fresh "$r-ftp-curl"
	read -r t m c < <(measure curl -s --remote-name-all --output-dir "$out" "${ftpurls[@]}")
	check "$nf" "curl (ftp)"
	cft+=("$t") cfc+=("$c")
	fresh "$r-http-fetch"
	read -r t m c < <(measure "$fetch" -s --parallel "$par" --per-host "$par" -O --output-dir "$out" "${httpurls[@]}")
	check "$nh" "fetch (http)"
	fht+=("$t") fhc+=("$c")
	fresh "$r-http-curl"
	read -r t m c < <(measure curl -s --no-progress-meter -Z --parallel-max "$par" --remote-name-all --output-dir "$out" "${httpurls[@]}")
	check "$nh" "curl (http)"
	cht+=("$t") chc+=("$c")
	for m in batch do raw; do
		fresh "$r-http-$m"
		read -r t _ c < <(measure "$layers" -mode "$m" -p "$par" -dir "$out" "${httpurls[@]}")
		check "$nh" "layers -mode $m"
		lt[$m]+=" $t" lc[$m]+=" $c"
	done
done

fstype=$(stat -f -c %T "$outroot")
python3 - "$rounds" "$(load) (files on $fstype)" "$nf" "$nh" "$par" \
	"$(median "${fft[@]}")" "$(median "${cft[@]}")" "$(median "${ffc[@]}")" "$(median "${cfc[@]}")" \
	"$(median "${fht[@]}")" "$(median "${cht[@]}")" "$(median "${fhc[@]}")" "$(median "${chc[@]}")" \
	"$(median ${lt[batch]})" "$(median ${lc[batch]})" "$(median ${lt[do]})" "$(median ${lc[do]})" \
	"$(median ${lt[raw]})" "$(median ${lc[raw]})" <<'PY'
import sys
rounds, load, nf, nh, par = sys.argv[1:6]
nf, nh = int(nf), int(nh)
fft, cft, ffc, cfc, fht, cht, fhc, chc = map(float, sys.argv[6:14])
lbt, lbc, ldt, ldc, lrt, lrc = map(float, sys.argv[14:20])
def ok(b): return "met" if b else "NOT met"
print(f"medians of {rounds} rounds; load {load}")
print(f"ftp  {nf} x 1 KiB -O: fetch --parallel 4 {fft:.3f}s, {ffc/nf*1e3:.2f} ms CPU/file | curl (sequential) {cft:.3f}s, {cfc/nf*1e3:.2f} ms CPU/file"
      f" | wall ratio {fft/cft:.2f} (<= 1.0: {ok(fft/cft <= 1.0)}), CPU ratio {ffc/cfc:.2f} (<= 1.0: {ok(ffc <= cfc)})")
print(f"http {nh} x 1 KiB -O: fetch --parallel {par} {fht:.3f}s, {fhc/nh*1e3:.2f} ms CPU/file | curl -Z --parallel-max {par} {cht:.3f}s, {chc/nh*1e3:.2f} ms CPU/file"
      f" | wall ratio {fht/cht:.2f} (<= 0.7: {ok(fht/cht <= 0.7)}), CPU ratio {fhc/chc:.2f} (<= 1.0: {ok(fhc <= chc)})")
def row(what, t, c):
    return f"  {what:44s} {t:.3f}s  {c/nh*1e3:.3f} ms CPU/file  ({c/fhc:.2f} of fetch's CPU, {c/chc:.2f} of curl's)"
print(f"http, by layer (bench/layers, medians of the same rounds):")
print(row("fetch (the program)", fht, fhc))
print(row("fetch.Batch over a Client, no CLI", lbt, lbc))
print(row("fetch.Client.Do from P goroutines, no Batch", ldt, ldc))
print(row("plain sockets, no fetch", lrt, lrc))
print(row("curl -Z", cht, chc))
PY

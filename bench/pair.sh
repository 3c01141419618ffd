#!/usr/bin/env bash
# Paired A/B of commands on the 1000 small HTTP files of bench/small.sh:
# in each round every command fetches them once, in turn, into a fresh
# folder on tmpfs; printed are, for each command after the first, the
# median over rounds of its CPU (user+sys, wait4's rusage) and wall time
# as ratios to the first command's in the same round, then each command's
# medians (with user and system time apart). Pairing within a round cancels most of the machine's drift,
# which moves a single run's figures by 10% and more.
#
#   bash bench/pair.sh ROUNDS 'CMD0' 'CMD1' ...
#
# Each CMD is split into words and gets the output folder, then the URLs,
# appended; $URLS in it is the file listing the URLs (for commands that
# read a list), $FETCH a fetch built from this tree. A CMD that starts
# with the word "stdout:" gets the URLs alone and writes the bodies to its
# standard output (to /dev/null): what the files themselves cost is the
# difference from the same command with -O. For example:
#
#   bash bench/pair.sh 21 "$PWD/old-fetch -s --parallel 64 --per-host 64 -O --output-dir" \
#       '$FETCH -s --parallel 64 --per-host 64 -O --output-dir'
#   bash bench/pair.sh 21 '$FETCH -s --parallel 64 --per-host 64 -O --output-dir' \
#       'env GOGC=200 $FETCH -s --parallel 64 --per-host 64 -O --output-dir'
#   bash bench/pair.sh 15 '$FETCH -s --parallel 64 --per-host 64 -O --output-dir' \
#       'stdout: $FETCH -s --parallel 64 --per-host 64'
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bash bench/pair.sh ROUNDS 'CMD0' 'CMD1' ..." >&2; exit 2; }
rounds=$1
shift
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-bench.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$root/integration_test/lib.sh"
source "$here/lib.sh"
need_pkgs curl python3

trap 'bash "$root/integration_test/servers/http.sh" stop' EXIT
bash "$root/integration_test/servers/http.sh" start
source "$IT_DIR/http.env"
FETCH=$(build_fetch)
export FETCH
mkdir -p "$FETCH_IT_HTTP_ROOT/small"
for i in $(seq -f '%04g' 1 1000); do
	[ -e "$FETCH_IT_HTTP_ROOT/small/f$i.bin" ] || head -c 1024 /dev/urandom >"$FETCH_IT_HTTP_ROOT/small/f$i.bin"
done
URLS=$IT_DIR/urls.txt
export URLS
seq -f "http://$FETCH_IT_HTTP_ADDR/small/f%04g.bin" 1 1000 >"$URLS"
outroot=/dev/shm
[ -d "$outroot" ] && [ -w "$outroot" ] || outroot=$IT_DIR

python3 - "$rounds" "$outroot" "$(load)" "$@" <<'PY'
import os, shlex, shutil, statistics, sys, tempfile, time
rounds, outroot, load, cmds = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
cmds = [[os.path.expandvars(w) for w in shlex.split(c)] for c in cmds]
tostdout = [c[:1] == ["stdout:"] for c in cmds]
cmds = [c[1:] if s else c for c, s in zip(cmds, tostdout)]
urls = open(os.environ["URLS"]).read().split()
base = tempfile.mkdtemp(prefix="fetch-pair.", dir=outroot)
res = [[] for _ in cmds]  # (wall, cpu) per round
try:
    for r in range(rounds):
        for j, c in enumerate(cmds):
            out = os.path.join(base, f"{r}-{j}")
            os.mkdir(out)
            t0 = time.monotonic_ns()
            pid = os.fork()
            if pid == 0:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                try:
                    os.execvp(c[0], c + urls if tostdout[j] else c + [out] + urls)
                finally:
                    os._exit(127)
            _, status, ru = os.wait4(pid, 0)
            t1 = time.monotonic_ns()
            if status != 0:
                sys.exit(f"{' '.join(c)}: exit status {os.waitstatus_to_exitcode(status)}")
            if not tostdout[j] and len(os.listdir(out)) != len(urls):
                sys.exit(f"{' '.join(c)}: wrote {len(os.listdir(out))} files, not {len(urls)}")
            res[j].append(((t1 - t0) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_utime * 1e3, ru.ru_stime * 1e3))
finally:
    shutil.rmtree(base)
print(f"{rounds} rounds, load {load}")
for j in range(1, len(cmds)):
    cr = sorted(b[1] / a[1] for a, b in zip(res[0], res[j]))
    wr = sorted(b[0] / a[0] for a, b in zip(res[0], res[j]))
    q = lambda v, f: v[int(f * (len(v) - 1))]
    print(f"cmd{j} / cmd0: CPU {statistics.median(cr):.3f} (quartiles {q(cr, .25):.3f}-{q(cr, .75):.3f}),"
          f" wall {statistics.median(wr):.3f} (quartiles {q(wr, .25):.3f}-{q(wr, .75):.3f})")
for j, c in enumerate(cmds):
    w, cpu, usr, sys_ = (statistics.median(x[k] for x in res[j]) for k in range(4))
    print(f"cmd{j}: wall {w:.1f} ms, CPU {cpu:.1f} ms (user {usr:.1f}, system {sys_:.1f})  ({' '.join(c)[:100]})")
PY

# Shared functions of the bench scripts, sourced after integration_test/lib.sh.

# timeit CMD...: run CMD with stdout to /dev/null, print the seconds taken.
timeit() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null
	t1=$(date +%s.%N)
	python3 -c "print(f'{$t1 - $t0:.4f}')"
}

# median X...: print the median of the numbers.
median() { python3 -c 'import statistics,sys; print(f"{statistics.median(float(x) for x in sys.argv[1:]):.4f}")' "$@"; }

# measure CMD...: run CMD with stdout to /dev/null; print "WALL KIB CPU":
# the wall seconds, the peak resident set size in KiB, and the CPU seconds
# (user + system) of the command and its children, from wait4(2)'s
# rusage to the microsecond (time(1) rounds them to 10 ms, a tenth of
# what 1000 small files cost). A command that fails fails the script.
measure() {
	python3 -c '
import os, sys, time
t0 = time.monotonic_ns()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
t1 = time.monotonic_ns()
if status != 0:
    sys.exit(f"{sys.argv[1]}: exit status {os.waitstatus_to_exitcode(status)}")
print(f"{(t1 - t0) / 1e9:.4f} {ru.ru_maxrss} {ru.ru_utime + ru.ru_stime:.4f}")
' "$@"
}

# load: the machine's load averages, to print beside every figure.
load() { cut -d' ' -f1-3 /proc/loadavg; }

# build_fetch: build cmd/fetch into $IT_DIR/bin/fetch unless FETCH_BIN names
# a binary already built; print its path.
build_fetch() {
	if [ -n "${FETCH_BIN:-}" ]; then
		echo "$FETCH_BIN"
		return
	fi
	(cd "$root" && go build -o "$IT_DIR/bin/fetch" ./cmd/fetch)
	echo "$IT_DIR/bin/fetch"
}

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

# A figure is taken on a quiet machine or not at all: figure_start, called
# before each figure's runs (and once when this file is sourced), reads the
# one-minute load and refuses to go on when it is above BENCH_MAX_LOAD (1.5:
# other work on the same two cores would be measured, not fetch). With
# BENCH_ALLOW_LOAD=1 the figure is taken anyway and marked LOADED wherever
# its load is printed.
figure_start() {
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	load_mark=""
	local one=${load_before%% *} max=${BENCH_MAX_LOAD:-1.5}
	if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$one" "$max"; then
		return 0
	fi
	if [ -n "${BENCH_ALLOW_LOAD:-}" ]; then
		load_mark=" LOADED (above $max before the runs: the figure measures other work too)"
		echo "warning: load $one is above $max; taking the figure anyway, marked LOADED" >&2
		return 0
	fi
	echo "refusing to take a figure: the load is $one, above $max (something else is running; BENCH_ALLOW_LOAD=1 takes it anyway, marked)" >&2
	exit 3
}

# load: the machine's load averages before the figure's runs and now, to
# print beside every figure, with the LOADED mark when it was overridden.
load() { echo "before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)$load_mark"; }

figure_start

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

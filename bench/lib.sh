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
# (user + system) of the command and its children.
measure() {
	local out t0 t1
	out=$(mktemp)
	t0=$(date +%s%N)
	/usr/bin/time -f '%M %U %S' -o "$out" "$@" >/dev/null
	t1=$(date +%s%N)
	read -r kib usr sys <"$out"
	rm -f "$out"
	python3 -c "print(f'{($t1 - $t0) / 1e9:.4f} $kib {$usr + $sys:.2f}')"
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

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

#!/usr/bin/env bash
# bench/parse.sh: our URL parser against net/url over the real-world corpus
# (/work/shared/corpus/urls-realworld.txt, or $FETCH_URL_CORPUS is not used:
# the benchmarks skip when the corpus is absent). Prints the medians of
# -count runs (benchstat when installed) and the CPU-time ratio measured by
# BenchmarkParseVsNetURL, which alternates the two parsers in batches so
# both see the same machine load. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'BenchmarkParse$|BenchmarkNetURLParse$|BenchmarkParseVsNetURL$' \
	-benchtime=1s -count="$count" ./url/ | tee "$out"
echo
if command -v benchstat >/dev/null 2>&1; then
	benchstat "$out"
else
	echo "(benchstat not installed: go install golang.org/x/perf/cmd/benchstat@latest)"
fi
# Medians and ratio, without benchstat.
awk '
/^BenchmarkParse-/       { p[np++] = $3 }
/^BenchmarkNetURLParse-/ { n[nn++] = $3 }
/^BenchmarkParseVsNetURL-/ {
	for (i = 3; i < NF; i++) if ($(i+1) == "ratio") r[nr++] = $i
}
function median(a, k,   i, j, t) {
	for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[int(k/2)] : (a[k/2-1] + a[k/2]) / 2
}
END {
	if (np && nn) printf "median wall ns/URL: ours %.1f, net/url %.1f, ratio %.2f\n", median(p, np), median(n, nn), median(p, np) / median(n, nn)
	if (nr) printf "median CPU-time ratio (alternating): %.2f\n", median(r, nr)
}' "$out"

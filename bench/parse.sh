#!/usr/bin/env bash
# bench/parse.sh: our URL parser against net/url over the real-world corpus
# ($FETCH_URL_CORPUS, by default /work/shared/corpus/urls-realworld.txt; it
# is not in the repository, and the benchmark skips without it).
# bench/parse's BenchmarkVsNetURL alternates the two parsers in batches of
# 1,000 URLs, timing each batch in wall and thread CPU time; this prints
# the medians over COUNT runs of the batch-median ratios and our
# allocations per URL. Not run by CI.
#
#   bash bench/parse.sh          (COUNT=5 by default)
#
# Targets (issue 14): wall and CPU ratio <= 0.5; <= 1 allocation per URL.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # refuses to run on a loaded machine (BENCH_ALLOW_LOAD=1 overrides)
count=${COUNT:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'BenchmarkVsNetURL$' -benchtime=2000x -count="$count" ./bench/parse/ | tee "$out"
echo
awk -v load="$(load)" '
function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
/^BenchmarkVsNetURL/ {
	w[n] = metric("wall-ratio"); c[n] = metric("cpu-ratio"); a[n] = metric("allocs/url")
	ow[n] = metric("ours-cpu-ns/url"); tw[n] = metric("neturl-cpu-ns/url"); n++
}
function median(x, k,   i, j, t, y) {
	for (i = 0; i < k; i++) y[i] = x[i]
	for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (y[j] + 0 < y[i] + 0) { t = y[i]; y[i] = y[j]; y[j] = t }
	return k % 2 ? y[int(k/2)] : (y[k/2-1] + y[k/2]) / 2
}
END {
	if (!n) { print "no result (corpus missing?)"; exit 1 }
	wr = median(w, n); cr = median(c, n); al = median(a, n)
	printf "medians of %d runs (load %s): wall ratio %.2f, CPU ratio %.2f (ours %.0f ns/URL, net/url %.0f ns/URL CPU), %.3f allocs/URL\n", n, load, wr, cr, median(ow, n), median(tw, n), al
	printf "targets: wall <= 0.5 %s, CPU <= 0.5 %s, <= 1 alloc/URL %s\n", (wr <= 0.5 ? "met" : "NOT met"), (cr <= 0.5 ? "met" : "NOT met"), (al <= 1 ? "met" : "NOT met")
}' "$out"

#!/usr/bin/env bash
# Runs the integration tests: builds the fetch and fetch-queue binaries, starts every server
# under servers/ (or those named as arguments) on 127.0.0.1, runs the Go
# tests tagged "integration" against them, and stops the servers.
#
#   bash integration_test/run.sh            # all servers, all tests
#   bash integration_test/run.sh ftp http   # only these servers; tests of the others skip
#   bash integration_test/run.sh none       # no server: the file scheme and CLI tests
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export IT_DIR=${IT_DIR:-$(mktemp -d /tmp/fetch-it.XXXXXX)}
mkdir -p "$IT_DIR/bin"
source "$here/lib.sh"

if [ $# -gt 0 ]; then
	# "none" runs the tests that need no server (the file scheme, the CLI).
	names=()
	for n in "$@"; do
		[ "$n" = none ] && continue
		[ -f "$here/servers/$n.sh" ] || { log "no server script servers/$n.sh"; exit 2; }
		names+=("$n")
	done
	export FETCH_IT_REQUIRE=""
else
	names=()
	for s in "$here"/servers/*.sh; do
		[ -e "$s" ] || continue
		names+=("$(basename "$s" .sh)")
	done
	export FETCH_IT_REQUIRE=1
fi

stop_all() {
	for n in "${names[@]+"${names[@]}"}"; do
		bash "$here/servers/$n.sh" stop || true
	done
}
trap stop_all EXIT

log "building fetch and fetch-queue into $IT_DIR/bin"
(cd "$root" && go build -o "$IT_DIR/bin/fetch" ./cmd/fetch)
# fetch hands its queue commands to the fetch-queue beside it.
(cd "$root/queue" && go build -o "$IT_DIR/bin/fetch-queue" ./cmd/fetch-queue)
export FETCH_BIN="$IT_DIR/bin/fetch"

for n in "${names[@]+"${names[@]}"}"; do
	log "starting $n"
	rm -f "$IT_DIR/$n.env"
	bash "$here/servers/$n.sh" start
	[ -f "$IT_DIR/$n.env" ] && source "$IT_DIR/$n.env"
done

cd "$root"
# GOTEST_FLAGS passes more flags to go test (e.g. "-v -run Gopher"), split
# as the shell splits words, quotes included: -run "HTTP|TLS" is one
# pattern, not one with its quotes in it.
eval "flags=(${GOTEST_FLAGS:-})"
rc=0
go test -tags integration -count=1 -timeout 20m "${flags[@]}" ./integration_test/... || rc=$?
# The queue module's own: fetch-queue against the nats-server cluster and
# the embedded server, with the faults of docs/queue.md.
(cd "$root/queue" && go test -tags integration -count=1 -timeout 10m "${flags[@]}" ./integration_test/...) || rc=$?
exit $rc

#!/usr/bin/env bash
# A WAIS server on 127.0.0.1 for the WAIS integration tests.
#
#   bash servers/wais.sh start|stop      (IT_DIR set)
#
# Debian packages no WAIS server (freeWAIS-sf is long gone from the
# archive), so this runs schemes/wais/internal/replayd: it answers each
# request with what freeWAIS-sf 2.2.10 answered to the same bytes, from the
# recordings in schemes/wais/testdata/transcripts (database "demo": alpha,
# beta and gamma.txt, its source description and catalogue). Publishes:
#   FETCH_IT_WAIS_ADDR       127.0.0.1:PORT
#   FETCH_IT_WAIS_FIXTURES   the folder of the documents it serves
# Set WAIS_ADDR to a real freeWAIS server with the same "demo" database to
# run the same tests against it instead.
source "$(dirname "$0")/../lib.sh"

name=wais
dir=$IT_DIR/$name
root=$(cd "$(dirname "$0")/../.." && pwd)

start() {
	mkdir -p "$dir"
	export_env "$name" FETCH_IT_WAIS_FIXTURES "$root/schemes/wais/testdata/fixtures"
	if [ -n "${WAIS_ADDR:-}" ]; then
		export_env "$name" FETCH_IT_WAIS_ADDR "$WAIS_ADDR"
		return 0
	fi
	(cd "$root" && go build -o "$dir/replayd" ./schemes/wais/internal/replayd)
	local port
	port=$(free_port)
	start_bg "$name" "$dir/replayd" -listen "127.0.0.1:$port" -dir "$root/schemes/wais/testdata/transcripts"
	wait_port "$port" 20 || { cat "$IT_DIR/$name.log" >&2; return 1; }
	export_env "$name" FETCH_IT_WAIS_ADDR "127.0.0.1:$port"
}

stop() {
	stop_pids "$name"
}

server_main "$@"

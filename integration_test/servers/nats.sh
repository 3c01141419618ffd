#!/usr/bin/env bash
# Debian's nats-server with JetStream on 127.0.0.1, for the work-queue
# integration tests (fetch enqueue, worker, results) and bench/queue.sh.
#
#   bash servers/nats.sh start|stop      (IT_DIR set)
#
# Publishes:
#   FETCH_IT_NATS_URL   nats://127.0.0.1:PORT
source "$(dirname "$0")/../lib.sh"

name=nats
dir=$IT_DIR/$name

start() {
	need_pkgs nats-server
	rm -rf "$dir"
	mkdir -p "$dir/js"
	local port
	port=$(free_port)
	start_bg "$name" nats-server -a 127.0.0.1 -p "$port" -js -sd "$dir/js" -n fetch-it
	wait_port "$port" || { cat "$IT_DIR/$name.log" >&2; return 1; }
	export_env "$name" FETCH_IT_NATS_URL "nats://127.0.0.1:$port"
	log "nats-server $(nats-server --version 2>/dev/null | awk '{print $NF}') with JetStream on 127.0.0.1:$port"
}

stop() { stop_pids "$name"; }

server_main "${1:-}"

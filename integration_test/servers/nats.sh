#!/usr/bin/env bash
# Debian's nats-server with JetStream on 127.0.0.1, for the work-queue
# integration tests (fetch-queue's: enqueue, worker, results) and
# bench/queue.sh: a cluster of three servers, each with its own store, as a
# fleet runs them.
#
#   bash servers/nats.sh start|stop      (IT_DIR set)
#
# Publishes:
#   FETCH_IT_NATS_URL      nats://127.0.0.1:P1,nats://127.0.0.1:P2,nats://127.0.0.1:P3
#   FETCH_IT_NATS_SERVER   the nats-server binary, for tests that run
#                          (and kill, and restart) clusters of their own
source "$(dirname "$0")/../lib.sh"

name=nats
dir=$IT_DIR/$name

start() {
	need_pkgs nats-server
	rm -rf "$dir"
	local i ports=() cports=() routes="" urls=""
	for i in 0 1 2; do
		ports+=("$(free_port)")
		cports+=("$(free_port)")
	done
	for i in 0 1 2; do
		routes+="${routes:+,}nats://127.0.0.1:${cports[$i]}"
		urls+="${urls:+,}nats://127.0.0.1:${ports[$i]}"
	done
	for i in 0 1 2; do
		mkdir -p "$dir/n$i"
		start_bg "$name" nats-server -a 127.0.0.1 -p "${ports[$i]}" -js -sd "$dir/n$i" -n "fetch-it-$i" \
			--cluster_name fetch-it --cluster "nats://127.0.0.1:${cports[$i]}" --routes "$routes"
	done
	for i in 0 1 2; do
		wait_port "${ports[$i]}" || { cat "$IT_DIR/$name.log" >&2; return 1; }
	done
	export_env "$name" FETCH_IT_NATS_URL "$urls"
	export_env "$name" FETCH_IT_NATS_SERVER "$(command -v nats-server)"
	log "nats-server $(nats-server --version 2>/dev/null | awk '{print $NF}'), a JetStream cluster of 3 on $urls"
}

stop() { stop_pids "$name"; }

server_main "${1:-}"

#!/usr/bin/env bash
# lighttpd on 127.0.0.1, beside nginx, for the HTTP integration tests that
# check behaviour against a second server: resuming a complete file (416
# with Content-Range "bytes */N") and redirect limits.
#
#   bash servers/lighttpd.sh start|stop      (IT_DIR set)
#
# Serves $IT_DIR/lighttpd/root: /hello.txt, /r.bin (100 KiB), /redirect
# (301 to /hello.txt) and /chain (301 to /chain2, 301 to /redirect, then
# /hello.txt). Publishes:
#   FETCH_IT_LIGHTTPD_ADDR    127.0.0.1:PORT
#   FETCH_IT_LIGHTTPD_ROOT    the document root
source "$(dirname "$0")/../lib.sh"

name=lighttpd
dir=$IT_DIR/$name

start() {
	need_pkgs lighttpd
	stop_pids "$name"
	mkdir -p "$dir/root"
	chmod o+x "$IT_DIR"
	printf 'hello from lighttpd\n' >"$dir/root/hello.txt"
	head -c $((100 << 10)) /dev/urandom >"$dir/root/r.bin"
	chmod -R a+rX "$dir"
	local port
	port=$(free_port)
	cat >"$dir/lighttpd.conf" <<-EOF
		server.document-root = "$dir/root"
		server.bind = "127.0.0.1"
		server.port = $port
		server.pid-file = "$dir/lighttpd.pid"
		server.errorlog = "$dir/error.log"
		server.modules = ( "mod_redirect" )
		mimetype.assign = ( ".txt" => "text/plain", ".bin" => "application/octet-stream" )
		url.redirect-code = 301
		url.redirect = (
			"^/redirect\$" => "/hello.txt",
			"^/chain\$" => "/chain2",
			"^/chain2\$" => "/redirect",
		)
	EOF
	# The Debian package's own service is not used: this one runs in the
	# foreground from the scratch folder, as the invoking user.
	start_bg "$name" /usr/sbin/lighttpd -D -f "$dir/lighttpd.conf"
	wait_port "$port" || { cat "$IT_DIR/$name.log" "$dir/error.log" >&2; return 1; }
	export_env "$name" FETCH_IT_LIGHTTPD_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_LIGHTTPD_ROOT "$dir/root"
	log "lighttpd on 127.0.0.1:$port"
}

stop() {
	stop_pids "$name"
}

server_main "$@"

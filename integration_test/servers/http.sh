#!/usr/bin/env bash
# nginx on 127.0.0.1 for the HTTP(S) integration tests and bench/http.sh.
#
#   bash servers/http.sh start|stop      (IT_DIR set)
#
# Serves $IT_DIR/http/root over HTTP/1.1 and over HTTPS (HTTP/2 offered),
# with a self-signed certificate for 127.0.0.1. Fixtures: /hello.txt,
# /dir/ (autoindex), /with%20space.txt, /big.bin (64 MiB), /text.txt (gzip
# on), and the locations /redirect (301 to /hello.txt), /chain (302, 302,
# then /hello.txt), /loop (to itself), /to-file (to file:///etc/passwd),
# /gone (410), /private (401) and /forbidden (403); anything else is 404.
# Publishes:
#   FETCH_IT_HTTP_ADDR        127.0.0.1:PORT (http)
#   FETCH_IT_HTTPS_ADDR       127.0.0.1:PORT (https)
#   FETCH_IT_HTTP_CACERT      the server's certificate (PEM), for --cacert
#   FETCH_IT_HTTP_ROOT        the document root
#   FETCH_IT_HTTP_BIG_SHA256  checksum of /big.bin
source "$(dirname "$0")/../lib.sh"

name=http
dir=$IT_DIR/$name

start() {
	need_pkgs nginx openssl
	mkdir -p "$dir/root/dir/sub" "$dir/tmp" "$dir/logs"
	chmod 711 "$IT_DIR"
	printf 'hello from nginx\n' >"$dir/root/hello.txt"
	printf 'spaced\n' >"$dir/root/with space.txt"
	printf 'a\n' >"$dir/root/dir/a.txt"
	printf 'b\n' >"$dir/root/dir/b.txt"
	if [ ! -s "$dir/root/text.txt" ]; then
		for i in $(seq 1 5000); do printf 'line %05d: all work and no play makes jack a dull boy\n' "$i"; done >"$dir/root/text.txt"
	fi
	if [ ! -s "$dir/root/big.bin" ]; then
		head -c $((64 << 20)) /dev/urandom >"$dir/root/big.bin"
	fi
	chmod -R a+rX "$dir/root"
	if [ ! -s "$dir/cert.pem" ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
			-addext subjectAltName=IP:127.0.0.1,DNS:localhost \
			-keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
	fi

	local port sport
	port=$(free_port)
	sport=$(free_port)
	while [ "$sport" = "$port" ]; do sport=$(free_port); done
	cat >"$dir/nginx.conf" <<-EOF
		daemon off;
		master_process off;
		worker_processes 1;
		pid $dir/nginx.pid;
		error_log $dir/logs/error.log warn;
		events { worker_connections 256; }
		http {
			access_log $dir/logs/access.log;
			client_body_temp_path $dir/tmp/body;
			proxy_temp_path $dir/tmp/proxy;
			fastcgi_temp_path $dir/tmp/fastcgi;
			uwsgi_temp_path $dir/tmp/uwsgi;
			scgi_temp_path $dir/tmp/scgi;
			types { text/plain txt; text/html html; application/octet-stream bin; }
			default_type application/octet-stream;
			sendfile on;
			tcp_nopush on;
			keepalive_timeout 30;
			gzip on;
			gzip_types text/plain;
			gzip_min_length 1000;
			server {
				listen 127.0.0.1:$port;
				listen 127.0.0.1:$sport ssl http2;
				ssl_certificate $dir/cert.pem;
				ssl_certificate_key $dir/key.pem;
				root $dir/root;
				location /dir/ { autoindex on; }
				# The same files at 48 MB/s a connection: a transfer that
				# lasts long enough to be seen (progress on a terminal).
				location /slow/ { alias $dir/root/; limit_rate 48m; }
				location = /redirect { return 301 /hello.txt; }
				location = /chain { return 302 /chain2; }
				location = /chain2 { return 302 /redirect; }
				location = /loop { return 302 /loop; }
				location = /to-file { return 302 file:///etc/passwd; }
				location = /gone { return 410; }
				location = /private { return 401; }
				location = /forbidden { return 403; }
			}
		}
	EOF
	start_bg "$name" nginx -c "$dir/nginx.conf" -p "$dir"
	wait_port "$port"
	wait_port "$sport"
	export_env "$name" FETCH_IT_HTTP_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_HTTPS_ADDR "127.0.0.1:$sport"
	export_env "$name" FETCH_IT_HTTP_CACERT "$dir/cert.pem"
	export_env "$name" FETCH_IT_HTTP_ROOT "$dir/root"
	export_env "$name" FETCH_IT_HTTP_BIG_SHA256 "$(sha256sum "$dir/root/big.bin" | cut -d' ' -f1)"
}

stop() {
	stop_pids "$name"
}

server_main "$@"

#!/usr/bin/env bash
# pure-ftpd on 127.0.0.1 for the FTP integration tests against a third
# server (TYPE A, SIZE, MLSD, and an empty CWD that goes home).
#
#   bash servers/pureftpd.sh start|stop      (IT_DIR set)
#
# pure-ftpd conflicts with vsftpd as a Debian package: it is never
# installed, but downloaded (apt-get download) and unpacked with dpkg-deb
# into $IT_DIR/pureftpd/root, and run from there. Its one login is a
# virtual user (pure-pw, puredb) chrooted to $IT_DIR/pureftpd/home:
#   /pub/text.txt      text with LF line ends
#   /pub/sub/inner.txt a file in a subdirectory
# Publishes:
#   FETCH_IT_PUREFTPD_ADDR   127.0.0.1:PORT
#   FETCH_IT_PUREFTPD_USER   the virtual user
#   FETCH_IT_PUREFTPD_PASS   its password
#   FETCH_IT_PUREFTPD_TEXT   the path of text.txt (its exact bytes)
source "$(dirname "$0")/../lib.sh"

name=pureftpd
dir=$IT_DIR/$name
user=fetchit
pass=pure-it-pass

start() {
	if [ "$(id -u)" -ne 0 ]; then
		log "servers/pureftpd.sh needs root (pure-ftpd chroots its users)"
		return 1
	fi
	need_pkgs libsodium23 libcap2
	[ -x "$dir/root/usr/sbin/pure-ftpd" ] || unpack_deb "$dir" pure-ftpd
	mkdir -p "$dir/home/pub/sub"
	chmod 711 "$IT_DIR"
	chmod 755 "$dir" "$dir/home"
	printf 'pure-ftpd counts\nthe wire'"'"'s bytes\nin ASCII mode.\n' >"$dir/home/pub/text.txt"
	printf 'inner\n' >"$dir/home/pub/sub/inner.txt"
	chmod -R a+rX "$dir/home"
	rm -f "$dir/passwd" "$dir/passwd.pdb"
	printf '%s\n%s\n' "$pass" "$pass" | "$dir/root/usr/bin/pure-pw" useradd "$user" -u nobody -g nogroup \
		-d "$dir/home" -f "$dir/passwd" -F "$dir/passwd.pdb" -m >/dev/null

	local port
	port=$(free_port)
	start_bg "$name" "$dir/root/usr/sbin/pure-ftpd" -S "127.0.0.1,$port" -l "puredb:$dir/passwd.pdb" \
		-E -H -p 40001:60000 -g "$dir/pure-ftpd.pid"
	wait_port "$port"
	export_env "$name" FETCH_IT_PUREFTPD_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_PUREFTPD_USER "$user"
	export_env "$name" FETCH_IT_PUREFTPD_PASS "$pass"
	export_env "$name" FETCH_IT_PUREFTPD_TEXT "$dir/home/pub/text.txt"
	log "pure-ftpd on 127.0.0.1:$port"
}

stop() { stop_pids "$name"; }

server_main "$@"

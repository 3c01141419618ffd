#!/usr/bin/env bash
# proftpd on 127.0.0.1 for the FTP integration tests against a second
# server whose replies differ from vsftpd's (501 for an empty CWD, SIZE
# refused in ASCII mode, "ls -l" listings with its own layout).
#
#   bash servers/proftpd.sh start|stop      (IT_DIR set)
#
# proftpd-core conflicts with vsftpd as a Debian package: it is never
# installed, but downloaded (apt-get download) and unpacked with dpkg-deb
# into $IT_DIR/proftpd/root, and run from there; the libraries it needs
# beyond the base system are ordinary packages and are installed.
#
# Serves $IT_DIR/proftpd/anon to anonymous logins (chrooted: PWD "/"):
#   /pub/text.txt      text with LF line ends
#   /pub/data.bin      64 KiB of random bytes, CR LF pairs included
#   /pub/sub/inner.txt a file in a subdirectory
#   /pub/missing.txt   is not there
# Publishes:
#   FETCH_IT_PROFTPD_ADDR        127.0.0.1:PORT
#   FETCH_IT_PROFTPD_LIST_ADDR   127.0.0.1:PORT of the same tree, MLST not offered
#   FETCH_IT_PROFTPD_TEXT        the path of text.txt (its exact bytes)
#   FETCH_IT_PROFTPD_BIN_SHA256  checksum of /pub/data.bin
source "$(dirname "$0")/../lib.sh"

name=proftpd
dir=$IT_DIR/$name

start() {
	if [ "$(id -u)" -ne 0 ]; then
		log "servers/proftpd.sh needs root (proftpd chroots anonymous logins)"
		return 1
	fi
	need_pkgs libhiredis0.14 libmemcached11 libmemcachedutil2 libpcre2-posix3
	[ -x "$dir/root/usr/sbin/proftpd" ] || unpack_deb "$dir" proftpd-core
	mkdir -p "$dir/anon/pub/sub" "$dir/run"
	chmod 711 "$IT_DIR"
	chmod 755 "$dir" "$dir/anon"
	printf 'RFC 1738 names ftp URLs.\nThis file has LF line ends,\nnot the wire'"'"'s CR LF.\n' >"$dir/anon/pub/text.txt"
	printf 'inner\n' >"$dir/anon/pub/sub/inner.txt"
	if [ ! -s "$dir/anon/pub/data.bin" ]; then
		{
			head -c 32768 /dev/urandom
			printf 'a\r\nb\rc\n'
			head -c 32761 /dev/urandom
		} >"$dir/anon/pub/data.bin"
	fi
	rm -f "$dir/anon/pub/missing.txt"
	chmod -R a+rX "$dir/anon"

	local port lport
	port=$(free_port)
	lport=$(free_port)
	while [ "$lport" = "$port" ]; do lport=$(free_port); done
	# The anonymous tree, read-only, served on both ports.
	cat >"$dir/anon.conf" <<-EOF
		<Anonymous $dir/anon>
			User nobody
			Group nogroup
			UserAlias anonymous nobody
			RequireValidShell off
			<Limit WRITE>
				DenyAll
			</Limit>
		</Anonymous>
	EOF
	cat >"$dir/proftpd.conf" <<-EOF
		ServerType standalone
		ServerName "fetch-it proftpd"
		Port $port
		DefaultAddress 127.0.0.1
		SocketBindTight on
		UseIPv6 off
		UseReverseDNS off
		User nobody
		Group nogroup
		Umask 022
		MaxInstances 64
		PidFile $dir/run/proftpd.pid
		ScoreboardFile $dir/run/proftpd.scoreboard
		DelayTable none
		WtmpLog off
		TransferLog none
		SystemLog $dir/run/system.log
		PassivePorts 40001 60000
		RequireValidShell off
		UseFtpUsers off
		AuthOrder mod_auth_unix.c
		Include $dir/anon.conf
		# The same tree on a second port, without MLST in FEAT: its
		# listings are LIST's.
		<VirtualHost 127.0.0.1>
			Port $lport
			FactsAdvertise off
			RequireValidShell off
			UseFtpUsers off
			Include $dir/anon.conf
		</VirtualHost>
	EOF
	start_bg "$name" "$dir/root/usr/sbin/proftpd" --nodaemon -c "$dir/proftpd.conf"
	wait_port "$port"
	wait_port "$lport"
	export_env "$name" FETCH_IT_PROFTPD_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_PROFTPD_LIST_ADDR "127.0.0.1:$lport"
	export_env "$name" FETCH_IT_PROFTPD_TEXT "$dir/anon/pub/text.txt"
	export_env "$name" FETCH_IT_PROFTPD_BIN_SHA256 "$(sha256sum "$dir/anon/pub/data.bin" | cut -d' ' -f1)"
	log "proftpd on 127.0.0.1:$port, :$lport (no MLST)"
}

stop() { stop_pids "$name"; }

server_main "$@"

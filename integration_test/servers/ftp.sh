#!/usr/bin/env bash
# vsftpd on 127.0.0.1 for the FTP integration tests and bench/ftp.sh.
#
#   bash servers/ftp.sh start|stop      (IT_DIR set)
#
# Serves $IT_DIR/ftp/anon to anonymous logins (chrooted, so its PWD is "/")
# and $IT_DIR/ftp/home to the local user fetchit (not chrooted: its PWD is
# the absolute path of that folder). Publishes:
#   FETCH_IT_FTP_ADDR        127.0.0.1:PORT
#   FETCH_IT_FTP_USER        fetchit
#   FETCH_IT_FTP_PASS        its password
#   FETCH_IT_FTP_BIG_SHA256  checksum of /big.bin (64 MiB)
#   FETCH_IT_FTP_SMALL       how many files /small holds (f001.bin, ...)
source "$(dirname "$0")/../lib.sh"

name=ftp
dir=$IT_DIR/$name
user=fetchit
pass=fetch-it-pass
small=200

start() {
	need_pkgs vsftpd
	mkdir -p "$dir/anon/pub/nested/deep/er" "$dir/anon/pub/with space" "$dir/anon/small" "$dir/home/sub" "$dir/empty"
	# vsftpd runs local users' sessions as that user: let them reach home/.
	chmod 711 "$IT_DIR"
	chmod 755 "$dir" "$dir/anon" "$dir/home"
	chmod 555 "$dir/empty"

	printf 'hello from vsftpd\n' >"$dir/anon/pub/hello.txt"
	printf 'deep\n' >"$dir/anon/pub/nested/deep/er/file.txt"
	printf 'spaced out\n' >"$dir/anon/pub/with space/name with space.txt"
	printf 'private\n' >"$dir/home/private.txt"
	printf 'sub\n' >"$dir/home/sub/inner.txt"
	if [ ! -s "$dir/anon/big.bin" ]; then
		head -c $((64 << 20)) /dev/urandom >"$dir/anon/big.bin"
	fi
	for i in $(seq -f '%03g' 1 "$small"); do
		[ -e "$dir/anon/small/f$i.bin" ] || head -c 1024 /dev/urandom >"$dir/anon/small/f$i.bin"
	done
	chmod -R a+rX "$dir/anon" "$dir/home"

	if ! id "$user" >/dev/null 2>&1; then
		useradd -M -d "$dir/home" -s /bin/bash "$user"
	fi
	echo "$user:$pass" | chpasswd

	local port
	port=$(free_port)
	# A wide passive range: with few ports, TIME_WAIT makes runs of many
	# small transfers stall.
	cat >"$dir/vsftpd.conf" <<-EOF
		listen=YES
		listen_ipv6=NO
		listen_address=127.0.0.1
		listen_port=$port
		background=NO
		anonymous_enable=YES
		no_anon_password=YES
		anon_root=$dir/anon
		local_enable=YES
		local_root=$dir/home
		chroot_local_user=NO
		write_enable=NO
		pasv_enable=YES
		pasv_address=127.0.0.1
		pasv_min_port=20000
		pasv_max_port=40000
		port_enable=YES
		connect_from_port_20=NO
		secure_chroot_dir=$dir/empty
		pam_service_name=vsftpd
		seccomp_sandbox=NO
		isolate=NO
		isolate_network=NO
		max_clients=0
		max_per_ip=0
		idle_session_timeout=600
		xferlog_enable=NO
		vsftpd_log_file=$dir/vsftpd.log
		use_localtime=NO
	EOF
	start_bg "$name" /usr/sbin/vsftpd "$dir/vsftpd.conf"
	wait_port "$port"
	export_env "$name" FETCH_IT_FTP_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_FTP_USER "$user"
	export_env "$name" FETCH_IT_FTP_PASS "$pass"
	export_env "$name" FETCH_IT_FTP_BIG_SHA256 "$(sha256sum "$dir/anon/big.bin" | cut -d' ' -f1)"
	export_env "$name" FETCH_IT_FTP_SMALL "$small"
	log "vsftpd on 127.0.0.1:$port"
}

case ${1:-} in
start) start ;;
stop) stop_pids "$name" ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac

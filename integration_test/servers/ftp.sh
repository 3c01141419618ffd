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
#   FETCH_IT_FTP_TLS_ADDR    127.0.0.1:PORT of the same tree with AUTH TLS required
#   FETCH_IT_FTPS_ADDR       127.0.0.1:PORT of the same tree over implicit TLS (ftps)
#   FETCH_IT_FTP_CA          the self-signed certificate of both, for --cacert
# $IT_DIR/ftp/vsftpd.log logs every command (log_ftp_protocol), for tests that count requests.
source "$(dirname "$0")/../lib.sh"

name=ftp
dir=$IT_DIR/$name
user=fetchit
pass=fetch-it-pass
small=200

# conf PORT: the vsftpd settings shared by every instance.
conf() {
	# A wide passive range: with few ports, TIME_WAIT makes runs of many
	# small transfers stall.
	cat <<-EOF
		listen=YES
		listen_ipv6=NO
		listen_address=127.0.0.1
		listen_port=$1
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
		delay_failed_login=0
		xferlog_enable=YES
		xferlog_std_format=NO
		log_ftp_protocol=YES
		vsftpd_log_file=$dir/vsftpd.log
		use_localtime=NO
	EOF
}

# tls_conf: TLS required on control and data connections, and each data
# connection must resume the control connection's TLS session
# (require_ssl_reuse, vsftpd's default).
tls_conf() {
	cat <<-EOF
		ssl_enable=YES
		allow_anon_ssl=YES
		force_anon_logins_ssl=YES
		force_anon_data_ssl=YES
		force_local_logins_ssl=YES
		force_local_data_ssl=YES
		require_ssl_reuse=YES
		rsa_cert_file=$dir/cert.pem
		rsa_private_key_file=$dir/key.pem
	EOF
}

start() {
	# vsftpd logs local users in through PAM and chroots anonymous ones:
	# it runs as root (as CI does), and so does the user set-up below.
	if [ "$(id -u)" -ne 0 ]; then
		log "servers/ftp.sh needs root (vsftpd with local logins and chroot)"
		return 1
	fi
	need_pkgs vsftpd openssl
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
	# Symbolic links (vsftpd lists them with LIST's "l"): to a folder, to a
	# file, to the folder itself and to its parent (cycles), relative so
	# that they hold inside the chroot.
	mkdir -p "$dir/anon/links/target"
	printf 'linked\n' >"$dir/anon/links/target/t.txt"
	ln -sfn target "$dir/anon/links/dirlink"
	ln -sfn target/t.txt "$dir/anon/links/filelink"
	ln -sfn . "$dir/anon/links/loop"
	ln -sfn .. "$dir/anon/links/up"
	if [ ! -s "$dir/anon/big.bin" ]; then
		head -c $((64 << 20)) /dev/urandom >"$dir/anon/big.bin"
	fi
	for i in $(seq -f '%03g' 1 "$small"); do
		[ -e "$dir/anon/small/f$i.bin" ] || head -c 1024 /dev/urandom >"$dir/anon/small/f$i.bin"
	done
	chmod -R a+rX "$dir/anon" "$dir/home"

	if ! id "$user" >/dev/null 2>&1; then
		useradd -M -d "$dir/home" -s /bin/bash "$user"
	else
		# A user left by an earlier run points at that run's folder.
		usermod -d "$dir/home" "$user"
	fi
	echo "$user:$pass" | chpasswd

	if [ ! -s "$dir/cert.pem" ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
			-addext subjectAltName=IP:127.0.0.1 -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
	fi

	local port tport sport
	port=$(free_port)
	conf "$port" >"$dir/vsftpd.conf"
	start_bg "$name" /usr/sbin/vsftpd "$dir/vsftpd.conf"
	wait_port "$port"
	tport=$(free_port)
	{
		conf "$tport"
		tls_conf
	} >"$dir/vsftpd-tls.conf"
	start_bg "$name" /usr/sbin/vsftpd "$dir/vsftpd-tls.conf"
	wait_port "$tport"
	sport=$(free_port)
	{
		conf "$sport"
		tls_conf
		echo implicit_ssl=YES
	} >"$dir/vsftpd-ftps.conf"
	start_bg "$name" /usr/sbin/vsftpd "$dir/vsftpd-ftps.conf"
	wait_port "$sport"
	export_env "$name" FETCH_IT_FTP_TLS_ADDR "127.0.0.1:$tport"
	export_env "$name" FETCH_IT_FTPS_ADDR "127.0.0.1:$sport"
	export_env "$name" FETCH_IT_FTP_CA "$dir/cert.pem"
	export_env "$name" FETCH_IT_FTP_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_FTP_USER "$user"
	export_env "$name" FETCH_IT_FTP_PASS "$pass"
	export_env "$name" FETCH_IT_FTP_BIG_SHA256 "$(sha256sum "$dir/anon/big.bin" | cut -d' ' -f1)"
	export_env "$name" FETCH_IT_FTP_SMALL "$small"
	log "vsftpd on 127.0.0.1:$port (plain), :$tport (AUTH TLS), :$sport (implicit TLS)"
}

case ${1:-} in
start) start ;;
stop) stop_pids "$name" ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac

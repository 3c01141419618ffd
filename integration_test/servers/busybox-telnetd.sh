#!/usr/bin/env bash
# busybox's telnetd applet on 127.0.0.1, for the telnet integration tests
# beside inetutils-telnetd (servers/telnet.sh). busybox-static is not
# installed system-wide (it would replace nothing, but a second busybox on
# the PATH surprises people): it is downloaded (apt-get download) and
# unpacked with dpkg-deb into $IT_DIR/busybox-telnetd/root, and run from
# there.
#
#   bash servers/busybox-telnetd.sh start|stop      (IT_DIR set)
#
# telnetd runs, instead of /bin/login, a login program of our own
# ($IT_DIR/busybox-telnetd/login.sh) on the session's terminal: it asks
# "login: " and "Password: ", answers a wrong pair with "Login incorrect"
# and asks again (as login(1) does, three times), accepts guest / s3cret,
# then prints the window size the client reported by NAWS, as
# "size=ROWSxCOLS" (stty size), and serves "demo$ " whose commands are
#   echo WORDS   prints WORDS
#   size         prints the window size again
#   tick         prints "tick" twice a second for 30 seconds
#   quit         says bye and ends the session
# Publishes:
#   FETCH_IT_BUSYBOX_TELNET_ADDR  127.0.0.1:PORT
source "$(dirname "$0")/../lib.sh"

name=busybox-telnetd
dir=$IT_DIR/$name

start() {
	mkdir -p "$dir"
	[ -x "$dir/root/bin/busybox" ] || unpack_deb "$dir" busybox-static
	cat >"$dir/login.sh" <<-'LOGIN'
		#!/bin/bash
		# The login program telnetd runs on the session's terminal.
		# leave CODE: exit after a pause. telnetd frees the session once it
		# sees its child exit, dropping what it has not yet read from the
		# terminal or sent on, such as the last line ("bye").
		leave() { sleep 1; exit "$1"; }
		printf 'busybox telnetd for fetch\r\n'
		ok=
		for try in 1 2 3; do
			printf 'login: '
			IFS= read -r user || exit 1
			printf 'Password: '
			stty -echo 2>/dev/null
			IFS= read -r pass || exit 1
			stty echo 2>/dev/null
			printf '\n'
			if [ "$user" = guest ] && [ "$pass" = s3cret ]; then
				ok=1
				break
			fi
			printf '\nLogin incorrect\n'
		done
		[ -n "$ok" ] || exit 1
		echo "Welcome, $user"
		# The client answers telnetd's DO NAWS as it reads, and the lines it
		# typed ahead (a script on stdin) can reach this program first: wait
		# up to 10 s for the window size to be set before reporting it.
		for i in $(seq 100); do
			[ "$(stty size)" != "0 0" ] && break
			sleep 0.1
		done
		echo "size=$(stty size | tr ' ' x)"
		while true; do
			printf 'demo$ '
			IFS= read -r line || exit 0
			case $line in
			quit) echo bye; leave 0 ;;
			size) echo "size=$(stty size | tr ' ' x)" ;;
			tick) for i in $(seq 60); do echo tick; sleep 0.5; done ;;
			echo\ *) echo "${line#echo }" ;;
			'') ;;
			*) echo "unknown: $line" ;;
			esac
		done
	LOGIN
	chmod 755 "$dir/login.sh"
	local port
	port=$(free_port)
	start_bg "$name" "$dir/root/bin/busybox" telnetd -F -b "127.0.0.1:$port" -l "$dir/login.sh"
	wait_port "$port"
	export_env "$name" FETCH_IT_BUSYBOX_TELNET_ADDR "127.0.0.1:$port"
	log "telnetd (busybox, unpacked) on 127.0.0.1:$port"
}

stop() { stop_pids "$name"; }

server_main "${1:-}"

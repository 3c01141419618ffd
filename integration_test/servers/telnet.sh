#!/usr/bin/env bash
# inetutils-telnetd under ucspi-tcp's tcpserver on 127.0.0.1, for the telnet
# integration tests (servers/busybox-telnetd.sh runs busybox's beside it).
# inetutils' telnetd runs one session per connection on stdin, which is
# what tcpserver gives it.
#
#   bash servers/telnet.sh start|stop      (IT_DIR set)
#
# telnetd runs, instead of /bin/login, a login program of our own
# ($IT_DIR/telnet/login.sh): it asks "login: " and "Password: ", accepts
# guest / s3cret, then serves a tiny shell ("demo$ ") whose commands are
#   echo WORDS   prints WORDS
#   key          reads one key without waiting for Enter and prints key=[K]
#   sleepy       says "sleeping" and sleeps 30 seconds in the foreground
#   quit         says bye and ends the session (the server closes)
# and which answers Ctrl-C (SIGINT on its terminal, e.g. during sleepy) with
# "interrupted".
# Publishes:
#   FETCH_IT_TELNET_ADDR  127.0.0.1:PORT
#   FETCH_IT_TELNET_USER  guest
#   FETCH_IT_TELNET_PASS  s3cret
source "$(dirname "$0")/../lib.sh"

name=telnet
dir=$IT_DIR/$name

start() {
	need_pkgs inetutils-telnetd ucspi-tcp tmux
	mkdir -p "$dir"
	cat >"$dir/login.sh" <<-'LOGIN'
		#!/bin/bash
		# The login program telnetd runs on the session's terminal.
		trap 'echo interrupted' INT
		# leave CODE: exit after a pause. telnetd ends the connection as
		# soon as its child exits (SIGCHLD), dropping what it has not yet
		# read from the terminal or sent on: the last line ("bye", "Login
		# incorrect") was lost when telnetd was slow to be scheduled.
		leave() { sleep 1; exit "$1"; }
		printf 'fetch integration telnetd\r\n'
		printf 'login: '
		IFS= read -r user || exit 1
		printf 'Password: '
		stty -echo 2>/dev/null
		IFS= read -r pass || exit 1
		stty echo 2>/dev/null
		printf '\n'
		if [ "$user" != guest ] || [ "$pass" != s3cret ]; then
			echo 'Login incorrect'
			leave 1
		fi
		echo "Welcome, $user"
		while true; do
			printf 'demo$ '
			IFS= read -r line
			rc=$?
			# A read cut by Ctrl-C (SIGINT, trapped) returns more than 128.
			[ $rc -gt 128 ] && continue
			[ $rc -ne 0 ] && exit 0
			case $line in
			quit) echo bye; leave 0 ;;
			key) IFS= read -rsn1 k; echo "key=[$k]" ;;
			sleepy) echo sleeping; sleep 30 ;;
			echo\ *) echo "${line#echo }" ;;
			'') ;;
			*) echo "unknown: $line" ;;
			esac
		done
	LOGIN
	chmod 755 "$dir/login.sh"
	local port
	port=$(free_port)
	# A background job of a script starts with SIGINT ignored, and so would
	# every session: env restores it, so that Ctrl-C works in them.
	start_bg "$name" env --default-signal=INT,QUIT tcpserver -H -R -l 0 127.0.0.1 "$port" /usr/sbin/telnetd -h -E "$dir/login.sh"
	wait_port "$port"
	export_env "$name" FETCH_IT_TELNET_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_TELNET_USER guest
	export_env "$name" FETCH_IT_TELNET_PASS s3cret
	log "telnetd (inetutils, under tcpserver) on 127.0.0.1:$port"
}

case ${1:-} in
start) start ;;
stop) stop_pids "$name" ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac

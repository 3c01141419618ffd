#!/usr/bin/env bash
# An SMTP sink on 127.0.0.1 for the mailto integration tests: aiosmtpd
# (Debian's python3-aiosmtpd, run by Debian's /usr/bin/python3) with its
# Mailbox handler, which stores every message it accepts in a maildir.
#
#   bash servers/smtp.sh start|stop      (IT_DIR set)
#
# Publishes:
#   FETCH_IT_SMTP_ADDR     127.0.0.1:PORT
#   FETCH_IT_SMTP_MAILDIR  the maildir; each message is a file in its new/
source "$(dirname "$0")/../lib.sh"

name=smtp
dir=$IT_DIR/$name

start() {
	need_pkgs python3-aiosmtpd
	mkdir -p "$dir"
	rm -rf "$dir/maildir"
	local port
	port=$(free_port)
	start_bg "$name" /usr/bin/python3 -m aiosmtpd -n -c aiosmtpd.handlers.Mailbox "$dir/maildir" -l "127.0.0.1:$port"
	wait_port "$port"
	export_env "$name" FETCH_IT_SMTP_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_SMTP_MAILDIR "$dir/maildir"
	log "aiosmtpd (Mailbox) on 127.0.0.1:$port"
}

case ${1:-} in
start) start ;;
stop) stop_pids "$name" ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac

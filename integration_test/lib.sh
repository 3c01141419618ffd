# Shared shell functions for the integration servers. Sourced by run.sh and
# by each servers/NAME.sh. Every server runs on 127.0.0.1 on a high port,
# its files under $IT_DIR/NAME/, and is stopped by the pids it recorded.

set -euo pipefail

: "${IT_DIR:?IT_DIR must be set (run.sh sets it)}"

log() { printf '[it] %s\n' "$*" >&2; }

# need_pkgs PKG...: install the Debian packages that are missing.
need_pkgs() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	log "installing ${missing[*]}"
	apt_update_once
	DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"${missing[@]}" >&2
}

# apt_update_once: apt-get update, once per run; it waits for the dpkg lock
# rather than fail.
apt_update_once() {
	[ ! -e "$IT_DIR/.apt-updated" ] || return 0
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && touch "$IT_DIR/.apt-updated"
}

# unpack_deb DIR PKG...: download the Debian packages (apt-get download,
# into DIR/deb) and unpack them into DIR/root without installing them: for
# a package that would remove another, or one whose maintainer scripts
# would start a system service.
unpack_deb() {
	local dir=$1 deb
	shift
	mkdir -p "$dir/deb" "$dir/root"
	apt_update_once
	(cd "$dir/deb" && apt-get download "$@" >&2)
	for deb in "$dir"/deb/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
}

# free_port: print a TCP port on 127.0.0.1 that nothing listens on. It is
# drawn from 10000-19999, below the kernel's ephemeral range (32768 up):
# a port the kernel handed out (bind to port 0) could be handed out again,
# as the local port of any connection made on the machine, before the
# server binds it; and below vsftpd's passive ports (20000 up).
free_port() {
	python3 - <<'PY'
import random, socket
for _ in range(1000):
    p = random.randint(10000, 19999)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
else:
    raise SystemExit("no free port in 10000-19999")
PY
}

# wait_port PORT [SECONDS]: wait until 127.0.0.1:PORT accepts connections.
wait_port() {
	local port=$1 secs=${2:-20} i
	for ((i = 0; i < secs * 10; i++)); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	log "nothing listens on 127.0.0.1:$port after ${secs}s"
	return 1
}

# start_bg NAME CMD...: run CMD in the background, its output in
# $IT_DIR/NAME.log, its pid appended to $IT_DIR/NAME.pids.
start_bg() {
	local name=$1
	shift
	setsid "$@" >>"$IT_DIR/$name.log" 2>&1 </dev/null &
	echo $! >>"$IT_DIR/$name.pids"
}

# stop_pids NAME: stop what start_bg started for NAME (and its process group).
stop_pids() {
	local f="$IT_DIR/$1.pids" pid
	[ -f "$f" ] || return 0
	while read -r pid; do
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	done <"$f"
	sleep 0.2
	while read -r pid; do
		kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
	done <"$f"
	rm -f "$f"
}

# export_env NAME KEY VALUE: publish a setting to the Go tests.
export_env() {
	printf 'export %s=%q\n' "$2" "$3" >>"$IT_DIR/$1.env"
}

# server_main ARG: the command line of a server script that defines start
# and stop: "start" or "stop", anything else is a usage error.
server_main() {
	case "${1:-}" in
	start) start ;;
	stop) stop ;;
	*)
		echo "usage: $0 start|stop" >&2
		exit 2
		;;
	esac
}

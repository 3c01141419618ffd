#!/usr/bin/env bash
# INN 2 (Debian's inn2) on 127.0.0.1 for the news and nntp tests: a private
# instance under $IT_DIR/nntp (its own inn.conf, spool, history, overview)
# on a free high port, run as the news user, with the group local.test
# holding articles of known message-ids, some with body lines that begin
# with '.', fed by IHAVE. innd sees 127.0.0.1 as a peer (incoming.conf's
# ME), so readers must say MODE READER to be handed to nnrpd. The group
# local.secret is readable only after AUTHINFO USER tester PASS
# tester-pw: nnrpd answers 480 until then.
#
#   bash servers/nntp.sh start|stop       (IT_DIR set, as run.sh does)
#
# Publishes FETCH_IT_NNTP_ADDR=127.0.0.1:PORT.
source "$(dirname "$0")/../lib.sh"

name=nntp
dir=$IT_DIR/$name
bin=/usr/lib/news/bin
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# "${as_news[@]}" CMD...: run CMD as the news user, with the private inn.conf.
if [ -z "$sudo" ]; then
	as_news=(runuser -u news -- env INNCONF="$dir/etc/inn.conf")
else
	as_news=(sudo -u news -- env INNCONF="$dir/etc/inn.conf")
fi

# install_inn installs inn2. Its postinst fails on a host without a domain
# name unless inn.conf sets domain:, so when it did fail, set one and
# finish the configuration.
install_inn() {
	if dpkg-query -W -f='${Status}' inn2 2>/dev/null | grep -q 'install ok installed'; then
		return 0
	fi
	need_pkgs inn2 || true
	if ! dpkg-query -W -f='${Status}' inn2 2>/dev/null | grep -q 'install ok installed'; then
		log "inn2 did not configure (no domain name): setting domain: in /etc/news/inn.conf"
		$sudo sed -i -e 's/^#\?domain:.*/domain:                      localdomain/' \
			-e 's/^pathhost:.*/pathhost:                    fetch-it.localdomain/' /etc/news/inn.conf
		$sudo dpkg --configure inn2 >&2
	fi
}

# conf KEY VALUE: set KEY in the private inn.conf.
conf() {
	local f=$dir/etc/inn.conf
	if grep -q "^#\?$1:" "$f"; then
		sed -i "s|^#\?$1:.*|$1: $2|" "$f"
	else
		printf '%s: %s\n' "$1" "$2" >>"$f"
	fi
}

start() {
	install_inn
	stop_pids "$name"
	$sudo rm -rf "$dir"
	# INN runs as news: it must be able to reach its files under $IT_DIR,
	# which mktemp made private to root (search permission only).
	chmod o+x "$IT_DIR"
	mkdir -p "$dir"/{etc,db,run,log,tmp,http} "$dir"/spool/{articles,overview,archive,outgoing,incoming/tmp,incoming/bad}
	cp -a /etc/news/. "$dir/etc/"
	local port
	port=$(free_port)
	conf domain localdomain
	conf pathhost fetch-it.localdomain
	conf port "$port"
	conf bindaddress 127.0.0.1
	conf nnrpdpostport "$port"
	conf pathetc "$dir/etc"
	conf pathdb "$dir/db"
	conf pathrun "$dir/run"
	conf pathlog "$dir/log"
	conf pathtmp "$dir/tmp"
	conf pathhttp "$dir/http"
	conf pathspool "$dir/spool"
	conf patharticles "$dir/spool/articles"
	conf pathoverview "$dir/spool/overview"
	conf patharchive "$dir/spool/archive"
	conf pathoutgoing "$dir/spool/outgoing"
	conf pathincoming "$dir/spool/incoming"
	conf artcutoff 0
	# A loaded test machine must not make nnrpd answer "400 load at N, try
	# later": no load limit.
	conf nnrpdloadlimit 0
	conf status 0
	conf docnfsstat false
	# The feed newsfeeds of a fresh install: ME only, nothing goes out.
	printf 'ME:*,!junk,!control*::\n' >"$dir/etc/newsfeeds"
	cat >"$dir/db/active" <<'EOF'
control 0000000000 0000000001 n
control.cancel 0000000000 0000000001 n
junk 0000000000 0000000001 n
local.empty 0000000000 0000000001 y
local.secret 0000000000 0000000001 y
local.test 0000000000 0000000001 y
EOF
	readers "$dir/etc"
	printf 'local.empty\tA group with no articles.\nlocal.test\tArticles for the fetch integration tests.\n' >"$dir/db/newsgroups"
	: >"$dir/db/active.times"
	: >"$dir/db/history"
	$sudo chown -R news:news "$dir"
	(cd "$dir/db" && "${as_news[@]}" "$bin/makedbz" -i -o)

	start_bg "$name" "${as_news[@]}" "$bin/innd" -d -c 0
	wait_port "$port" 30 || { cat "$IT_DIR/$name.log" >&2; tail -20 "$dir"/log/* >&2 || true; return 1; }
	feed "$port"
	export_env "$name" FETCH_IT_NNTP_ADDR "127.0.0.1:$port"
	log "INN on 127.0.0.1:$port (local.test fed)"
}

# readers ETC: nnrpd's access rules: localhost reads everything but
# local.secret without a password; the user tester (password tester-pw,
# checked by ckpasswd) reads everything.
readers() {
	local hash
	hash=$(python3 -c 'import crypt; print(crypt.crypt("tester-pw", crypt.mksalt(crypt.METHOD_SHA512)))' 2>/dev/null) ||
		hash=$(openssl passwd -6 tester-pw)
	printf 'tester:%s\n' "$hash" >"$1/passwd.nntp.test"
	cat >"$1/readers.conf" <<EOF
auth "localhost" {
    hosts: "localhost, 127.0.0.1, ::1, stdin"
    default: "<localhost>"
}
auth "password" {
    hosts: "localhost, 127.0.0.1, ::1"
    auth: "ckpasswd -f $1/passwd.nntp.test"
}
access "localhost" {
    users: "<localhost>"
    newsgroups: "*,!local.secret"
    access: RPA
}
access "tester" {
    users: "tester"
    newsgroups: "*"
    access: RPA
}
EOF
}

# feed PORT: post the fixture articles to innd by IHAVE.
feed() {
	python3 - "$1" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
date = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime())
arts = [
    ("first@fetch.test", "First article", "This is the first article.\n.A line that begins with a dot.\n..Two dots.\n.\nSee http://www.example.org/page and ftp://ftp.example.org/pub/file.txt\n"),
    ("second@fetch.test", "Second article", "Second body.\n"),
    ("dots@fetch.test", "Dots", "".join(".line %d\n" % i for i in range(200)) + "...\n.\n"),
    ("secret@fetch.test", "Secret", "Only for tester.\n"),
]
s = socket.create_connection(("127.0.0.1", port), timeout=20)
f = s.makefile("rwb")
def line():
    l = f.readline().decode()
    if not l:
        sys.exit("innd closed the connection")
    return l.rstrip("\r\n")
def cmd(c):
    f.write((c + "\r\n").encode()); f.flush()
    return line()
g = line()
if not g.startswith("200"):
    sys.exit("innd greeting: " + g)
for mid, subj, body in arts:
    r = cmd("IHAVE <%s>" % mid)
    if not r.startswith("335"):
        sys.exit("IHAVE <%s>: %s" % (mid, r))
    head = ("Path: fetch-it.localdomain!not-for-mail\nFrom: Fetch Tests <tests@fetch.test>\n"
            "Newsgroups: %s\nSubject: %s\nDate: %s\nMessage-ID: <%s>\n"
            % ("local.secret" if mid.startswith("secret") else "local.test", subj, date, mid))
    text = head + "\n" + body
    out = []
    for l in text.split("\n")[:-1]:
        if l.startswith("."):
            l = "." + l
        out.append(l)
    f.write(("\r\n".join(out) + "\r\n.\r\n").encode()); f.flush()
    r = line()
    if not r.startswith("235"):
        sys.exit("article <%s>: %s" % (mid, r))
cmd("QUIT")
PY
}

stop() {
	if [ -S "$dir/run/control" ] || [ -e "$dir/run/control" ]; then
		"${as_news[@]}" "$bin/ctlinnd" -t 5 shutdown "tests done" >/dev/null 2>&1 || true
	fi
	stop_pids "$name"
}

server_main "$@"

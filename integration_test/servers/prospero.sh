#!/usr/bin/env bash
# Prospero (RFC 1738 §3.11) on UDP 127.0.0.1. Debian packages no Prospero
# dirsrv, so this serves the replies recorded from the real Prospero
# Alpha.5.2a dirsrv (schemes/prospero/testdata/prospero-*.json, the tree
# /srv/prospero) with ARDP v0 as that server speaks it: 1250 data bytes a
# packet, windows of 16 ending in a please-ACK, a repeated request answered
# by re-sending from the last ACK. Requests are matched by their command
# lines, so the binary under test must send exactly the recorded commands.
source "$(dirname "$0")/../lib.sh"
name=prospero
root=$(cd "$(dirname "$0")/../.." && pwd)

case "${1:-}" in
start)
	need_pkgs python3
	mkdir -p "$IT_DIR/$name"
	cp -r "$root/schemes/prospero/testdata/fixtures/." "$IT_DIR/$name/"
	cat >"$IT_DIR/$name/server.py" <<'PY'
import binascii, glob, json, os, socket, sys

def tokenize(line):
    toks, i, n = [], 0, len(line)
    while True:
        while i < n and line[i] in " \t\r\n":
            i += 1
        if i == n:
            return toks
        tok, q = [], False
        while i < n:
            c = line[i]
            if q:
                if c != "'":
                    tok.append(c)
                elif i + 1 < n and line[i + 1] == "'":
                    tok.append("'"); i += 1
                else:
                    q = False
            elif c in " \t\r\n":
                break
            elif c == "'":
                q = True
            else:
                tok.append(c)
            i += 1
        toks.append("".join(tok))

def quote(s):
    if s and not any(c in s for c in " \t\r\n'"):
        return s
    return "'" + s.replace("'", "''") + "'"

def commands(payload):
    out = []
    for line in payload.rstrip("\n").split("\n"):
        t = tokenize(line)
        if t and t[0] not in ("VERSION", "AUTHENTICATE"):
            out.append(" ".join(quote(x) for x in t))
    return "\n".join(out)

def header(data):
    hl = data[0] & 0x3f
    f = lambda o: int.from_bytes(data[o:o + 2], "big") if hl >= o + 2 else None
    return hl, f(1) or 0, f(3), f(7)

replies = {}
for path in glob.glob(os.path.join(sys.argv[1], "prospero-*.json")):
    tr = json.load(open(path))
    ex = tr["exchanges"][0]
    parts, total = {}, 0
    for d in tr["datagrams"]:
        if d["dir"] != "s2c":
            continue
        raw = binascii.unhexlify(d["hex"])
        a = d["ardp"]
        if a["seq"] and a["seq"] not in parts:
            parts[a["seq"]] = raw[a["hlen"]:]
        total = a.get("total") or total
    if total and len(parts) == total:
        replies.setdefault(commands(ex["request_text"]), b"".join(parts[i] for i in range(1, total + 1)))
    if len(tr["exchanges"]) > 1 and "response_text" in tr["exchanges"][1]:
        replies.setdefault(commands(tr["exchanges"][1]["request_text"]), tr["exchanges"][1]["response_text"].encode())

ATTR = "ATTRIBUTE OBJECT INTRINSIC "
def file_info(size):
    return (ATTR + "SIZE SEQUENCE %d' bytes'\n" % size + ATTR + "LAST-MODIFIED SEQUENCE 20261122051120Z\n" +
            ATTR + "UNIX-MODES SEQUENCE -rw-r--r--\n" + ATTR + "ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n" +
            ATTR + "ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n").encode()
DIR = (ATTR + "SIZE SEQUENCE 4096' bytes'\n" + ATTR + "UNIX-MODES SEQUENCE drwxr-xr-x\n").encode()
for p, size in (("pub/big.txt", 10800), ("pub/huge.txt", 73200), ("pub/docs/one.txt", 18), ("pub/docs/two.txt", 18)):
    replies.setdefault("GET-OBJECT-INFO #ALL ASCII /srv/prospero/%s 0" % p, file_info(size))
for p in ("", "/pub/docs"):
    replies.setdefault("GET-OBJECT-INFO #ALL ASCII /srv/prospero%s 0" % p, DIR)
for p in ("one.txt", "two.txt"):
    data = open(os.path.join(sys.argv[2], "pub/docs", p), "rb").read().decode()
    replies.setdefault("GET-OBJECT-INFO CONTENTS ASCII /srv/prospero/pub/docs/" + p,
                       ("ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA " + quote(data) + "\n").encode())
replies.setdefault("DIRECTORY ASCII /srv/prospero/pub/docs\nLIST '' COMPONENTS",
                   replies.get("DIRECTORY ASCII /srv/prospero/pub/docs\nLIST LEXPAND COMPONENTS", b""))
replies.setdefault("GET-OBJECT-INFO #ALL ASCII /etc/passwd 0", b"FAILURE NOT-AUTHORIZED\n")

sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", int(sys.argv[3])))
state = {}

def send_window(addr, cid, st, after_ack):
    pk, acked = st["packets"], st["acked"]
    total, last = len(pk), min(acked + 16, len(pk))
    for seq in range(acked + 1, last + 1):
        if total == 1 and not after_ack:
            h = bytes([3]) + cid.to_bytes(2, "big")
        elif seq == last and seq < total:
            h = bytes([12]) + cid.to_bytes(2, "big") + seq.to_bytes(2, "big") + (total if after_ack else 0).to_bytes(2, "big") + b"\x00\x01\x00\x00\x80"
        elif after_ack or seq == total:
            h = bytes([9]) + cid.to_bytes(2, "big") + seq.to_bytes(2, "big") + total.to_bytes(2, "big") + b"\x00\x01"
        else:
            h = bytes([7]) + cid.to_bytes(2, "big") + seq.to_bytes(2, "big") + b"\x00\x00"
        sock.sendto(h + pk[seq - 1], addr)

while True:
    data, addr = sock.recvfrom(65535)
    hl, cid, seq, rcvd = header(data)
    key = (addr, cid)
    st = state.get(key)
    if seq == 0:
        if st and rcvd:
            st["acked"] = max(st["acked"], rcvd)
            if st["acked"] < len(st["packets"]):
                send_window(addr, cid, st, True)
        continue
    if st:
        send_window(addr, cid, st, st["acked"] > 0)
        continue
    cmd = commands(data[hl:].decode("latin-1"))
    print("request:", cmd.replace("\n", " | "), flush=True)
    reply = replies.get(cmd)
    if reply is None:
        reply = ("ERROR Unknown message: " + cmd.replace("\n", " ") + "\n").encode()
    st = {"packets": [reply[i:i + 1250] for i in range(0, max(len(reply), 1), 1250)], "acked": 0}
    state[key] = st
    send_window(addr, cid, st, False)
PY
	port=$(free_port)
	start_bg "$name" python3 "$IT_DIR/$name/server.py" "$root/schemes/prospero/testdata" "$IT_DIR/$name" "$port"
	# UDP has no accept to wait for: wait until the server answers STATUS.
	for _ in $(seq 1 50); do
		if python3 - "$port" <<'PY' 2>/dev/null; then break; fi
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.2)
s.sendto(b"\x09\x00\x07\x00\x01\x00\x01\x00\x00STATUS\n", ("127.0.0.1", int(sys.argv[1])))
s.recvfrom(65535)
PY
		sleep 0.1
	done
	export_env "$name" FETCH_IT_PROSPERO_ADDR "127.0.0.1:$port"
	export_env "$name" FETCH_IT_PROSPERO_DIR "$IT_DIR/$name"
	;;
stop)
	stop_pids "$name"
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac

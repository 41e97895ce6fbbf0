#!/bin/sh
# Malformed, oversized and foreign input: every bad request gets an error
# reply with a reason (or the connection is dropped), ductiled survives and
# keeps serving; another uid is refused on the Unix socket; the socket
# directory and file are owner-only.
. "$abs_top_srcdir/tests/controller/common.sh"
start_daemon --slots 2
"$PY" - "$SOCK" > "$T/py.log" 2>&1 <<'PY'
import json, socket, sys
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(path)
    f = s.makefile("rwb"); hello = json.loads(f.readline())
    assert hello["cmd"] == "hello" and hello["auth"] == "peercred", hello
    return s, f
def ask(f, raw):
    f.write(raw + b"\n"); f.flush()
    line = f.readline()
    return json.loads(line) if line else None
s, f = conn()
cases = [
    (b'{not json', "bad_json"),
    (b'[1,2,3]', "bad_request"),
    (b'{"v":9,"id":1,"cmd":"list"}', "bad_version"),
    (b'{"v":1,"id":2,"cmd":"format_disk"}', "unknown_command"),
    (b'{"v":1,"id":3,"cmd":"expand","job":1,"n":-1}', "bad_argument"),
    (b'{"v":1,"id":4,"cmd":"expand","job":1,"n":1,"hosts":["a b"]}', "bad_argument"),
    (b'{"v":1,"id":5,"cmd":"expand","job":1,"n":1,"hosts":["$(reboot)"]}', "bad_argument"),
    (b'{"v":1,"id":6,"cmd":"status","job":12345}', "unknown_job"),
    (b'{"v":1,"id":7,"cmd":"sample","job":1,"t":1,"iteration":1,"procs":1}', "unknown_job"),
    (b'\xff\xfe\x00garbage', "bad_json"),
    (b'{"v":1,"id":8,"cmd":"hello","server":"x","auth":"peercred"}', "bad_request"),
]
for raw, code in cases:
    r = ask(f, raw)
    assert r is not None and r["ok"] is False and r["error"] == code and r["reason"], (raw, r)
    print("ok: %-62s -> %s: %s" % (repr(raw[:56])[1:], r["error"], r["reason"]))
# the same connection still works
r = ask(f, b'{"v":1,"id":9,"cmd":"list"}')
assert r["ok"] is True and r["id"] == 9
print("ok: connection still usable after bad requests")
# blank lines are ignored
f.write(b"\n\n"); f.flush()
r = ask(f, b'{"v":1,"id":10,"cmd":"slots"}')
assert r["ok"] and r["result"]["total"] == 2
print("ok: blank lines ignored")
# an oversized line (past 1 MiB, the limit once a peer is authenticated: a Unix-socket peer from the
# start; docs/protocol.md): error reply, then the connection is dropped
big = b'{"v":1,"id":11,"cmd":"list","pad":"' + b"x" * 1100000 + b'"}'
try:
    s.sendall(big + b"\n")
except OSError:
    pass
r, rest = None, b""
try:
    line = f.readline()
    r = json.loads(line) if line else None
    rest = f.readline()
except ConnectionResetError:
    pass  # dropped before the reply could be read: also allowed
assert r is None or (r["ok"] is False and r["error"] == "too_large"), r
assert rest == b"", rest
print("ok: oversized message -> %s, connection dropped" % (r["error"] if r else "dropped"))
# half a message then close: nothing happens
s2, f2 = conn(); s2.sendall(b'{"v":1,"id":1,"cmd":"li'); s2.close()
# many connections at once
socks = [conn() for _ in range(50)]
for s3, f3 in socks:
    s3.close()
s4, f4 = conn()
r = ask(f4, b'{"v":1,"id":1,"cmd":"list"}')
assert r["ok"]
print("ok: daemon serves after 50 short connections")
PY
rc=$?
cat "$T/py.log"
[ $rc -eq 0 ] && ok "malformed and oversized input handled" || bad "malformed input test failed"
kill -0 "$DPID" 2>/dev/null && ok "ductiled survived" || bad "ductiled died"
ctl list > /dev/null && ok "ductiled still serves ductilectl" || bad "ductiled no longer serves"
grep -q "message larger than 1048576 bytes" "$T/daemon.log" && ok "oversized message logged" || bad "oversized message not logged"
# permissions: owner-only socket
mode=$(stat -c %a "$SOCK")
[ "$mode" = 600 ] && ok "socket mode 600" || bad "socket mode $mode"
# the default directory is created 0700 and a loose one is refused
XDG_RUNTIME_DIR="$T/xdg" ; mkdir -p "$T/xdg"
XDG_RUNTIME_DIR="$T/xdg" "$DUCTILED" --no-state > "$T/xdg.log" 2>&1 &
xp=$!
wait_until 10 '[ -S "$T/xdg/ductile/ductiled.sock" ]' && ok "default socket created in \$XDG_RUNTIME_DIR/ductile" || bad "default socket missing"
[ "$(stat -c %a "$T/xdg/ductile")" = 700 ] && ok "default directory mode 700" || bad "default directory mode $(stat -c %a "$T/xdg/ductile")"
XDG_RUNTIME_DIR="$T/xdg" DUCTILE_CONTROLLER= "$DUCTILECTL" list > /dev/null && ok "ductilectl finds the default socket" || bad "ductilectl default socket"
kill "$xp"; wait "$xp" 2>/dev/null
chmod 755 "$T/xdg/ductile"
XDG_RUNTIME_DIR="$T/xdg" "$DUCTILED" --no-state > "$T/xdg2.log" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "mode 0700" "$T/xdg2.log" && ok "a group/world-accessible socket directory is refused" || bad "loose directory accepted (rc $rc)"
# another uid is refused on the Unix socket (needs root to switch uid)
SYSPY=/usr/bin/python3
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && [ -x "$SYSPY" ]; then
  chmod 755 "$T"; chmod 666 "$SOCK"   # let the other uid reach the socket: the uid check must still refuse it
  setpriv --reuid=65534 --regid=65534 --clear-groups "$SYSPY" - "$SOCK" > "$T/uid.log" 2>&1 <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
f = s.makefile("rb")
line = f.readline()
r = json.loads(line) if line else None
print(r)
assert r is None or (r["ok"] is False and r["error"] == "not_allowed")
assert f.readline() == b""
PY
  rc=$?
  chmod 600 "$SOCK"; chmod 700 "$T"
  [ $rc -eq 0 ] && grep -q "refused a Unix-socket connection from uid 65534" "$T/daemon.log" && ok "uid 65534 refused and logged: $(cat "$T/uid.log")" || { bad "other uid not refused"; cat "$T/uid.log"; }
else
  echo "skip: uid check (needs root, setpriv and /usr/bin/python3)"
fi
exit $fail

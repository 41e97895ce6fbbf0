#!/bin/sh
# TCP transport with HMAC challenge-response: the right secret works (for
# ductilectl and for a job's controller thread), a wrong secret, a missing
# secret and an unauthenticated raw client are refused and logged, and
# secret files that others can read are refused by both sides.
. "$abs_top_srcdir/tests/controller/common.sh"
umask 077
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$T/secret"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$T/wrong"
cp "$T/secret" "$T/loose"; chmod 644 "$T/loose"
# a free port
port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
TCP="tcp:127.0.0.1:$port"

"$DUCTILED" --socket "$SOCK" --no-state --tcp "127.0.0.1:$port" --secret "$T/loose" > "$T/refuse.log" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "group or others may read it; refused" "$T/refuse.log" && ok "ductiled refuses a world-readable secret: $(cat "$T/refuse.log")" || bad "ductiled accepted a loose secret (rc $rc)"
"$DUCTILED" --socket "$SOCK" --no-state --tcp "127.0.0.1:$port" > "$T/refuse.log" 2>&1; rc=$?
[ $rc -eq 2 ] && ok "ductiled: --tcp without --secret is a usage error" || bad "--tcp without secret rc $rc"

start_daemon --slots 4 --tcp "127.0.0.1:$port" --secret "$T/secret"
"$DUCTILECTL" -c "$TCP" -k "$T/secret" list > "$T/out" 2>&1 && ok "right secret: list over TCP works" || bad "right secret refused: $(cat "$T/out")"
"$DUCTILECTL" -c "$TCP" -k "$T/wrong" list > "$T/out" 2>&1; rc=$?
[ $rc -eq 4 ] && ok "wrong secret refused (exit 4): $(cat "$T/out")" || bad "wrong secret: rc $rc $(cat "$T/out")"
grep -q "authentication failed from tcp(127.0.0.1" "$T/daemon.log" && ok "failed authentication logged" || bad "failure not logged"
"$DUCTILECTL" -c "$TCP" list > "$T/out" 2>&1; rc=$?
[ $rc -eq 4 ] && ok "no secret: refused (exit 4)" || bad "no secret: rc $rc"
"$DUCTILECTL" -c "$TCP" -k "$T/loose" list > "$T/out" 2>&1; rc=$?
[ $rc -eq 4 ] && grep -q "refused" "$T/out" && ok "ductilectl refuses a world-readable secret file" || bad "ductilectl used a loose secret: rc $rc"
# a raw client that skips authentication is answered with an error and dropped
"$PY" - "$port" > "$T/raw" 2>&1 <<'PY'
import socket, sys, json
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
f = s.makefile("rwb")
hello = json.loads(f.readline())
assert hello["cmd"] == "hello" and hello["auth"] == "hmac-sha256" and len(hello["nonce"]) == 64, hello
f.write(b'{"v":1,"id":1,"cmd":"list"}\n'); f.flush()
rep = json.loads(f.readline())
print("reply:", rep)
assert rep["ok"] is False and rep["error"] == "auth_required", rep
assert f.readline() == b"", "connection not dropped"
print("dropped")
PY
[ $? -eq 0 ] && ok "unauthenticated request: $(head -1 "$T/raw"), connection dropped" || { bad "raw client"; cat "$T/raw"; }
# the secret never crosses the wire: the hello carries only a nonce (checked above); a replayed MAC fails
"$PY" - "$port" > "$T/replay" 2>&1 <<'PY'
import socket, sys, json
def attempt(mac, nonce):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    f = s.makefile("rwb")
    json.loads(f.readline())
    f.write(json.dumps({"v": 1, "id": 1, "cmd": "auth", "nonce": nonce, "mac": mac}).encode() + b"\n"); f.flush()
    return json.loads(f.readline())
r = attempt("ab" * 32, "cd" * 32)
assert r["ok"] is False and r["error"] == "auth_failed", r
print("forged MAC refused")
PY
[ $? -eq 0 ] && ok "forged MAC refused" || { bad "forged MAC"; cat "$T/replay"; }
# a job registers over TCP with the secret
DUCTILE_CONTROLLER="$TCP" DUCTILE_CONTROLLER_SECRET="$T/secret" start_job a 2 20000 20 0 "$T/stop-a"
wait_until 30 '[ "$("$DUCTILECTL" -c "$TCP" -k "$T/secret" --json list | jget "len(d[\"jobs\"])")" = 1 ]' && ok "job registered over authenticated TCP" || bad "job did not register over TCP"
touch "$T/stop-a"; wait "$PID_a"; rc=$?
[ $rc -eq 0 ] && ok "job finished" || bad "job rc $rc"
# a job with the wrong secret keeps running without a controller
DUCTILE_CONTROLLER="$TCP" DUCTILE_CONTROLLER_SECRET="$T/wrong" start_job b 2 30 10 0
wait "$PID_b"; rc=$?
[ $rc -eq 0 ] && grep -q "FINAL size=2" "$T/b.log" && ok "job with a wrong secret runs to the end anyway" || bad "job with wrong secret rc $rc"
grep -q "authentication refused" "$T/b.log" && ok "and says why: $(grep -m1 'authentication refused' "$T/b.log")" || bad "no message about the refused authentication"
exit $fail

#!/bin/sh
# Authority per job (issue 23, item 8), with raw protocol peers
# (tests/controller/peer_edge.py): a job's connection acts only on its own
# job; take-over of a registration needs the job's key, not just the tag and
# pid `list` shows; over TCP operators name their user and may act only on
# the jobs they own, an administrator (root, the daemon's uid) on all; the
# I/O token is ductiled's to grant; a program name cannot forge a log line;
# a submitted job's log is never opened through a link.
. "$abs_top_srcdir/tests/controller/common.sh"
PEER="$abs_top_srcdir/tests/controller/peer_edge.py"
peer() { timeout -k 10 $((60 * ${TEST_TIME_SCALE:-1})) "$PY" "$PEER" "$@"; }
umask 077
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$T/secret"
port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
start_daemon --slots 8 --tcp "127.0.0.1:$port" --secret "$T/secret" --launcher true --job-logs "$T/logs"

# 1. a job acts only on itself
peer job_on_other_job "$SOCK" > "$T/other.out" 2>&1
cat "$T/other.out"
for c in expand io cancel fold period; do
  grep -q "job 1: $c on job 2: not_allowed $c: the connection of job 1 acts only on job 1" "$T/other.out" &&
    ok "job 1 may not $c job 2" || bad "job 1 did $c on job 2"
done
grep -q "job 1: drain: not_allowed" "$T/other.out" && grep -q "job 1: shutdown: not_allowed" "$T/other.out" &&
  ok "a job may not drain or shut down the daemon" || bad "job acted on the daemon"
kill -0 "$DPID" && ok "ductiled still runs" || { bad "a job shut ductiled down"; exit 1; }
grep -q "job 1: period on itself: ok=True" "$T/other.out" && ok "a job may act on itself (forwarded to it)" || bad "job on itself"
grep -q "client io grant: not_allowed" "$T/other.out" && ok "io grant from a client refused: the token is ductiled's" || bad "io grant"

# 2. take-over needs the job's key
peer takeover "$SOCK" > "$T/take.out" 2>&1
cat "$T/take.out"
j=$(sed -n 's/.*with the job.s key: job \([0-9]*\), resumed True/\1/p' "$T/take.out")
[ -n "$j" ] && grep -q "take-over without the key: job [0-9]* (asked for $j), resumed False" "$T/take.out" &&
  ! grep -q "without the key: job $j " "$T/take.out" && ok "tag and pid from list do not take a job over (a new job instead)" ||
  bad "take-over without key: $(cat "$T/take.out")"
grep -q "wrong key: job $j" "$T/take.out" && bad "a wrong key took the job over" || ok "a wrong key does not take it over"
grep -q "registration from .* names it without its key: registered as a new job" "$T/daemon.log" && ok "logged: $(grep -m1 'without its key' "$T/daemon.log" | cut -c19-)" || bad "not logged"

# 3. TCP: operators name their user; owners and administrators only
peer tcp_operators "$port" "$T/secret" "$SOCK" > "$T/tcp.out" 2>&1
cat "$T/tcp.out"
grep -q "tcp user None on job [0-9]* (owner 4242): not_allowed .*names its user" "$T/tcp.out" && ok "TCP command without a user refused" || bad "no user"
grep -q "tcp user 4243 on job [0-9]* (owner 4242): not_allowed .*belongs to uid 4242, not to uid 4243" "$T/tcp.out" &&
  ok "another user may not act on uid 4242's job" || bad "other user"
grep -q "tcp user 4242 on job [0-9]* (owner 4242): ok" "$T/tcp.out" && ok "its owner may" || bad "owner refused"
grep -q "tcp user 4242 on job [0-9]* (owner $(id -u)): not_allowed" "$T/tcp.out" && ok "uid 4242 may not act on the daemon user's job" || bad "4242 on other"
grep -q "tcp user 0 on job [0-9]* (owner $(id -u)): ok" "$T/tcp.out" && grep -q "tcp user $(id -u) on job [0-9]* (owner 4242): ok" "$T/tcp.out" &&
  ok "an administrator (root, the daemon's uid) may act on every job" || bad "admin"
grep -q "tcp user 4242 drain: not_allowed" "$T/tcp.out" && ok "only an administrator drains the daemon" || bad "drain by a user"
"$DUCTILECTL" -c "tcp:127.0.0.1:$port" -k "$T/secret" drain off > "$T/ctl.out" 2>&1 && ok "ductilectl over TCP names its user (drain, an administrator's command): $(cat "$T/ctl.out")" ||
  bad "ductilectl over TCP: $(cat "$T/ctl.out")"

# 4. a program name with a newline and escapes does not forge a log line
peer evil_binary "$SOCK" 2 > "$T/evil.out" 2>&1
grep -q "^ductiled 00:00:00: job 99 registered: FORGED" "$T/daemon.log" && bad "a forged line in the log" ||
  ok "no forged line: $(grep 'forger' "$T/daemon.log" | head -1 | cut -c19-)"
ctl list | grep -q "x?ductiled 00:00:00" && ok "list shows the name with its control characters replaced" || bad "list: $(ctl list)"

# 5. a submitted job's log through a link: refused (the link's target untouched)
mkdir -p "$T/logs"; echo keep > "$T/target"
ln -s "$T/target" "$T/logs/job-q1.log"
ctl submit -n 1 -- /bin/true > "$T/sub.out" 2>&1
wait_until 10 'grep -q "cannot use its log" "$T/daemon.log"' && ok "$(grep -m1 'cannot use its log' "$T/daemon.log" | cut -c19-)" || bad "log link: $(cat "$T/sub.out")"
[ "$(cat "$T/target")" = keep ] && ok "the link's target is untouched" || bad "target written: $(cat "$T/target")"
wait_until 10 '[ "$(ctl --json queue | jget "d[\"queue\"][0][\"state\"]")" = failed ]' && ok "the entry failed" || bad "queue: $(ctl queue)"
stop_daemon
exit $fail

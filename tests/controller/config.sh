#!/bin/sh
# ductiled's configuration file (docs/controller.md, "Configuration file"):
# a good file is applied (ductilectl shows its slots and policy), a flag
# overrides the file, an unknown key, a bad value, a section and a file others
# may write are refused with FILE:LINE (exit 2, nothing started),
# --check-config says OK or the errors (0/2) without starting anything, and
# SIGHUP re-reads the file with a malleable job running: the live keys change
# (policy, policy-params, io-lease), a key that needs a restart is logged and
# kept, a bad file changes nothing, and the job keeps running, still listed,
# on the same connection, and ends with its data checks passed.
. "$abs_top_srcdir/tests/controller/common.sh"
C="$T/ductiled.conf"
slots_total() { ctl --json list | jget 'd["slots"]["total"]'; }
policy_now() { ctl --json queue | jget 'd["policy"]'; }
lines() { grep -c "$1" "$T/daemon.log"; }

cat > "$C" <<'EOF'
# ductiled.conf for tests/controller/config.sh
slots = 3
  policy = fair          ; a comment after the value
policy-params = "cooldown=1,horizon=30"
io-lease = 30
fold-to-admit = false
EOF
chmod 600 "$C"

# --check-config: OK, nothing started
out=$("$DUCTILED" --config "$C" --socket "$SOCK" --check-config 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "$C: OK" ] && [ ! -e "$SOCK" ] && ok "--check-config: '$out', exit 0, no socket" \
  || bad "--check-config of a good file: rc $rc '$out'"

# refusals: each error with its file and line, exit 2, no socket
check_bad() { # NAME EXPECTED-TEXT: the file $T/bad.conf
  for mode in --check-config ""; do
    timeout -k 10 20 "$DUCTILED" --config "$T/bad.conf" --socket "$SOCK" --state "$T/bad.state" $mode > "$T/out" 2>&1; rc=$?
    if [ $rc -eq 2 ] && grep -qF "$2" "$T/out" && [ ! -e "$SOCK" ]; then ok "$1${mode:+ ($mode)}: exit 2: $(grep -F "$2" "$T/out")"
    else bad "$1${mode:+ ($mode)}: rc $rc, wanted '$2': $(cat "$T/out")"; fi
  done
}
printf 'slots = 2\nbogus = 1\n' > "$T/bad.conf"; chmod 600 "$T/bad.conf"
check_bad "unknown key" "$T/bad.conf:2: unknown key 'bogus'"
printf '# x\nslots = 2\npolicy = sideways\n' > "$T/bad.conf"
check_bad "bad value" "$T/bad.conf:3: bad value for 'policy': unknown policy 'sideways'"
printf 'io_lease = 3\n' > "$T/bad.conf"
check_bad "underscore" "$T/bad.conf:1: unknown key 'io_lease' (did you mean 'io-lease'?)"
printf 'slots = 2\nslots = 3\n[main]\nno-state = perhaps\n' > "$T/bad.conf"
check_bad "twice" "$T/bad.conf:2: 'slots' is given twice (first on line 1)"
check_bad "section" "$T/bad.conf:3: '[main]': the file has no sections"
check_bad "flag value" "$T/bad.conf:4: bad value for 'no-state': 'perhaps' (true or false)"
printf 'slots = 2\n' > "$T/bad.conf"; chmod 622 "$T/bad.conf"
check_bad "group-writable file" "writable by group or others: refused"
"$DUCTILED" --config "$T/none.conf" --check-config > "$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "none.conf: No such file" "$T/out" && ok "missing --config file: exit 2" || bad "missing file: rc $rc $(cat "$T/out")"
printf 'hostfile = %s\n' "$T/nohosts" > "$T/bad.conf"; chmod 600 "$T/bad.conf"
"$DUCTILED" --config "$T/bad.conf" --check-config > "$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "nohosts" "$T/out" && ok "--check-config reads the hostfile: $(cat "$T/out")" || bad "missing hostfile: rc $rc $(cat "$T/out")"
"$DUCTILED" --no-config --check-config > "$T/out" 2>&1 && ok "--no-config --check-config: $(cat "$T/out")" || bad "--no-config: $(cat "$T/out")"

# a flag overrides the file
start_daemon --config "$C" --slots 5
[ "$(slots_total)" = 5 ] && ok "--slots 5 overrides the file's slots = 3" || bad "slots $(slots_total), not 5"
stop_daemon

# the good file applied
start_daemon --config "$C"
[ "$(slots_total)" = 3 ] && ok "the file's slots = 3 in force" || bad "slots $(slots_total), not 3"
[ "$(policy_now)" = fair ] && ok "the file's policy = fair in force" || bad "policy $(policy_now), not fair"
grep -q "configuration from $C" "$T/daemon.log" && ok "logged: $(grep "configuration from" "$T/daemon.log")" || bad "no 'configuration from' line"

# SIGHUP with a malleable job running (min = max = 2: no policy resizes it)
DUCTILE_MIN_PROCS=2 DUCTILE_MAX_PROCS=2 start_job a 2 100000 50 0 "$T/stop-a"
wait_until 40 '[ "$(job_field 1 "d[\"state\"]")" = running ]' \
  && ok "job 1 registered and running" || { bad "job did not register"; exit 1; }
wait_until 30 '[ "$(job_field 1 "d[\"iteration\"] >= 5")" = True ]' || bad "job 1 does not iterate"
it0=$(job_field 1 'd["iteration"]')
cat > "$C" <<'EOF'
slots = 4
policy = efficiency
policy-params = cooldown=2
io-lease = 10
EOF
kill -HUP "$DPID"
wait_until 20 'grep -q "configuration reloaded from" "$T/daemon.log"' && ok "reload: $(grep "configuration reloaded" "$T/daemon.log")" \
  || bad "no reload logged"
[ "$(policy_now)" = efficiency ] && ok "policy now efficiency" || bad "policy $(policy_now) after the reload"
for k in "'policy' changed from 'fair' to 'efficiency'" "'policy-params' changed from 'cooldown=1,horizon=30' to 'cooldown=2'" \
         "'io-lease' changed from '30' to '10'" "'slots' changed from '3' to '4': takes effect at the next start"; do
  grep -qF "$k" "$T/daemon.log" && ok "logged: $k" || bad "not logged: $k"
done
[ "$(slots_total)" = 3 ] && ok "slots stay 3 until a restart" || bad "slots $(slots_total) after the reload"

# a bad file on SIGHUP changes nothing
printf 'policy = fair\nio-lease = 5\nfrobnicate = yes\n' > "$C"
kill -HUP "$DPID"
wait_until 20 'grep -q "configuration not reloaded: $C:3: unknown key" "$T/daemon.log"' \
  && ok "bad file: $(grep "not reloaded: $C:3" "$T/daemon.log")" || bad "unknown key on reload not logged"
printf 'policy = fair\nio-lease = 5\nio-policy = psychic\n' > "$C"
kill -HUP "$DPID"
wait_until 20 'grep -q "configuration not reloaded: $C:3: bad value for .io-policy." "$T/daemon.log"' \
  && ok "bad value: $(grep "not reloaded: $C:3: bad value" "$T/daemon.log")" || bad "bad value on reload not logged"
[ "$(policy_now)" = efficiency ] && ok "policy still efficiency (the bad files changed nothing)" || bad "policy $(policy_now) after bad files"
[ "$(lines "'policy' changed")" = 1 ] && ok "no key logged as changed by the bad files" || bad "a bad file changed keys"

# the job ran on through every reload, on its first connection
wait_until 20 '[ "$(job_field 1 "d[\"iteration\"] > '"$it0"' + 10")" = True ]' && ok "job 1 iterates on ($it0 -> $(job_field 1 'd["iteration"]'))" \
  || bad "job 1 stopped iterating"
[ "$(job_field 1 'd["state"]')" = running ] && ok "job 1 still listed, running" || bad "job 1 state $(job_field 1 'd["state"]')"
ctl period 1 0.3 > "$T/out" 2>&1 && ok "a command reaches job 1 after the reloads: $(cat "$T/out")" || bad "period: $(cat "$T/out")"
n=$(ctl --json events 1 | jget 'len([e for e in d["events"] if e["kind"] in ("registered", "crashed", "disconnected", "reconnect")])')
[ "$n" = 1 ] && ok "one registration, no reconnection" || bad "job 1 re-registered or reconnected: $n events"
kill -0 "$DPID" && ok "the daemon kept its process ($DPID)" || bad "the daemon is gone"
touch "$T/stop-a"
wait_until 60 '[ "$(job_field 1 "d[\"state\"]")" = exited ]' && ok "job 1 exited" || bad "job 1 did not exit"
wait_until 30 'grep -q FINAL "$T/a.log"' ; grep -q "FINAL .*failures=0" "$T/a.log" && ok "job data checks: $(grep FINAL "$T/a.log")" \
  || bad "job: $(tail -5 "$T/a.log")"
daemon_clean
exit $fail

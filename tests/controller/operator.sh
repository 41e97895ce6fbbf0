#!/bin/sh
# Operator features of ductilectl/ductiled: --version, list --noheader and
# --format with user and start columns, raw program names never reach the
# terminal, events, drain, expand --hosts names and empty lists, watch across a
# daemon restart, shutdown.
. "$abs_top_srcdir/tests/controller/common.sh"
PEER="$abs_top_srcdir/tests/controller/peer.py"
peer() { timeout -k 10 $((60 * ${TEST_TIME_SCALE:-1})) "$PY" "$PEER" "$@"; }

"$DUCTILED" --version | grep -q "^ductiled (Ductile) " && ok "ductiled --version" || bad "ductiled --version"
start_daemon --slots 4
ctl --version > "$T/out" 2>&1
grep -q "^ductilectl (Ductile) " "$T/out" && grep -q "^ductiled " "$T/out" && ok "ductilectl --version names both: $(tr '\n' ' ' < "$T/out")" || bad "--version: $(cat "$T/out")"
peer evil "$SOCK" $((30 * ${TEST_TIME_SCALE:-1})) > "$T/evil.out" 2>&1 &
ep=$!
wait_until 10 '[ -s "$T/evil.out" ]'
ej=$(head -1 "$T/evil.out")
ctl list > "$T/list.out"
if od -c "$T/list.out" | grep -q '033'; then bad "an escape sequence reached the terminal"; else ok "program name printed without control characters: $(grep evil "$T/list.out")"; fi
ctl --noheader --format job,user,start,tag list > "$T/list2.out"
[ "$(wc -l < "$T/list2.out")" = 1 ] && grep -q "^$ej *$(id -un) " "$T/list2.out" && ok "--noheader --format job,user,start,tag: $(cat "$T/list2.out")" || bad "format: $(cat "$T/list2.out")"
# a script's use: the job number alone, no padding, usable as an argument (the stranger's "1   ")
J=$(ctl --noheader --format job list | head -1)
[ "$J" = "$ej" ] && ctl status "$J" > /dev/null && ok "--noheader --format job gives '$J', usable as is" || bad "--format job gave '$J'"
ctl --format job,nonsense list > /dev/null 2>&1; [ $? -eq 2 ] && ok "bad --format column is a usage error" || bad "bad --format accepted"
ctl events "$ej" > "$T/ev.out" && grep -q "registered" "$T/ev.out" && ok "events: $(head -1 "$T/ev.out")" || bad "events: $(cat "$T/ev.out")"
ctl status "$ej" | grep -q "recent events" && ok "human status shows events and plans" || bad "status without events"
ctl drain > /dev/null && peer try_register "$SOCK" > "$T/late.out" 2>&1
grep -q '"not_allowed"' "$T/late.out" && ok "drain: a new job is refused" || bad "drain: $(cat "$T/late.out")"
ctl list | grep -q "draining" && ok "list says draining" || bad "list does not say draining"
ctl drain off > /dev/null && peer try_register "$SOCK" > "$T/late.out" 2>&1
grep -q '"ok": true' "$T/late.out" && ok "drain off: new jobs again" || bad "drain off: $(cat "$T/late.out")"
# the whole run in watch and in tools/plot-timeline's series
peer timeline "$SOCK" $((30 * ${TEST_TIME_SCALE:-1})) > "$T/tl.out" 2>&1 &
tp=$!
wait_until 30 '[ -s "$T/tl.out" ]'
tj=$(head -1 "$T/tl.out")
ctl watch "$tj" --count 1 > "$T/w1.out" 2>&1
grep -q "whole run, iteration time" "$T/w1.out" && grep -A1 "whole run" "$T/w1.out" | tail -1 | grep -q "[#@]" && grep -q "R" "$T/w1.out" && ok "watch shows the whole run: $(grep -A2 'whole run' "$T/w1.out" | tr '\n' '|')" || bad "watch timeline: $(cat "$T/w1.out")"
ctl --json status "$tj" --history 4096 > "$T/tl.json"
"$PY" - "$abs_top_srcdir/tools/plot-timeline" "$T/tl.json" > "$T/pt.out" 2>&1 <<'PY'
import importlib.machinery, importlib.util, json, sys
ld = importlib.machinery.SourceFileLoader("pt", sys.argv[1])
m = importlib.util.module_from_spec(importlib.util.spec_from_loader("pt", ld)); ld.exec_module(m)
d = m.from_daemon(json.load(open(sys.argv[2])))
ix, iy = d["iters"]
print("resizes", len(d["resizes"]), "phases", len(d["phases"]), "first iteration", ix[0], "points", len(ix))
assert ix[0] < 100, "the run's beginning is missing"
assert len(d["resizes"]) == 1 and d["resizes"][0][4] == 3500
assert len(d["phases"]) >= 50
x, y = m.downsample(ix, iy, 100)
assert len(x) <= 100 and abs(x[0] - ix[0]) < 100
PY
[ $? -eq 0 ] && ok "plot-timeline series: $(cat "$T/pt.out")" || bad "plot-timeline series: $(cat "$T/pt.out")"
kill $tp 2>/dev/null; wait $tp 2>/dev/null

# watch survives a restart of the daemon
ctl watch --interval 0.5 --count 8 > "$T/watch.out" 2> "$T/watch.err" &
wp=$!
sleep 1
stop_daemon
start_daemon --slots 4
wait_until 30 '! kill -0 $wp 2>/dev/null'
wait $wp; rc=$?
[ $rc -eq 0 ] && grep -q "reconnected" "$T/watch.err" && ok "watch reconnected after a daemon restart" || bad "watch: rc $rc $(cat "$T/watch.err")"
# expand --hosts under --slots: this machine as localhost or its short or long name, each
# sent to the job as the managed host's name; another name refused naming the managed host;
# empty lists refused (ductilectl, and the daemon's edge: tests/unit/test_schema.c)
stop_daemon; rm -f "$T/state.json"; start_daemon --slots 4  # all 4 slots free: 1 for the job, 3 for its expansions
peer expand_hosts "$SOCK" $((30 * ${TEST_TIME_SCALE:-1})) > "$T/xh.out" 2>&1 &
xp=$!
wait_until 10 '[ -s "$T/xh.out" ]'
xj=$(head -1 "$T/xh.out")
me=$(ctl --json slots | jget 'd["hosts"][0]["name"]')
n=0
for h in $(printf "%s\n" localhost "$(hostname -s)" "$(hostname -f 2>/dev/null)" "$(hostname)" | awk 'NF && !seen[$0]++'); do
  n=$((n + 1))
  ctl expand "$xj" 1 --hosts "$h" > "$T/xh$n.out" 2>&1 && wait_until 10 '[ "$(grep -c "^expand hosts" "$T/xh.out")" -ge "$n" ]' &&
    [ "$(grep '^expand hosts' "$T/xh.out" | sed -n ${n}p)" = "expand hosts [\"$me\"]" ] &&
    ok "expand --hosts $h accepted, sent to the job as $me" || bad "expand --hosts $h: $(cat "$T/xh$n.out") $(cat "$T/xh.out")"
done
ctl expand "$xj" 1 --hosts nosuchhost > "$T/xh.out2" 2>&1 && bad "expand --hosts nosuchhost accepted" ||
  { grep -q "host 'nosuchhost' is not managed by this ductiled (its hosts: $me)" "$T/xh.out2" &&
      ok "expand --hosts nosuchhost refused: $(cat "$T/xh.out2")" || bad "expand --hosts nosuchhost: $(cat "$T/xh.out2")"; }
ctl expand "$xj" 1 --hosts '' > "$T/xh.out3" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "empty" "$T/xh.out3" && ok "expand --hosts '' refused: $(cat "$T/xh.out3")" || bad "expand --hosts '': rc $rc $(cat "$T/xh.out3")"
ctl shrink "$xj" 1 --ranks '' > "$T/xh.out4" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "empty" "$T/xh.out4" && ok "shrink --ranks '' refused: $(cat "$T/xh.out4")" || bad "shrink --ranks '': rc $rc $(cat "$T/xh.out4")"
ctl shrink "$xj" 1 --ranks '0,0' > "$T/xh.out5" 2>&1
grep -q "shrink: 'ranks' names rank 0 twice" "$T/xh.out5" && ! grep -q "'ranks': 'ranks'" "$T/xh.out5" &&
  ok "a rank named twice, said once: $(cat "$T/xh.out5")" || bad "duplicate rank: $(cat "$T/xh.out5")"
kill $xp 2>/dev/null; wait $xp 2>/dev/null

ctl shutdown > "$T/out" && wait_until 10 '! kill -0 $DPID 2>/dev/null' && ok "shutdown: $(cat "$T/out")" || bad "shutdown did not stop the daemon"
DPID=""
kill $ep 2>/dev/null; wait $ep 2>/dev/null
exit $fail

#!/bin/sh
# Operator features of ductilectl/ductiled: --version, list --noheader and
# --format with user and start columns, raw program names never reach the
# terminal, events, drain, watch across a daemon restart, shutdown.
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
ctl shutdown > "$T/out" && wait_until 10 '! kill -0 $DPID 2>/dev/null' && ok "shutdown: $(cat "$T/out")" || bad "shutdown did not stop the daemon"
DPID=""
kill $ep 2>/dev/null; wait $ep 2>/dev/null
exit $fail

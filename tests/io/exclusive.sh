#!/bin/sh
# Exclusive I/O: two real jobs (io_pattern, unmodified, 2 ranks each) with
# DUCTILE_IO_EXCLUSIVE=1 and one ductiled: their I/O phases, taken from the
# two reports' timestamps, never overlap; the token delays are reported; the
# phases reach ductiled as io_phase events.
. "$abs_top_srcdir/tests/io/common.sh"
DUCTILED="$B/tools/ductiled"; DUCTILECTL="$B/tools/ductilectl"
chmod 700 "$T"
SOCK="$T/d.sock"
"$DUCTILED" --socket "$SOCK" --no-state > "$T/daemon.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
export DUCTILE_CONTROLLER="unix:$SOCK" DUCTILE_CONTROLLER_PERIOD=200 DUCTILE_IO_EXCLUSIVE=1
run_pattern ja 2 6 150 & P1=$!
run_pattern jb 2 6 150 & P2=$!
wait $P1; r1=$?
wait $P2; r2=$?
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && ok "both jobs ran (6 I/O phases each, 150 ms apart)" || bad "jobs failed: $r1 $r2"
"$PY" "$S/tests/io/check_io.py" disjoint "$T/ja.json" "$T/jb.json" || fail=1
d=$("$PY" -c "import json; print(sum(json.load(open('$T/'+n+'.json'))['io']['totals']['delay_s'] for n in ('ja','jb')))")
"$PY" -c "import sys; sys.exit(0 if $d > 0 else 1)" && ok "token delays reported: $d s in total" || bad "no delay reported ($d)"
n=$("$DUCTILECTL" -c "unix:$SOCK" --json status 1 --history 0 2>/dev/null | "$PY" -c "import json,sys; d=json.load(sys.stdin); print(len([e for e in d['events'] if e['kind']=='io_phase']))" 2>/dev/null)
[ "${n:-0}" -ge 5 ] && ok "ductiled received $n io_phase events from job 1" || bad "io_phase events at ductiled: '${n:-none}'"
exit $fail

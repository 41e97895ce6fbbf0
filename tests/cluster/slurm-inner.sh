#!/usr/bin/env bash
# tests/cluster/slurm-inner.sh PART -- the part of tests/cluster/slurm.sh that
# runs inside a Slurm allocation (salloc on dnode1): ductiled --slurm and the
# jobs it manages.  Prints "ok: ..." and "FAIL: ..." lines; exit 1 on a failure.
#   grow  (salloc -N4 -n4, 1 CPU per host): an MPI job on 2 hosts grows to 4
#         hosts and shrinks to 1 (data checked by ctl_job), a refusal, the
#         hosts still held while its departed processes run; a second job
#         through a ductiled restart during its 2 -> 4 expansion; a job whose
#         departed processes exit (fakejob.py) gives 3 hosts back: Slurm shows
#         them idle and the job on 1 host.
#   lost  (salloc -k -N3 -n6 -w dnode1,dnode2,dnode5, 2 CPUs per host):
#         placement fills a host before opening another; Slurm refuses a
#         give-back (a stand-in scontrol), ductiled keeps the host, then gives
#         it back when Slurm agrees; dnode5 disappears (tools/cluster lose, by
#         the outer test): ductiled marks it lost, its view matches Slurm's,
#         the job goes on, requests for the lost host are refused.
#   basic (salloc -N4 -n4; Open MPI 5, Debian's MPICH 4.0): a job on 2 hosts
#         monitored, asked to grow to 4 hosts and to shrink to 1; the data
#         checked, and what each step did measured into the rows.
#   beyond (salloc -N1 -n2 -w dnode1; ductiled --slurm-grow): an MPICH job
#         on dnode1 grows beyond the allocation onto dnode2, which Slurm adds
#         to the job (data checked, new ranks on dnode2), then shrinks: Slurm
#         will not change the resized job again, ductiled says why; with Open
#         MPI the growth is refused with the reason; a job that is no MPI
#         job (fakejob.py) grows onto a host Slurm adds, and is refused with
#         Slurm's reason while the other hosts are taken.  The outer test
#         checks that the added hosts are idle once the allocation ends.
# Environment from slurm.sh: T (work directory), B (build tree), S (source
# tree), PYTHON, MPIEXEC, MPI_FAMILY, scale, RESULTS (rows of the table of
# what works where: tests/results-lib.sh).
set -u
part=$1
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
SOCK=$T/d.$part.sock
ctl() { "$B/tools/ductilectl" -c "unix:$SOCK" "$@"; }
jget() { "$PYTHON" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# wait_until SECONDS 'condition' (scaled, polled every 0.2 s)
wait_until() {
  local n=$(($1 * 5 * scale)); shift
  while [ $n -gt 0 ]; do eval "$@" && return 0; sleep 0.2; n=$((n - 1)); done
  return 1
}
# slurm view: "name:state:procs:parked" per host
view() { ctl --json slots | jget '" ".join("%s:%s:%d:%d" % (h["name"], h["state"], h["procs"], h["parked"]) for h in d["slurm"]["hosts"])'; }
reason() { ctl --json slots | jget '[h.get("kept_because", "") for h in d["slurm"]["hosts"] if h["name"] == "'"$1"'"][0]'; }
procs() { ctl --json status "$1" 2>/dev/null | jget 'd["procs"]' 2>/dev/null; }
slurm_nodes() { scontrol show hostnames "$(scontrol show job "$SLURM_JOB_ID" -o | tr ' ' '\n' | sed -n 's/^NodeList=//p')" | tr '\n' ' ' | sed 's/ $//'; }
ductiled_up() { ctl --json slots | jget '" ".join(h["name"] for h in d["slurm"]["hosts"] if h["state"] == "up")'; }
DP=
start_daemon() {
  "$B/tools/ductiled" --slurm ${GROW:+--slurm-grow} --slurm-sync 0.5 --socket "$SOCK" --state "$T/d.$part.state" -v >> "$T/d.$part.log" 2>&1 &
  DP=$!
  wait_until 10 '[ -S "$SOCK" ] && ctl list >/dev/null 2>&1' || bad "ductiled --slurm did not start: $(tail -3 "$T/d.$part.log")"
}
JOBPID=
BUSY=
cleanup() {
  [ -n "$BUSY" ] && scancel "$BUSY" 2>/dev/null
  [ -n "$JOBPID" ] && kill "$JOBPID" 2>/dev/null
  [ -n "$DP" ] && kill "$DP" 2>/dev/null && wait "$DP" 2>/dev/null
}
trap cleanup EXIT
# job id of the running job whose binary is $1
jobid() { ctl --json list | jget '[j["job"] for j in d["jobs"] if j["binary"] == "'"$1"'" and j["state"] == "running"][-1]' 2>/dev/null; }

. "$S/tests/results-lib.sh"
if [ "$MPI_FAMILY" = openmpi ]; then PPN1="--map-by ppr:1:node"; else PPN1="-ppn 1"; fi

case $part in
grow)
  start_daemon
  [ "$(view)" = "dnode1:up:0:0 dnode2:up:0:0 dnode3:up:0:0 dnode4:up:0:0" ] &&
    [ "$(ctl --json slots | jget 'd["total"]')" = 4 ] && ok "ductiled --slurm: 4 hosts, 1 CPU each, from Slurm job $SLURM_JOB_ID" ||
    bad "allocation seen: $(view), total $(ctl --json slots | jget 'd["total"]')"

  # --- an MPI job on 2 hosts grows to 4 and shrinks to 1
  # shellcheck disable=SC2086
  DUCTILE_CONTROLLER=unix:$SOCK DUCTILE_REPORT=$T/grow.json timeout -k 10 $((60 * scale)) $MPIEXEC $PPN1 -n 2 \
    "$B/tests/controller/ctl_job" 1000000 30 0 "$T/stop.grow" > "$T/grow.log" 2>&1 &
  JOBPID=$!
  wait_until 30 '[ -n "$(jobid ctl_job)" ]' || bad "the MPI job did not register: $(tail -5 "$T/grow.log")"
  J=$(jobid ctl_job)
  [ "$(view)" = "dnode1:up:1:0 dnode2:up:1:0 dnode3:up:0:0 dnode4:up:0:0" ] && ok "job $J registered on dnode1, dnode2" || bad "placement at start: $(view)"
  if [ "$MPI_FAMILY" = openmpi ]; then # PMIx facts read by the job (src/cluster/pmix.c) and sent at registration
    pm=$(ctl --json slots | jget 'd["slurm"]["pmix"]["'"$J"'"]' 2>/dev/null)
    echo "$pm" | grep -q "'job_size': 2, 'univ_size': 4, 'node_list': 'dnode1,dnode2'" && ok "PMIx facts from the job: $pm" || bad "PMIx facts: '$pm'"
  fi
  ctl expand "$J" 2 >/dev/null || bad "expand $J 2 refused"
  wait_until 60 '[ "$(procs "$J")" = 4 ] && [ "$(view)" = "dnode1:up:1:0 dnode2:up:1:0 dnode3:up:1:0 dnode4:up:1:0" ]' &&
    ok "2 -> 4 processes on 4 hosts (the new ones on dnode3, dnode4)" || bad "after expand: procs $(procs "$J"), $(view)"
  ctl expand "$J" 1 > /dev/null 2> "$T/refused"
  grep -q "not enough free slots: 1 requested, 0 of 4 free in Slurm job $SLURM_JOB_ID" "$T/refused" &&
    ok "refused beyond the allocation: $(cat "$T/refused")" || bad "expansion beyond the allocation: $(cat "$T/refused")"
  t0=$(date +%s.%N)
  ctl shrink "$J" 3 >/dev/null || bad "shrink $J 3 refused"
  wait_until 60 '[ "$(procs "$J")" = 1 ]' && ok "4 -> 1 process" || bad "after shrink: procs $(procs "$J")"
  sleep 1.5 # a few sync periods: nothing may be given back while departed processes run
  v=$(view); r=$(reason dnode3)
  if [ "$v" = "dnode1:up:1:0 dnode2:up:0:1 dnode3:up:0:1 dnode4:up:0:1" ] && echo "$r" | grep -q "still run there" &&
     [ "$(slurm_nodes)" = "dnode1 dnode2 dnode3 dnode4" ]; then
    ok "hosts of the departed (parked) processes stay in the allocation: $v; dnode3 kept because: $r"
  else
    bad "after shrink: ductiled $v (dnode3: $r), Slurm $(slurm_nodes)"
  fi
  touch "$T/stop.grow"
  wait "$JOBPID"; rc=$?; JOBPID=
  grep -q "FINAL size=1 .*failures=0" "$T/grow.log" && [ $rc = 0 ] && ok "job data checked: $(grep FINAL "$T/grow.log")" ||
    bad "job failed (exit $rc): $(tail -5 "$T/grow.log")"
  read -r r1 r2 r3 <<< "$(resizes "$T/grow.json")"
  if [ "${r1%%:*}" = "2->4" ] && [ "${r2%%:*}" = "4->1" ] && [ -z "$r3" ]; then
    result mpiexec monitor works - "registers with ductiled, samples"
    result mpiexec expand works "${r1#*:}" "2 -> 4 onto 2 more hosts of the allocation (spawn with info host)"
    result mpiexec shrink works "${r2#*:}" "4 -> 1"
    if [ "${MPI_NAME#Open MPI 4}" = "$MPI_NAME" ] && [ "$MPI_FAMILY" = openmpi ]; then
      result mpiexec "host given back" kept - "departed processes, spawned ones too, park until the job ends: ductiled gives back no host while an Open MPI mpiexec job runs (what PRRTE does when a host of its daemons goes is not measured)"
    elif [ "$MPI_FAMILY" = openmpi ]; then
      result mpiexec "host given back" kept - "Open MPI 4.1: departed processes, spawned ones too, park until the job ends, and mpiexec ends the job when a host of its daemons goes: ductiled gives back no host while an Open MPI mpiexec job runs"
    else
      result mpiexec "host given back" kept - "4 -> 1 takes an mpiexec-started rank with the spawned ones: all park until the job ends, their hosts stay; a shrink that removes exactly a spawned group lets it exit and its host goes back (row: host given back after a growth)"
    fi
  else
    bad "report: resizes '$r1 $r2 $r3'"
  fi
  "$PYTHON" - "$T/grow.json" <<'PY' && ok "report: rank 0 on dnode1, departed from dnode2, dnode3, dnode4" || bad "report hosts"
import json, sys
r = json.load(open(sys.argv[1]))
ranks = {x["rank"]: x.get("host") for x in r["ranks"]}
gone = sorted(x.get("host") for x in r.get("departed", []))
if ranks != {0: "dnode1"} or gone != ["dnode2", "dnode3", "dnode4"]:
    sys.exit("ranks %s departed %s" % (ranks, gone))
PY
  wait_until 5 '[ "$(view)" = "dnode1:up:0:0 dnode2:up:0:0 dnode3:up:0:0 dnode4:up:0:0" ]' &&
    [ "$(slurm_nodes)" = "dnode1 dnode2 dnode3 dnode4" ] && ok "job ended: its hosts stay in the allocation for the next job" ||
    bad "after the job: $(view), Slurm $(slurm_nodes)"

  # --- ductiled restarts during a multi-host expansion
  # shellcheck disable=SC2086
  DUCTILE_CONTROLLER=unix:$SOCK DUCTILE_REPORT=$T/restart.json timeout -k 10 $((60 * scale)) $MPIEXEC $PPN1 -n 2 \
    "$B/tests/controller/ctl_job" 1000000 30 0 "$T/stop.restart" > "$T/restart.log" 2>&1 &
  JOBPID=$!
  wait_until 30 '[ -n "$(jobid ctl_job)" ]' || bad "the second MPI job did not register"
  J=$(jobid ctl_job)
  ctl expand "$J" 2 >/dev/null || bad "expand $J 2 refused"
  kill -KILL "$DP"; wait "$DP" 2>/dev/null
  start_daemon
  wait_until 60 '[ "$(procs "$J")" = 4 ]' && ok "ductiled killed during the 2 -> 4 expansion and restarted: the job is back at 4 processes" ||
    bad "after the restart: $(ctl list 2>&1 | tail -2)"
  [ "$(ductiled_up)" = "$(slurm_nodes)" ] && ok "restarted ductiled's hosts match Slurm's: $(slurm_nodes)" || bad "ductiled $(ductiled_up), Slurm $(slurm_nodes)"
  touch "$T/stop.restart"
  wait "$JOBPID"; rc=$?; JOBPID=
  grep -q "FINAL size=4 .*failures=0" "$T/restart.log" && [ $rc = 0 ] && ok "job data checked: $(grep FINAL "$T/restart.log")" ||
    bad "job failed (exit $rc): $(tail -5 "$T/restart.log")"
  "$PYTHON" - "$T/restart.json" <<'PY' && ok "report: ranks on dnode1..dnode4" || bad "report hosts after the restart"
import json, sys
r = json.load(open(sys.argv[1]))
hosts = sorted(x.get("host") for x in r["ranks"])
if hosts != ["dnode1", "dnode2", "dnode3", "dnode4"]:
    sys.exit("ranks on %s" % hosts)
PY

  # --- a job whose departed processes exit gives its hosts back
  "$PYTHON" "$S/tests/cluster/fakejob.py" "$SOCK" "$T/stop.fake" $((60 * scale)) dnode1,dnode2 0.2 > "$T/fake.log" 2>&1 &
  JOBPID=$!
  wait_until 10 '[ -n "$(jobid fakejob)" ]' || bad "fakejob did not register: $(cat "$T/fake.log")"
  F=$(jobid fakejob)
  ctl expand "$F" 2 >/dev/null && wait_until 10 '[ "$(view)" = "dnode1:up:1:0 dnode2:up:1:0 dnode3:up:1:0 dnode4:up:1:0" ]' &&
    ok "job $F on 2 hosts grew to 4" || bad "fakejob expand: $(view)"
  t0=$(date +%s.%N)
  ctl shrink "$F" 3 >/dev/null || bad "shrink $F 3 refused"
  if wait_until 20 '[ "$(slurm_nodes)" = dnode1 ]'; then
    t1=$(date +%s.%N)
    ok "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "3 hosts given back: Slurm job on dnode1 %.2f s after the shrink command", b - a }') (the job reported its departed processes exited 0.2 s after the shrink); ductiled: $(grep -o 'gave .* in [0-9.]* s' "$T/d.$part.log" | tail -1)"
  else
    bad "hosts not given back: Slurm $(slurm_nodes), ductiled $(view); $(grep slurm: "$T/d.$part.log" | tail -3)"
  fi
  st=$(sinfo -h -N -n dnode2,dnode3,dnode4 -o '%N %t' | tr '\n' ' ')
  [ "$st" = "dnode2 idle dnode3 idle dnode4 idle " ] && ok "sinfo: $st" || bad "sinfo after the give-back: $st"
  [ "$(view)" = "dnode1:up:1:0 dnode2:released:0:0 dnode3:released:0:0 dnode4:released:0:0" ] &&
    [ "$(ductiled_up)" = "$(slurm_nodes)" ] && ok "ductiled's view matches Slurm's: $(view)" || bad "ductiled view $(view)"
  ctl expand "$F" 1 --hosts dnode3 > /dev/null 2> "$T/refused"
  grep -q "dnode3' was given back" "$T/refused" && ok "refused: $(cat "$T/refused")" || bad "expand onto a released host: $(cat "$T/refused")"
  touch "$T/stop.fake"
  wait "$JOBPID"; JOBPID=
  ;;
basic)
  # Open MPI 5 and Debian's MPICH 4.0 under mpiexec in the allocation (salloc -N4 -n4): a job on
  # dnode1, dnode2 is monitored, asked to grow onto dnode3, dnode4 and to shrink to 1; the data is
  # checked in every case, and what each step did is measured into the rows
  start_daemon
  # shellcheck disable=SC2086
  DUCTILE_CONTROLLER=unix:$SOCK DUCTILE_REPORT=$T/basic.json timeout -k 10 $((60 * scale)) $MPIEXEC $PPN1 -n 2 \
    "$B/tests/controller/ctl_job" 1000000 30 0 "$T/stop.basic" > "$T/basic.log" 2>&1 &
  JOBPID=$!
  wait_until 30 '[ -n "$(jobid ctl_job)" ] || ! kill -0 $JOBPID 2>/dev/null'
  J=$(jobid ctl_job)
  [ -n "$J" ] && [ "$(view)" = "dnode1:up:1:0 dnode2:up:1:0 dnode3:up:0:0 dnode4:up:0:0" ] && ok "job $J registered on dnode1, dnode2" ||
    bad "the MPI job did not register on dnode1, dnode2: $(view); $(tail -5 "$T/basic.log")"
  wait_until 10 '[ "$(ctl --json status "$J" | jget "d[\"iteration\"]")" -gt 0 ]' && ok "monitored: samples arrive" &&
    result mpiexec monitor works - "registers with ductiled, samples" || bad "no samples from job $J"
  ctl expand "$J" 2 > /dev/null || bad "expand $J 2 refused"
  wait_until 60 '[ "$(ctl --json status "$J" | jget "d[\"pending\"]")" = 0 ] && [ "$(procs "$J")" != "" ]' || bad "the expansion did not end"
  n=$(procs "$J")
  ok "after the expansion: $n processes ($(view))"
  ctl shrink "$J" $((n - 1)) > /dev/null || bad "shrink $J $((n - 1)) refused"
  wait_until 60 '[ "$(procs "$J")" = 1 ]' && ok "$n -> 1 process" || bad "after shrink: procs $(procs "$J")"
  sleep 1.5 # a few sync periods: nothing may be given back while departed processes run
  r=$(reason dnode2)
  echo "$r" | grep -q "still run there" && [ "$(slurm_nodes)" = "dnode1 dnode2 dnode3 dnode4" ] && ok "dnode2 kept: $r" ||
    bad "after the shrink: Slurm $(slurm_nodes), dnode2 kept because '$r'"
  touch "$T/stop.basic"
  wait "$JOBPID"; rc=$?; JOBPID=
  grep -q "FINAL size=1 .*failures=0" "$T/basic.log" && ok "job data checked: $(grep FINAL "$T/basic.log") (mpiexec: exit $rc)" ||
    bad "job failed (exit $rc): $(tail -5 "$T/basic.log")"
  rs=$(resizes "$T/basic.json"); fr=$(failed_reason "$T/basic.json")
  where=$("$PYTHON" -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(",".join(sorted(x.get("host", "?") for x in r.get("departed", []))))' "$T/basic.json" 2>/dev/null)
  read -r r1 r2 r3 <<< "$rs"
  if [ "$n" = 2 ] && [ -n "$fr" ] && [ "${r1%%:*}" = "2->1" ] && [ -z "$r2" ]; then
    ok "the expansion failed with its cause, the job went on at 2: $fr"
    result mpiexec expand fails - "the job goes on at its size, its data intact: ${fr//$B\//}"
    result mpiexec shrink works "${r1#*:}" "2 -> 1"
  elif [ "$n" = 4 ] && [ "${r1%%:*}" = "2->4" ] && [ "${r2%%:*}" = "4->1" ] && [ -z "$r3" ]; then
    if [ $rc = 0 ] && [ "$where" = "dnode2,dnode3,dnode4" ]; then
      result mpiexec expand works "${r1#*:}" "2 -> 4 onto 2 more hosts of the allocation (spawn with info host)"
    else
      c="the data is checked, but"
      [ "$where" = "dnode2,dnode3,dnode4" ] || c="$c the new processes ran on $(echo "$where" | cut -d, -f2-), not dnode3,dnode4 (the spawn's host info: dnode3,dnode4),"
      [ $rc = 0 ] || c="$c mpiexec ends with exit $rc at the job's end ($(grep -m1 -oE 'free\(\)[^\r]*|double free[^\r]*|corrupt[^\r]*' "$T/basic.log" || echo "no message"); no Ductile code runs in mpiexec)"
      ok "expansion: ${c%,}"
      result mpiexec expand fails "${r1#*:}" "2 -> 4: ${c%,}"
    fi
    result mpiexec shrink works "${r2#*:}" "4 -> 1"
  else
    bad "report: resizes '$rs', failed '$fr'"
  fi
  result mpiexec "host given back" kept - "the departed processes, mpiexec-started ones too, park until the job ends, and their hosts stay ($r)"
  ;;
lost)
  # a stand-in scontrol that refuses updates until $T/allow exists
  mkdir -p "$T/bin"
  real=$(command -v scontrol)
  printf '#!/bin/sh\nif [ "$1" = update ] && [ ! -e "%s/allow" ]; then echo "slurm_update error: Invalid node name specified (refused by the test)"; exit 1; fi\nexec %s "$@"\n' "$T" "$real" > "$T/bin/scontrol"
  chmod +x "$T/bin/scontrol"
  PATH=$T/bin:$PATH start_daemon
  [ "$(view)" = "dnode1:up:0:0 dnode2:up:0:0 dnode5:up:0:0" ] && [ "$(ctl --json slots | jget 'd["total"]')" = 6 ] &&
    ok "ductiled --slurm: dnode1, dnode2, dnode5 with 2 CPUs each" || bad "allocation seen: $(view)"
  "$PYTHON" "$S/tests/cluster/fakejob.py" "$SOCK" "$T/stop.lost" $((60 * scale)) dnode1 0.2 > "$T/fake.lost.log" 2>&1 &
  JOBPID=$!
  wait_until 10 '[ -n "$(jobid fakejob)" ]' || bad "fakejob did not register: $(cat "$T/fake.lost.log")"
  F=$(jobid fakejob)
  ctl expand "$F" 1 >/dev/null && wait_until 10 '[ "$(view)" = "dnode1:up:2:0 dnode2:up:0:0 dnode5:up:0:0" ]' &&
    ok "1 -> 2: the new process fills dnode1 first" || bad "placement: $(view)"
  ctl expand "$F" 2 >/dev/null && wait_until 10 '[ "$(view)" = "dnode1:up:2:0 dnode2:up:2:0 dnode5:up:0:0" ]' &&
    ok "2 -> 4: then dnode2, the next host in the allocation" || bad "placement: $(view)"
  ctl shrink "$F" 2 >/dev/null && wait_until 10 '[ "$(view)" = "dnode1:up:2:0 dnode2:up:0:0 dnode5:up:0:0" ]' &&
    ok "4 -> 2: the ranks on dnode2 left (ductiled chose them), their processes exited" || bad "after shrink: $(view)"
  wait_until 10 'grep -q "giving back dnode2 .* failed" "$T/d.$part.log"' && sleep 1 &&
    [ "$(ductiled_up)" = "$(slurm_nodes)" ] && [ "$(slurm_nodes)" = "dnode1 dnode2 dnode5" ] &&
    ok "Slurm refused the give-back: ductiled keeps dnode2, as Slurm does ($(grep -o 'giving back dnode2 .* failed ([^)]*)' "$T/d.$part.log" | tail -1))" ||
    bad "refused give-back: ductiled $(ductiled_up), Slurm $(slurm_nodes)"
  touch "$T/allow"
  wait_until 10 '[ "$(slurm_nodes)" = "dnode1 dnode5" ]' && [ "$(sinfo -h -n dnode2 -o %t)" = idle ] &&
    ok "once Slurm takes it, dnode2 is given back (sinfo: idle)" || bad "give-back after the refusal: Slurm $(slurm_nodes)"
  # dnode5 disappears: the outer test removes its namespace and tells Slurm
  touch "$T/want-lose"
  wait_until 30 '[ -e "$T/lost" ]' || bad "the outer test did not remove dnode5"
  wait_until 15 '[ "$(view)" = "dnode1:up:2:0 dnode2:released:0:0 dnode5:lost:0:0" ]' &&
    ok "dnode5 lost: $(grep -o 'host dnode5 is lost.*' "$T/d.$part.log" | head -1)" || bad "after the loss: $(view)"
  [ "$(ductiled_up)" = "$(slurm_nodes)" ] && ok "ductiled's hosts match Slurm's: $(slurm_nodes)" || bad "ductiled $(ductiled_up), Slurm $(slurm_nodes)"
  ctl expand "$F" 1 --hosts dnode5 > /dev/null 2> "$T/refused"
  grep -q "dnode5' was lost" "$T/refused" && ok "refused: $(cat "$T/refused")" || bad "expand onto the lost host: $(cat "$T/refused")"
  ctl expand "$F" 1 > /dev/null 2> "$T/refused"
  grep -q "not enough free slots: 1 requested, 0 of 2 free" "$T/refused" && ok "refused: $(cat "$T/refused")" || bad "expand with no room: $(cat "$T/refused")"
  [ "$(ctl --json status "$F" | jget 'd["state"]')" = running ] && [ "$(procs "$F")" = 2 ] && ok "the job goes on at its size (2)" || bad "job state after the loss"
  touch "$T/stop.lost"
  wait "$JOBPID"; JOBPID=
  ;;
beyond)
  GROW=1 start_daemon
  [ "$(view)" = "dnode1:up:0:0 dnode2:outside:0:0 dnode3:outside:0:0 dnode4:outside:0:0 dnode5:outside:0:0" ] &&
    [ "$(ctl --json slots | jget 'd["total"]')" = 2 ] && ok "ductiled --slurm-grow: dnode1 (2 CPUs) in Slurm job $SLURM_JOB_ID, 4 hosts outside" ||
    bad "allocation seen: $(view), total $(ctl --json slots | jget 'd["total"]')"
  ctl slots > "$T/slots.txt" 2>&1
  grep -q "^  dnode1 .* 0 used of 2$" "$T/slots.txt" && grep -q "^  dnode2 .*outside the allocation" "$T/slots.txt" &&
    ok "ductilectl slots tells the allocation's host from those outside it" || bad "ductilectl slots: $(cat "$T/slots.txt")"
  # shellcheck disable=SC2086
  DUCTILE_CONTROLLER=unix:$SOCK DUCTILE_REPORT=$T/beyond.json timeout -k 10 $((60 * scale)) $MPIEXEC -n 2 \
    "$B/tests/controller/ctl_job" 1000000 30 0 "$T/stop.beyond" > "$T/beyond.log" 2>&1 &
  JOBPID=$!
  wait_until 30 '[ -n "$(jobid ctl_job)" ]' || bad "the MPI job did not register: $(tail -5 "$T/beyond.log")"
  J=$(jobid ctl_job)
  if [ "$MPI_FAMILY" = openmpi ]; then
    ctl expand "$J" 2 > /dev/null 2> "$T/refused"
    grep -q "0 of 2 free in Slurm job $SLURM_JOB_ID; not asking Slurm for more: Open MPI's mpiexec cannot start processes on a host added" "$T/refused" &&
      [ "$(slurm_nodes)" = dnode1 ] && ok "Open MPI job: growth beyond the allocation refused: $(cat "$T/refused")" &&
      result mpiexec "grow beyond the allocation" refused - "Open MPI's mpiexec cannot start processes on a host added to its allocation after it started (open-mpi/ompi#4555)" ||
      bad "Open MPI growth: $(cat "$T/refused"), Slurm $(slurm_nodes)"
    final=2
  else
    t0=$(date +%s.%N)
    ctl expand "$J" 2 >/dev/null || bad "expand $J 2 refused"
    wait_until 60 '[ "$(procs "$J")" = 4 ]' && t1=$(date +%s.%N) && gs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') &&
      [ "$(view)" = "dnode1:up:2:0 dnode2:up:2:0 dnode3:outside:0:0 dnode4:outside:0:0 dnode5:outside:0:0" ] &&
      [ "$(slurm_nodes)" = "dnode1 dnode2" ] && result mpiexec "grow beyond the allocation" works "$gs" "Slurm adds a host to the job (ductiled --slurm-grow); from the expand command to the job at its new size" &&
      ok "2 -> 4 beyond the allocation: Slurm added dnode2 to job $SLURM_JOB_ID ($(grep -o 'grew by .* in [0-9.]* s' "$T/d.$part.log" | head -1)), the new ranks run there; $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f s", b - a }') from the expand command to the job at 4" ||
      bad "growth beyond the allocation: procs $(procs "$J"), $(view), Slurm $(slurm_nodes); $(grep slurm: "$T/d.$part.log" | tail -2)"
    ctl shrink "$J" 2 >/dev/null || bad "shrink $J 2 refused"
    wait_until 60 '[ "$(procs "$J")" = 2 ]' && wait_until 20 'reason dnode2 | grep -q "Slurm refuses to change job"' &&
      [ "$(slurm_nodes)" = "dnode1 dnode2" ] && ok "4 -> 2: dnode2 stays in the grown job: $(reason dnode2)" ||
      bad "after the shrink: procs $(procs "$J"), $(view), dnode2 kept because '$(reason dnode2)', Slurm $(slurm_nodes)"
    final=2
  fi
  touch "$T/stop.beyond"
  wait "$JOBPID"; rc=$?; JOBPID=
  grep -q "FINAL size=$final .*failures=0" "$T/beyond.log" && [ $rc = 0 ] && ok "job data checked: $(grep FINAL "$T/beyond.log")" ||
    bad "job failed (exit $rc): $(tail -5 "$T/beyond.log")"
  if [ "$MPI_FAMILY" != openmpi ]; then
    "$PYTHON" - "$T/beyond.json" <<'PY' && ok "report: resize 2 -> 4 -> 2, ranks 2 and 3 ran on dnode2" || bad "report after the growth"
import json, sys
r = json.load(open(sys.argv[1]))
ok = [(x["from"], x["to"]) for x in r["reconfigurations"] if x["status"] == "ok"]
gone = sorted((x["rank"], x.get("host")) for x in r.get("departed", []))
if ok != [(2, 4), (4, 2)] or gone != [(2, "dnode2"), (3, "dnode2")]:
    sys.exit("resizes %s, departed %s" % (ok, gone))
PY
  fi
  # a job that is no MPI job: refused while the other hosts are taken, then grown
  "$PYTHON" "$S/tests/cluster/fakejob.py" "$SOCK" "$T/stop.fakeb" $((60 * scale)) dnode1 0.2 > "$T/fakeb.log" 2>&1 &
  JOBPID=$!
  wait_until 10 '[ -n "$(jobid fakejob)" ]' || bad "fakejob did not register: $(cat "$T/fakeb.log")"
  F=$(jobid fakejob)
  BUSY=$(salloc --no-shell --immediate=10 -J ductile-test --exclusive -N3 -w 'dnode[3-5]' 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
  [ -n "$BUSY" ] || bad "could not take dnode3..dnode5 for the refusal"
  free=$(ctl --json slots | jget 'd["free"]')
  ctl expand "$F" 4 > /dev/null 2> "$T/refused"
  grep -q "not enough free slots: 4 requested, $free of .* free in Slurm job $SLURM_JOB_ID, and Slurm added none: salloc --dependency=expand:$SLURM_JOB_ID" "$T/refused" &&
    ok "refused while dnode3..dnode5 are taken (Slurm job $BUSY): $(cat "$T/refused")" || bad "refusal with the hosts taken: $(cat "$T/refused")"
  scancel "$BUSY"; BUSY=
  wait_until 10 '[ "$(sinfo -h -n dnode3 -o %t)" = idle ]' || bad "dnode3 not idle after scancel"
  ctl expand "$F" 4 > /dev/null || bad "expand $F 4 refused: $(grep slurm: "$T/d.$part.log" | tail -1)"
  wait_until 20 '[ "$(procs "$F")" = 5 ]' && slurm_nodes | grep -q dnode3 &&
    ok "fakejob 1 -> 5: Slurm job now on $(slurm_nodes) ($(grep -o 'grew by .* in [0-9.]* s' "$T/d.$part.log" | tail -1))" ||
    bad "fakejob growth: procs $(procs "$F"), $(view), Slurm $(slurm_nodes)"
  touch "$T/stop.fakeb"
  wait "$JOBPID"; JOBPID=
  ;;
*) echo "usage: slurm-inner.sh grow|lost|beyond"; exit 2 ;;
esac
exit $fail

# common.sh -- helpers for the malleability tests (sourced; needs tests/env.sh).
APP="$abs_top_builddir/tests/malleable/resize_app"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

# run NAME NP ITERS EXPECT_SIZE EXPECT_OK [VAR=value ...]: run the test app,
# check exit code, every element (the app checks), final size and the report.
run() {
  name=$1 np=$2 iters=$3 size=$4 nok=$5; shift 5
  rep="$tmp/report-$$.json"; rm -f "$rep"
  t0=$(date +%s.%N)
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 120 $MPIEXEC -n "$np" "$APP" "$iters" ${APP_SLEEP_MS:+"$APP_SLEEP_MS"} > "$tmp/out" 2> "$tmp/err"
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ]; then
    echo "FAIL: $name: exit code $rc"; tail -15 "$tmp/err"; tail -5 "$tmp/out"; fail=1; return 1
  fi
  if ! grep -q "FINAL size=$size iterations=$iters failures=0" "$tmp/out"; then
    echo "FAIL: $name: expected final size $size, no failures"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if ! $PYTHON - "$rep" "$nok" "$name" <<'PY'
import json, sys
rep, nok, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = json.load(open(rep))
rc = r["reconfigurations"]
ok = [x for x in rc if x["status"] == "ok"]
if len(ok) != nok:
    sys.exit("FAIL: %s: %d ok reconfigurations in the report, expected %d: %s" % (name, len(ok), nok, rc))
for x in ok:
    t = x["times_s"]
    if not (t["total"] > 0 and t["total"] >= t["transfer"] and t["total"] >= t["spawn"]):
        sys.exit("FAIL: %s: inconsistent times %s" % (name, t))
print("  " + ("%d resizes, first ones: " % len(ok) if len(ok) > 4 else "") + "; ".join("%d->%d %s %s %.3fs (spawn %.3f merge %.3f transfer %.4f)" % (
    x["from"], x["to"], x["method"], x["redistribution"], x["times_s"]["total"], x["times_s"]["spawn"],
    x["times_s"]["merge"], x["times_s"]["transfer"]) for x in ok[:4]))
PY
  then fail=1; return 1; fi
  printf "ok: %s (%.1f s)\n" "$name" "$($PYTHON -c "print($t1 - $t0)")"
  return 0
}

# check_departed NAME N [nofns]: the last run's report lists N departed processes
# (processes that left the world), each with calls, and its totals include them;
# with nofns (more left than DUCTILE_REPORT_RANKS) no entry lists its functions,
# and the combined functions still count every departed process.
check_departed() {
  if ! $PYTHON - "$rep" "$2" "$1" "${3:-}" <<'PY'
import json, sys
rep, n, name, nofns = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "nofns"
r = json.load(open(rep))
dep = r.get("departed")
if dep is None or len(dep) != n:
    sys.exit("%s: expected %d departed processes in the report, found %s" % (name, n, None if dep is None else len(dep)))
for d in dep:
    if nofns:
        if "functions" in d:
            sys.exit("%s: departed rank %d lists its functions past DUCTILE_REPORT_RANKS" % (name, d["rank"]))
        if d["calls"] <= 0 or d["pid"] <= 0 or not d["host"] or d["mpi_time_s"] <= 0:
            sys.exit("%s: departed entry without counters: %s" % (name, d))
        continue
    if d["calls"] <= 0 or not d.get("functions") or d["pid"] <= 0 or not d["host"]:
        sys.exit("%s: departed entry without counters: %s" % (name, {k: v for k, v in d.items() if k != "functions"}))
    if sum(f["calls"] for f in d["functions"].values()) != d["calls"]:
        sys.exit("%s: departed rank %d: calls do not add up" % (name, d["rank"]))
want = sum(x["calls"] for x in r["ranks"]) + sum(x["calls"] for x in dep)
if r["totals"]["calls"] != want:
    sys.exit("%s: totals.calls %d != %d (sum over ranks and departed)" % (name, r["totals"]["calls"], want))
if sum(f["calls"] for f in r["functions"].values()) != want:
    sys.exit("%s: functions do not add up to %d calls" % (name, want))
print("  %d departed processes (former ranks %s), totals include them" % (len(dep), [d["rank"] for d in dep]))
PY
  then echo "FAIL: $1: departed processes"; fail=1; return 1; fi
  return 0
}

# jrun NAME NP EXPECT-NP STATUSES CAUSE VAR=value...: run "$prog" $dim $its
# (cjacobi) on NP processes with the settings; the job ends at EXPECT-NP
# processes with the reference checksum $ref, no process aborts, its resizes'
# statuses are STATUSES (comma-separated) and the first one's reason holds
# CAUSE.  The report stays in $rep.
jrun() {
  name=$1 np=$2 endnp=$3 status=$4 cause=$5; shift 5
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 300 $MPIEXEC -n "$np" "$prog" $dim $its > "$tmp/out" 2> "$tmp/err"
  rc=$?
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$tmp/out")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || ! grep -q "on $endnp processes, wrong elements 0" "$tmp/out"; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref)"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if grep -q "MPI_Abort\|aborting\|Abort(" "$tmp/err"; then
    echo "FAIL: $name: a process aborted"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  $PYTHON - "$rep" "$name" "$status" "$cause" <<'PY' || { fail=1; return 1; }
import json, sys
r = json.load(open(sys.argv[1]))
rc = r["reconfigurations"]
st = ",".join(x["status"] for x in rc)
if st != sys.argv[3] or sys.argv[4] not in (rc[0].get("reason") or ""):
    sys.exit("FAIL: %s: expected resizes %s, the first naming '%s': %s" % (sys.argv[2], sys.argv[3], sys.argv[4], rc))
for x in rc:
    print("  %d->%d %s: %s" % (x["from"], x["to"], x["status"], x.get("reason") or ""))
PY
  echo "ok: $name"
}

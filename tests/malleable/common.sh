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
  env DUCTILE_REPORT="$rep" "$@" timeout 120 $MPIEXEC -n "$np" "$APP" "$iters" > "$tmp/out" 2> "$tmp/err"
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
    sys.exit("%s: %d ok reconfigurations in the report, expected %d: %s" % (name, len(ok), nok, rc))
for x in ok:
    t = x["times_s"]
    if not (t["total"] > 0 and t["total"] >= t["transfer"] and t["total"] >= t["spawn"]):
        sys.exit("%s: inconsistent times %s" % (name, t))
print("  " + ("%d resizes, first ones: " % len(ok) if len(ok) > 4 else "") + "; ".join("%d->%d %s %s %.3fs (spawn %.3f merge %.3f transfer %.4f)" % (
    x["from"], x["to"], x["method"], x["redistribution"], x["times_s"]["total"], x["times_s"]["spawn"],
    x["times_s"]["merge"], x["times_s"]["transfer"]) for x in ok[:4]))
PY
  then fail=1; return 1; fi
  printf "ok: %s (%.1f s)\n" "$name" "$($PYTHON -c "print($t1 - $t0)")"
  return 0
}

# common.sh -- helpers for the one-sided / background redistribution tests
# (sourced after tests/malleable/common.sh, which provides run(), $tmp, $rep).

# rmacheck NAME LABEL MIN_BG: every ok record uses redistribution LABEL; at
# least MIN_BG of them report overlapped iterations (background transfers);
# prints window set-up and transfer times.
rmacheck() {
  $PYTHON - "$rep" "$1" "$2" "$3" <<'PY' || fail=1
import json, sys
rep, name, label, min_bg = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
r = json.load(open(rep))
ok = [x for x in r["reconfigurations"] if x["status"] == "ok"]
bad = [x["redistribution"] for x in ok if x["redistribution"] != label]
if bad:
    sys.exit("FAIL: %s: expected redistribution %s, got %s" % (name, label, bad))
bg = [x for x in ok if x.get("overlapped_iterations") is not None]
if len(bg) < min_bg:
    sys.exit("FAIL: %s: %d records with a background transfer, expected %d" % (name, len(bg), min_bg))
for x in ok:
    t = x["times_s"]
    if "window" not in t or t["window"] < 0:
        sys.exit("FAIL: %s: no window set-up time in %s" % (name, t))
print("   " + "; ".join("%d->%d window %.4f transfer %.4f%s" % (x["from"], x["to"], x["times_s"]["window"],
      x["times_s"]["transfer"], "" if x.get("overlapped_iterations") is None else
      " N_it %d bg %.3fs" % (x["overlapped_iterations"], x["times_s"]["background"])) for x in ok))
PY
}

# Under the sanitizers, LeakSanitizer's stop-the-world tracer has crashed
# ("Tracer caught signal 11") at the exit of processes that used Open MPI's
# osc/ucx (UCX's own threads); that is a crash of the leak checker, not a
# leak. The one-sided tests keep AddressSanitizer and UBSan but not LSan.
if [ -n "${SANITIZER_PRELOAD:-}" ]; then
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export ASAN_OPTIONS
fi

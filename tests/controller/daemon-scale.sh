#!/bin/sh
# ductiled with many jobs (issue 25, item 4), short: 200 simulated jobs
# (real sockets, the real protocol, a sample a second each) for 20 s while
# `ductilectl list` runs 4 times a second (bench/daemon-scale.py).  Fails
# when a job loses its connection, a list fails or the daemon dies; the
# latencies and the daemon's RSS are printed, never asserted (the long run,
# tests/long/daemon-scale.sh, has 2,000 jobs for 10 minutes).
set -u
PY=${PYTHON:-python3}
S=${TEST_TIME_SCALE:-1}
timeout -k 10 $((120 * S)) "$PY" "$abs_top_srcdir/bench/daemon-scale.py" --ductiled "$abs_top_builddir/tools/ductiled" \
  --ductilectl "$abs_top_builddir/tools/ductilectl" --jobs "${SCALE_JOBS:-200}" --seconds "${SCALE_SECONDS:-20}" --report 5
rc=$?
[ $rc -eq 0 ] && echo "ok: daemon-scale" || echo "FAIL: daemon-scale (exit $rc)"
exit $rc

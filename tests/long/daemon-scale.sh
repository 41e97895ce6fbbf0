#!/bin/sh
# ductiled at site scale (issue 25, item 4): 2,000 simulated jobs (real
# sockets, the real protocol, a sample a second each) for 10 minutes while
# `ductilectl list` runs 4 times a second (bench/daemon-scale.py prints its
# latency p50/p99/max and the daemon's RSS every 30 s).  Fails when a job
# loses its connection, a list fails, or the daemon's RSS grows by more than
# 64 MB between the end of the first minute and the end (its memory is flat:
# a job's samples live in a ring allocated once; the state file's text
# settles after its 64 samples a job).  Times are printed, never asserted.
set -u
PY=${PYTHON:-python3}
timeout -k 10 900 "$PY" "$abs_top_srcdir/bench/daemon-scale.py" --ductiled "$abs_top_builddir/tools/ductiled" \
  --ductilectl "$abs_top_builddir/tools/ductilectl" --jobs "${SCALE_JOBS:-2000}" --seconds "${SCALE_SECONDS:-600}" \
  --report 30 --max-rss-growth-mb "${SCALE_RSS_GROWTH_MB:-64}"

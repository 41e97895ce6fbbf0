#!/bin/sh
# bench/daemon-scale.sh -- ductiled at site scale (issue 25, item 4): JOBS
# simulated jobs (default 2000; real sockets, the real protocol, a sample a
# second each) for SECONDS (default 600) while `ductilectl list` runs 4
# times a second; prints the list's latency (p50/p99/max, the program and
# the daemon's answer alone), the daemon's RSS and CPU every 30 s, and a
# summary (bench/daemon-scale.py).  Usage, from a build directory:
#   ../bench/daemon-scale.sh [JOBS] [SECONDS]
set -eu
top=$(pwd)
here=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
exec "$PY" "$here/daemon-scale.py" --ductiled "$top/tools/ductiled" --ductilectl "$top/tools/ductilectl" \
  --jobs "${1:-2000}" --seconds "${2:-600}" --report "${REPORT:-30}"

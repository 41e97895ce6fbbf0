#!/bin/sh
# bench/io-interference.sh -- I/O interference between two Jacobi jobs with
# periodic checkpoints (the CLARISSE/FlexMPI paper, section 5.1, use cases C
# and D scaled to a 2-core machine): I/O time and total time with no
# coordination, exclusive I/O (CLARISSE's I/O scheduling), Phase Shifting
# and Period Coupling (both combined with exclusive I/O, like the paper's
# "combined" runs).  Prints a table, writes a CSV and, with matplotlib, a
# timeline like the paper's Fig. 13.  Prints numbers; not a test.
#
# usage: bench/io-interference.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR: a configured and built tree (default: the current directory)
#   OUT_DIR:   results (default: ./io-interference-results)
#   IOB_CASES="C D E N T" IOB_MODES="none exclusive phase-shift period-coupling policy"
#   IOB_DEVICE=auto|real|emulated (default auto: real when it can be set up,
#   else emulated; the bench says which and why), IOB_DEVICE_MBPS=20
#
# The jobs (tests/io/io_jacobi) compute 100 ms per iteration on one process
# (ideal scaling, so resizes pay off on a shared 2-core machine) and write a
# checkpoint every 60 iterations to a shared storage device on which a
# checkpoint alone takes 400 ms and two at once share the bandwidth (each
# takes up to twice as long).  The device:
#  - real (root, losetup, mkfs.ext4, mount and a writable cgroup v1 blkio
#    throttle or cgroup v2 io controller): an ext4 file system on a loop
#    device, mounted -o sync (the writer itself issues its writes, so the
#    throttle charges it), and a cgroup that limits writes to it to
#    IOB_DEVICE_MBPS MiB/s; every job's mpiexec runs in that cgroup (its
#    processes, spawned ones too, inherit it) and each checkpoint writes
#    IOB_DEVICE_MBPS * 0.4 MiB there (IOJ_CKPT_BYTES: 400 ms at the limit);
#    all of it is removed on every exit;
#  - emulated (the fallback): a lock file (IOJ_DEVICE): a checkpoint holds
#    it for 16 x 25 ms, simultaneous ones take turns.
# Case C: two identical 1-process jobs (same period, phases at the same
# time).  Case D: job 1 on 2 processes (period ~3.4 s,
# 600 iterations), job 2 on 1 process (period ~6.4 s, 300 iterations).
# Case E: three 1-process jobs, two like C's and a third with a checkpoint
# every 40 iterations (period ~4.4 s, 200 iterations).  Case T: three jobs
# like C's (same period, phases at the same time).  Case N: C's jobs
# not malleable (DUCTILE_MIN_PROCS = DUCTILE_MAX_PROCS = their size: no
# controller may resize them).  Mode `policy`: ductiled --io-policy auto
# (the jobs ask for the token; ductiled predicts the I/O time of every mode
# and applies the cheapest by its margin: docs/policies.md).
set -u
case "${1:-}" in -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
BD=$(cd "${1:-.}" && pwd) || exit 1
OUT=${2:-io-interference-results}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$BD/tests/env.sh"
PY=${PYTHON:-python3}
JAC="$BD/tests/io/io_jacobi"
[ -x "$JAC" ] || { echo "build first: make -C $BD" >&2; exit 1; }
[ "$MPI_FAMILY" = openmpi ] && { OMPI_MCA_io=romio321; export OMPI_MCA_io; }
# checkpoints are ~3 s apart; a token or device wait inside one must not split it
export DUCTILE_SUMMARY=0 DUCTILE_CONTROLLER_PERIOD=200 DUCTILE_IO_PHASE_GAP=1000
W=$(mktemp -d /tmp/ductile-iobench-XXXXXX); chmod 700 "$W"
DPID="" LOOP="" MNT="" CG="" CGV=""
trap 'iodev_cleanup; [ -n "$DPID" ] && kill $DPID 2>/dev/null; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM HUP

say() { echo "io-interference: $*" | tee -a "$OUT/device.txt" >&2; }

iodev_cleanup() {  # the real device, on every exit path: its processes, mount, loop device, cgroup
  if [ -n "$CG" ] && [ -d "$CG" ]; then
    for i in $(seq 1 50); do  # only the jobs this bench started are in the cgroup
      p=$(cat "$CG/cgroup.procs" 2>/dev/null); [ -z "$p" ] && break
      if [ "$i" -lt 20 ]; then kill $p 2>/dev/null; else kill -9 $p 2>/dev/null; fi
      sleep 0.1
    done
  fi
  if [ -n "$MNT" ] && mountpoint -q "$MNT"; then
    umount "$MNT" 2>/dev/null || { sleep 1; umount "$MNT" 2>/dev/null; } || umount -l "$MNT"
  fi
  [ -n "$LOOP" ] && { losetup -d "$LOOP" 2>/dev/null || { sleep 1; losetup -d "$LOOP"; }; }
  [ -n "$CG" ] && [ -d "$CG" ] && { rmdir "$CG" 2>/dev/null || { sleep 1; rmdir "$CG"; }; }
  LOOP="" MNT="" CG=""
}

iodev_cannot() {  # WHY: why a real device cannot be set up here (empty: it can; CGV: the cgroup version)
  WHY=""
  [ "$(id -u)" = 0 ] || { WHY="not root"; return; }
  for t in losetup mkfs.ext4 mount umount mountpoint; do
    command -v $t > /dev/null 2>&1 || { WHY="no $t"; return; }
  done
  if [ -w /sys/fs/cgroup/blkio/cgroup.procs ] && [ -e /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ]; then
    CGV=1
  elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null && [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then
    CGV=2
  else
    WHY="no writable cgroup v1 blkio throttle (/sys/fs/cgroup/blkio) nor cgroup v2 io controller (io.max)"
  fi
}

iodev_setup() {  # iodev_setup MIB_PER_S: loop ext4 -o sync at $MNT, cgroup $CG throttling its writes
  bps=$(($1 * 1048576))
  truncate -s 256M "$W/iodev.img" || return 1
  LOOP=$(losetup -f --show "$W/iodev.img") && [ -n "$LOOP" ] || { LOOP=""; return 1; }
  mkfs.ext4 -q -O ^has_journal "$LOOP" || return 1
  MNT="$W/iodev"; mkdir -p "$MNT"
  mount -o sync "$LOOP" "$MNT" || { MNT=""; return 1; }
  dev=$(cat "/sys/block/${LOOP##*/}/dev") || return 1
  if [ "$CGV" = 1 ]; then
    CG=/sys/fs/cgroup/blkio/ductile-iob-$$; mkdir "$CG" || { CG=""; return 1; }
    echo "$dev $bps" > "$CG/blkio.throttle.write_bps_device" || return 1
    say "real device: ext4 on $LOOP ($dev) mounted -o sync at $MNT; cgroup v1 $CG: blkio.throttle.write_bps_device $1 MiB/s"
  else
    grep -qw io /sys/fs/cgroup/cgroup.subtree_control || echo +io > /sys/fs/cgroup/cgroup.subtree_control || return 1
    CG=/sys/fs/cgroup/ductile-iob-$$; mkdir "$CG" || { CG=""; return 1; }
    echo "$dev wbps=$bps" > "$CG/io.max" || return 1
    say "real device: ext4 on $LOOP ($dev) mounted -o sync at $MNT; cgroup v2 $CG: io.max wbps $1 MiB/s"
  fi
  # a probe: one checkpoint's bytes alone, in the cgroup, in the checkpoints' 512 KiB chunks
  r=$(timeout 60 sh -c 'echo $$ > "$0/cgroup.procs" && exec dd if=/dev/zero of="$1/probe" bs=512K count=$2 2>&1' \
      "$CG" "$MNT" $((CKPT_BYTES / 524288)) | tail -1) || return 1
  rm -f "$MNT/probe"
  say "probe: one checkpoint ($CKPT_BYTES bytes) alone: $r"
}

# the device: real where it can be set up (IOB_DEVICE auto or real), else the emulation
DEVMODE=${IOB_DEVICE:-auto}; MBPS=${IOB_DEVICE_MBPS:-20}
CKPT_BYTES=$((MBPS * 1048576 * 2 / 5))  # 400 ms at the limit
: > "$OUT/device.txt"
case $DEVMODE in
  auto|real)
    iodev_cannot
    if [ -z "$WHY" ] && ! iodev_setup "$MBPS"; then
      WHY="setting it up failed (above)"; iodev_cleanup
    fi
    if [ -n "$WHY" ]; then
      [ "$DEVMODE" = auto ] || { say "IOB_DEVICE=real: no real device: $WHY"; exit 1; }
      DEVMODE=emulated
      say "emulated device (a lock file: a checkpoint holds it 16 x 25 ms, simultaneous ones take turns): no real device: $WHY"
    else
      DEVMODE=real
    fi ;;
  emulated) say "emulated device (a lock file: a checkpoint holds it 16 x 25 ms, simultaneous ones take turns): IOB_DEVICE=emulated" ;;
  *) echo "bench/io-interference.sh: IOB_DEVICE must be auto, real or emulated, not '$DEVMODE'" >&2; exit 2 ;;
esac
CASES=${IOB_CASES:-C D E N T}
MODES=${IOB_MODES:-none exclusive phase-shift period-coupling policy}

jobs_of() {  # PROCS,ITERATIONS,IO_EVERY of each job of a case
  case $1 in
    C|N) echo "1,300,60 1,300,60" ;;
    D) echo "2,600,60 1,300,60" ;;
    E) echo "1,300,60 1,300,60 1,200,40" ;;
    T) echo "1,300,60 1,300,60 1,300,60" ;;
    *) echo "bench/io-interference.sh: unknown case '$1' (C, D, E, N, T)" >&2; return 1 ;;
  esac
}

run() {  # run CASE MODE
  c=$1; m=$2; name="$c-$m"; sock="$W/d.sock"
  rm -f "$W"/*.go "$W"/*.ckpt "$W/state.json" "$W/device"
  [ "$DEVMODE" = real ] && rm -f "$MNT"/*.ckpt
  pol=none; excl=0
  case $m in exclusive) excl=1 ;; phase-shift|period-coupling) excl=1; pol=$m ;; policy) excl=1; pol=auto ;; esac
  "$BD/tools/ductiled" --socket "$sock" --no-state --slots 6 --io-policy $pol --io-uncertainty 0.3 \
    --io-overhead 0.5 > "$OUT/$name.daemon.log" 2>&1 &
  DPID=$!
  for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.1; done
  js=$(jobs_of "$c") || exit 2
  k=0; pids=""
  for spec in $js; do
    k=$((k + 1)); n=${spec%%,*}; rest=${spec#*,}; it=${rest%%,*}; every=${rest#*,}
    fixed=""; [ "$c" = N ] && fixed="DUCTILE_MIN_PROCS=$n DUCTILE_MAX_PROCS=$n"
    if [ "$DEVMODE" = real ]; then  # mpiexec and all its processes in the cgroup, checkpoints on the device
      env $fixed DUCTILE_CONTROLLER="unix:$sock" DUCTILE_IO_EXCLUSIVE=$excl IOJ_CKPT_BYTES=$CKPT_BYTES \
        DUCTILE_JOB_ID=job$k DUCTILE_REPORT="$OUT/$name.job$k.json" timeout 300 \
        sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" $MPIEXEC -n $n "$JAC" 64 $it $every 100 0 \
        "$MNT/$k.ckpt" "$W/run.go" > "$OUT/$name.job$k.out" 2> "$OUT/$name.job$k.log" &
    else
      env $fixed DUCTILE_CONTROLLER="unix:$sock" DUCTILE_IO_EXCLUSIVE=$excl IOJ_DEVICE="$W/device" DUCTILE_JOB_ID=job$k \
        DUCTILE_REPORT="$OUT/$name.job$k.json" timeout 300 $MPIEXEC -n $n "$JAC" 64 $it $every 100 400 "$W/$k.ckpt" \
        "$W/run.go" > "$OUT/$name.job$k.out" 2> "$OUT/$name.job$k.log" &
    fi
    pids="$pids $!"
  done
  # start all in step once all registered
  for _ in $(seq 1 300); do
    r=$("$BD/tools/ductilectl" -c "unix:$sock" --json list 2>/dev/null |
        "$PY" -c "import json,sys; print(len(json.load(sys.stdin)['jobs']))" 2>/dev/null)
    [ "${r:-0}" -ge $k ] && break; sleep 0.2
  done
  touch "$W/run.go"
  for p in $pids; do wait $p; done
  "$BD/tools/ductilectl" -c "unix:$sock" --json list > "$OUT/$name.jobs.json" 2>/dev/null
  for q in $(seq 1 $k); do
    "$BD/tools/ductilectl" -c "unix:$sock" --json events $q > "$OUT/$name.events$q.json" 2>/dev/null
  done
  kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; DPID=""
  echo "case $c, $m: $(for q in $(seq 1 $k); do grep -h '^io_jacobi' "$OUT/$name.job$q.out"; done | tr '\n' ' ')" >&2
}
for c in $CASES; do
  jobs_of "$c" > /dev/null || exit 2
  for m in $MODES; do
    # same periods: not applicable (the paper's note)
    { [ "$c" = C ] || [ "$c" = N ] || [ "$c" = T ]; } && [ "$m" = period-coupling ] && continue
    run "$c" "$m"
  done
done
# the plot wants matplotlib: the project's venv has it (see the plot script)
VPY="$(cd "$(dirname "$0")/.." && pwd)/.deps-local/venv/bin/python3"
[ -x "$VPY" ] && "$VPY" -c "import matplotlib" 2>/dev/null && PY=$VPY
"$PY" "$(dirname "$0")/io-interference-plot.py" "$OUT"

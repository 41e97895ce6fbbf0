#!/bin/sh
# fakeslurm.sh -- stand-ins for scontrol, sinfo, salloc and scancel (linked
# under those names into a directory put first on PATH), for tests of
# ductiled --slurm that need no cluster (tests/cluster/slow-slurm.sh).
# One Slurm job $FAKE_SLURM_JOB on host $FAKE_SLURM_HOST with
# $FAKE_SLURM_CPUS CPUs; sinfo also lists FAKE_SLURM_OUTSIDE (host:cpus), a
# node outside the job, and salloc grants it (job 77).  In $FAKE_SLURM_DIR:
#   slow     every command sleeps $(cat slow) seconds before answering
#   slow-NAME  only command NAME (scontrol, sinfo, salloc) does
#   calls    one line per call: start and end time, the command line
#   running  exists while a slowed command sleeps
me=$(basename "$0")
d=$FAKE_SLURM_DIR
t0=$(date +%s.%N)
delay=
[ -e "$d/slow" ] && delay=$(cat "$d/slow")
[ -e "$d/slow-$me" ] && delay=$(cat "$d/slow-$me")
if [ -n "$delay" ]; then
  touch "$d/running"
  sleep "$delay"
  rm -f "$d/running"
fi
echo "$t0 $(date +%s.%N) $me $*" >> "$d/calls"
host=$FAKE_SLURM_HOST
out=${FAKE_SLURM_OUTSIDE:-node2:2}
case "$me $1 $2" in
  "scontrol show job")
    if [ "$3" = -d ]; then
      echo "JobId=$5 JobName=ductile-grow JobState=RUNNING NumNodes=1 NodeList=${out%%:*} NumCPUs=${out##*:}"
      echo "   Nodes=${out%%:*} CPU_IDs=0-$((${out##*:} - 1)) Mem=0"
    else
      nl=$host
      [ -e "$d/grown" ] && nl="$host,${out%%:*}"
      echo "JobId=$4 JobName=ductiled JobState=RUNNING NumNodes=1 NodeList=$nl NumCPUs=$FAKE_SLURM_CPUS"
    fi ;;
  "scontrol show hostnames") echo "$3" | tr ',' '\n' ;;
  "scontrol show config") echo "AccountingStorageType   = accounting_storage/slurmdbd" ;;
  "scontrol update"*)
    case "$*" in *NumNodes=0*) touch "$d/grown" ;; esac
    echo "" ;;
  "sinfo "*)
    case "$*" in
      *"%N %c"*) echo "$host $FAKE_SLURM_CPUS"; echo "${out%%:*} ${out##*:}" ;;
      *) for h in $(echo "${6:-$host}" | tr ',' ' '); do echo "$h alloc"; done ;;
    esac ;;
  "salloc "*) echo "salloc: Granted job allocation 77" >&2 ;;
  "scancel "*) ;;
  *) echo "fakeslurm: $me $*: not faked" >&2; exit 1 ;;
esac
exit 0

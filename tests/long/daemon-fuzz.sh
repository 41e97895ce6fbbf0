#!/bin/sh
# The long end-to-end fuzz of ductiled (check-long; issue 23 item 1):
# tests/controller/daemon-fuzz.sh with 10^6 messages in all (FUZZ_MESSAGES),
# spread over the daemon's five modes (plain, --slurm with fake Slurm
# commands, --policy, --io-policy auto, --fold-to-admit).  Meant for an
# --enable-asan build too (ASan and UBSan): the daemon must report nothing.
FUZZ_MESSAGES=${FUZZ_MESSAGES:-1000000} FUZZ_SECONDS=${FUZZ_SECONDS:-3600} \
  exec sh "$abs_top_srcdir/tests/controller/daemon-fuzz.sh"

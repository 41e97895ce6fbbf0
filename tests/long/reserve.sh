#!/bin/sh
# tests/controller/reserve.sh with ductiled's default --pending-ttl (120 s):
# a delayed expansion keeps its reservation past 120 s and a job that would
# fit only on its cores waits (issue 23 item 7).  About 4 minutes.
RESERVE_TTL=120 JOB_TIMEOUT=400 exec "$abs_top_srcdir/tests/controller/reserve.sh"

#!/bin/sh
# The tester's whole matrix (tests/malleable/stranger.sh with STRANGER_FULL=1):
# every background mode x redistribution method x allocation kind.
STRANGER_FULL=1 TEST_TIME_SCALE=$((${TEST_TIME_SCALE:-2} * 2)) exec sh "$abs_top_srcdir/tests/malleable/stranger.sh"

#!/bin/sh
# tests/malleable/bgcancel.sh with every method and every background
# strategy (make check-sweep): a background expansion whose transfer fails
# mid-run, then another resize that commits, and resizes cancelled at the
# job's end.
BGCANCEL_FULL=1 exec sh "$abs_top_srcdir/tests/malleable/bgcancel.sh"

#!/bin/sh
# tests/malleable/bgbuffers.sh over every background mode and method pair
# (make check runs a subset that covers each mode and each method once).
BGBUFFERS_ALL=1 exec /bin/sh "$abs_top_srcdir/tests/malleable/bgbuffers.sh"

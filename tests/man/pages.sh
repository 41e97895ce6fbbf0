#!/bin/sh
# The man pages and the completion are installed by `make install` (here into
# a DESTDIR) and every page renders with `man -l` without a warning (but
# "cannot adjust line", a long word); each says what its source says: every
# setting of src/common/settings.toml in libductile(7) and ductile-run(1),
# every command of `ductilectl --help` in ductilectl(1), every option of
# `ductiled --help` in ductiled(8), every function of include/empi.h in
# empi.h(3).  The installed ductile-report finds its installed package.
set -u
B="$abs_top_builddir"
S="$abs_top_srcdir"
T=$(mktemp -d /tmp/ductile-man-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v man >/dev/null 2>&1 || { echo "SKIP: no man (apt-get install man-db)"; exit 77; }

${MAKE:-make} -s -C "$B" install DESTDIR="$T/root" > "$T/install.log" 2>&1 || { cat "$T/install.log"; bad "make install"; exit 1; }
page() { find "$T/root" -path "*/man$2/$1.$2" | head -1; }
for p in ductile-run.1 ductile-report.1 ductilectl.1 ductiled.8 libductile.7 empi.h.3; do
  f=$(page "${p%.*}" "${p##*.}")
  if [ -z "$f" ]; then bad "$p not installed"; continue; fi
  MANWIDTH=80 man --warnings -l "$f" > "$T/$p.txt" 2> "$T/$p.err"; rc=$?
  grep -v "cannot adjust line" "$T/$p.err" > "$T/$p.warn"
  if [ $rc -ne 0 ] || [ -s "$T/$p.warn" ]; then bad "man -l $p: exit $rc: $(head -3 "$T/$p.warn")"; continue; fi
  for sect in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
    grep -q "^$sect" "$T/$p.txt" || bad "$p has no $sect section"
  done
  echo "ok: $p renders ($(wc -l < "$T/$p.txt") lines)"
done
# what each page says comes from its source
flat() { tr -s ' \n' '  ' < "$T/$1.txt" | sed 's/‐ //g; s/- //g'; }
for s in $(sed -n 's/^name = "\(DUCTILE_[A-Z0-9_]*\)"$/\1/p' "$S/src/common/settings.toml"); do
  grep -q "$s" "$T/libductile.7.txt" || bad "libductile(7) lacks $s"
  grep -q "$s" "$T/ductile-run.1.txt" || bad "ductile-run(1) lacks $s"
done
for c in $("$B/tools/ductilectl" --help | awk '/^Commands:/{f=1;next} /^[^ ]/{f=0} f && NF{print $1}'); do
  grep -qE "^ +$c( |$)" "$T/ductilectl.1.txt" || bad "ductilectl(1) lacks the command $c"
done
for o in $("$B/tools/ductiled" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
  grep -qe "$o" "$T/ductiled.8.txt" || bad "ductiled(8) lacks $o"
done
for fn in $(grep -oE '\bEMPI_[A-Za-z0-9_]+\(' "$S/include/empi.h" | tr -d '(' | sort -u); do
  flat empi.h.3 | grep -q "$fn" || bad "empi.h(3) lacks $fn"
done
n=$(grep -c "DUCTILE_" "$T/libductile.7.txt")
echo "ok: the pages list every setting, ductilectl command, ductiled option and EMPI function ($n setting lines)"
# the completion is installed; the installed ductile-report runs
[ -n "$(find "$T/root" -path '*/bash-completion/completions/ductilectl')" ] || bad "the bash completion of ductilectl is not installed"
rep=$(find "$T/root" -path '*/bin/ductile-report' | head -1)
if [ -z "$rep" ] || ! grep -q "^REPORT_PYDIR = \"$(dirname "$(dirname "${rep#$T/root}")")/share/ductile/python\"" "$rep"; then
  bad "the installed ductile-report does not read the installed package: $(grep '^REPORT_PYDIR' "$rep" 2>/dev/null)"
fi
exit $fail

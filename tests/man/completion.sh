#!/bin/bash
# The bash completion of ductilectl (contrib/bash-completion/ductilectl):
# commands and options from `ductilectl --help`, job ids from a real ductiled
# (two registered jobs), the choices of io and drain, nothing after a value.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$abs_top_srcdir/tests/controller/common.sh"
. "$abs_top_srcdir/contrib/bash-completion/ductilectl"
start_daemon --no-state
# two jobs registered over the protocol, held while the test asks
( cd "$abs_top_srcdir/tests/controller" && exec timeout -k 10 60 "$PY" -c "
import sys, time, peer
s1, f1 = peer.connect(sys.argv[1]); peer.register(f1, 'alpha', 4242)
s2, f2 = peer.connect(sys.argv[1]); peer.register(f2, 'beta', 4343)
print('registered', flush=True)
time.sleep(50)
" "$SOCK" > "$T/jobs.log" 2>&1 ) &
JOBPIDS="$JOBPIDS $!"
wait_until 10 'grep -q registered "$T/jobs.log"' || { bad "the fake jobs did not register"; cat "$T/jobs.log"; exit 1; }
ids=$(ctl --noheader --format job list | awk '{print $1}' | sort | tr '\n' ' ')
# list's options also after the command, and in `list --help`
ids2=$(ctl list --noheader --format job | awk '{print $1}' | sort | tr '\n' ' ')
if [ -n "$ids" ] && [ "$ids2" = "$ids" ]; then ok "list --noheader --format job after the command: $ids2"
else bad "ductilectl list --noheader --format job: '$ids2', before the command: '$ids'"; fi
"$DUCTILECTL" list --help | grep -q -- "--noheader.*--format" || bad "ductilectl list --help does not name --noheader and --format"

# complete WORDS...: COMPREPLY for the last word, sorted, one line
complete_line() {
  COMP_WORDS=("$DUCTILECTL" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _ductilectl
  [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
expect() { # WANT WORDS...
  local want=$1; shift
  local got; got=$(complete_line "$@")
  if [ "$got" = "$want" ]; then ok "ductilectl $* <TAB> -> $got"; else bad "ductilectl $* <TAB>: got '$got', expected '$want'"; fi
}
all=$("$DUCTILECTL" --help | awk '/^Commands:/{f=1;next} /^[^ ]/{f=0} f && NF{print $1}' | sort | tr '\n' ' ')
[ "$(echo $all | wc -w)" -ge 15 ] || bad "ductilectl --help lists only: $all"
expect "$all" ""
expect "expand " ex
expect "shrink shutdown " sh
expect "--json " --js
expect "--connect " -c unix:$SOCK --con
expect "$ids" -c "unix:$SOCK" expand ""
expect "$ids" --connect "unix:$SOCK" -t 5 status ""
expect "" -c "unix:$SOCK" expand 1 ""
expect "--at-iteration " -c "unix:$SOCK" expand 1 2 --at
expect "" -c "unix:$SOCK" expand 1 2 --at-iteration ""
expect "hold release " io ""
expect "$ids" -c "unix:$SOCK" io hold ""
expect "off on " drain ""
[ "$ids" = "1 2 " ] || bad "ductiled lists jobs '$ids', expected '1 2 '"
exit $fail

#!/bin/sh
# ductiled as a service (docs/controller.md, "Running ductiled under
# systemd"): contrib/systemd/ductiled.service passes `systemd-analyze verify`
# (offline; nothing printed, and a broken setting is caught), the example
# contrib/ductiled.conf is valid and has a line for every option ductiled
# --help lists, each of its keys valid once uncommented, and the daemon speaks
# systemd's notification protocol (READY=1, RELOADING=1 then READY=1 on
# SIGHUP, STOPPING=1).  Skipped (77) without systemd-analyze.
. "$abs_top_srcdir/tests/controller/common.sh"
S="$abs_top_srcdir"
command -v systemd-analyze > /dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }

# the unit, with this build's ductiled; its man page where man finds it
mkdir -p "$T/man/man8" "$T/etc/ductile"
sed -e "s|@bindir@|$B/tools|g" -e "s|@sysconfdir@|$T/etc|g" "$S/contrib/systemd/ductiled.service.in" > "$T/ductiled.service"
manopt=--man=no
if command -v man > /dev/null && [ -f "$B/man/ductiled.8" ]; then cp "$B/man/ductiled.8" "$T/man/man8/"; manopt=--man=yes; fi
out=$(MANPATH="$T/man" systemd-analyze verify $manopt "$T/ductiled.service" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && ok "systemd-analyze verify $manopt: clean" || bad "systemd-analyze verify: rc $rc: $out"
for k in ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" \
         StateDirectory=ductile "ExecReload=/bin/kill -HUP \$MAINPID" Type=notify; do
  grep -qxF "$k" "$T/ductiled.service" && ok "unit: $k" || bad "unit lacks $k"
done
exp=$(systemd-analyze security --offline=yes "$T/ductiled.service" 2>/dev/null | grep -o "Overall exposure level.*")
[ -n "$exp" ] && echo "    systemd-analyze security: $exp"
sed 's/^ProtectSystem=strict/ProtectSystem=stricter/' "$T/ductiled.service" > "$T/broken.service"
out=$(MANPATH="$T/man" systemd-analyze verify $manopt "$T/broken.service" 2>&1)
echo "$out" | grep -q "ProtectSystem\|protect system" && ok "a broken setting is caught: $out" || bad "broken unit passed: $out"

# the example configuration: valid, a line for every option, every key valid
cp "$S/contrib/ductiled.conf" "$T/example.conf"; chmod 600 "$T/example.conf" # a checkout's umask may leave it group-writable
"$DUCTILED" --config "$T/example.conf" --check-config > "$T/out" 2>&1 && ok "contrib/ductiled.conf: $(cat "$T/out")" \
  || bad "contrib/ductiled.conf: $(cat "$T/out")"
keys=$("$DUCTILED" --help | sed -n 's/^  \(-v, \)\{0,1\}--\([a-z-]*\).*/\2/p' | grep -vx "config\|no-config\|check-config\|help\|version")
[ "$(echo "$keys" | wc -l)" -ge 15 ] || bad "too few options in --help: $keys"
miss=""
for k in $keys; do grep -q "^#$k = " "$S/contrib/ductiled.conf" || miss="$miss $k"; done
[ -z "$miss" ] && ok "contrib/ductiled.conf has a line for each of the $(echo $keys | wc -w) options" \
  || bad "options missing in contrib/ductiled.conf (add a commented line for each):$miss"
# the files the keys name (--check-config reads them)
printf 'localhost slots=2\n' > "$T/hosts"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$T/secret"; chmod 600 "$T/secret"
grep "^#[a-z-]* = " "$S/contrib/ductiled.conf" | sed 's/^#//' | while IFS= read -r line; do
  case "$line" in
    hostfile*) line="hostfile = $T/hosts" ;;
    secret*) line="secret = $T/secret" ;;
  esac
  printf '%s\n' "$line" > "$T/one.conf"
  case "$line" in tcp*) printf 'secret = %s\n' "$T/secret" >> "$T/one.conf" ;; esac
  chmod 600 "$T/one.conf"
  "$DUCTILED" --config "$T/one.conf" --check-config > "$T/out" 2>&1 || { echo "FAIL: '$line': $(cat "$T/out")"; exit 1; }
done && ok "each key of contrib/ductiled.conf, uncommented, passes --check-config" || fail=1

# systemd's notification protocol, with a socket standing in for systemd's
"$PY" - "$T/notify" > "$T/notify.log" 2>&1 <<'PYEOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
open(sys.argv[1] + ".ready", "w").close()
try:
    while True:
        m = s.recv(4096).decode()
        print(m.replace("\n", " | "), flush=True)
        if "STOPPING=1" in m:
            break
except socket.timeout:
    print("timeout", flush=True)
PYEOF
NPID=$!
wait_until 20 '[ -e "$T/notify.ready" ]' || bad "notification listener did not start"
printf 'verbose = false\n' > "$T/n.conf"; chmod 600 "$T/n.conf"
NOTIFY_SOCKET="$T/notify" start_daemon --config "$T/n.conf"
wait_until 20 'grep -q "READY=1" "$T/notify.log"' && ok "READY=1 once listening: $(head -1 "$T/notify.log")" || bad "no READY=1"
printf 'verbose = true\n' > "$T/n.conf"
kill -HUP "$DPID"
wait_until 20 '[ "$(grep -c "READY=1" "$T/notify.log")" = 2 ]' && grep -q "RELOADING=1 | MONOTONIC_USEC=[0-9]" "$T/notify.log" \
  && ok "SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1" || bad "reload notifications: $(cat "$T/notify.log")"
grep -q "'verbose' changed from '(default)' to 'true'" "$T/daemon.log" && ok "verbose switched on by the reload" || bad "verbose not reloaded"
stop_daemon
wait "$NPID"
grep -q "STOPPING=1" "$T/notify.log" && ok "STOPPING=1 at SIGTERM" || bad "no STOPPING=1: $(cat "$T/notify.log")"
daemon_clean
exit $fail

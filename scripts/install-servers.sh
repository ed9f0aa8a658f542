#!/bin/sh
# The multi-instance tests start a real PostgreSQL and a real Redis on loopback, from Debian's
# postgresql and redis-server packages (the tests run initdb and redis-server themselves, in temp
# folders on free ports; no system service is used), and put Debian's nginx in front of the
# instances with the sample config of docs/scale-out.md. The metrics tests run Debian's prometheus
# (promtool, and a server scraping the gateway with the sample alert rules of docs/). Installs only
# what is missing.
set -e
missing=
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v promtool >/dev/null 2>&1 || missing="$missing prometheus"
had_nginx=yes
if [ ! -x /usr/sbin/nginx ]; then had_nginx=no; missing="$missing nginx-light"; fi
[ -z "$missing" ] && exit 0
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
echo "installing$missing (Debian packages) for the multi-instance tests" >&2
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
  $SUDO apt-get update >/dev/null 2>&1
  $SUDO apt-get install -y --no-install-recommends $missing
}
# Installing the packages may start system services (nginx on port 80, redis on 6379); the tests
# run their own instances on free ports, so stop what the install started.
if command -v systemctl >/dev/null 2>&1; then
  [ "$had_nginx" = no ] && $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true
  case "$missing" in *prometheus*) $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true ;; esac
fi
if [ "$had_nginx" = no ] && [ -f /run/nginx.pid ]; then $SUDO kill "$(cat /run/nginx.pid)" 2>/dev/null || true; fi
exit 0

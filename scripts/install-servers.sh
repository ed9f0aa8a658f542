#!/bin/sh
# The multi-instance tests start a real PostgreSQL and a real Redis on loopback, from Debian's
# postgresql and redis-server packages (the tests run initdb and redis-server themselves, in temp
# folders on free ports; no system service is used). Installs only what is missing.
set -e
missing=
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
[ -z "$missing" ] && exit 0
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
echo "installing$missing (Debian packages) for the multi-instance tests" >&2
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
  $SUDO apt-get update >/dev/null 2>&1
  $SUDO apt-get install -y --no-install-recommends $missing
}

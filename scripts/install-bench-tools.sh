#!/bin/sh
# Optional tools for the benchmarks, from Debian's packages: nginx, a reference proxy that
# `npm run bench` measures beside the gateway when it is installed, and valgrind, which
# `npm run bench:instructions` needs. Neither is needed to run or test the gateway.
set -e
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
had_nginx=no
if [ -x /usr/sbin/nginx ]; then had_nginx=yes; fi
$SUDO apt-get install -y --no-install-recommends nginx-light valgrind
# Installing the package starts a system nginx on port 80; the benchmark runs its own instance.
# An nginx that was already here is left as it was.
if [ "$had_nginx" = no ]; then
  if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true; fi
  if [ -f /run/nginx.pid ]; then $SUDO kill "$(cat /run/nginx.pid)" 2>/dev/null || true; fi
fi

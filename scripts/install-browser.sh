#!/bin/sh
# The dashboard's browser tests drive Debian's Chromium through playwright-core (a browser
# download by Playwright itself cannot work here). A Devanagari font lets Hindi model names and
# voices render in screenshots. Installs only what is missing.
set -e
missing=
[ -x /usr/bin/chromium ] || missing="$missing chromium"
fc-list 2>/dev/null | grep -qi 'lohit devanagari' || missing="$missing fonts-lohit-deva"
[ -z "$missing" ] && exit 0
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
echo "installing$missing (Debian packages) for the browser tests" >&2
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
  $SUDO apt-get update >/dev/null 2>&1
  $SUDO apt-get install -y --no-install-recommends $missing
}

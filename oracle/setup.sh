#!/usr/bin/env bash
# Installs what the oracle needs when it is missing: Debian's Chromium and the pinned npm
# packages (npm ci from oracle/package-lock.json). Quick no-op when both are present.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -x /usr/bin/chromium ]; then
  echo "oracle/setup.sh: installing Debian chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
if [ -f "$here/package-lock.json" ]; then
  stamp="$here/node_modules/.docmunch-stamp"
  if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$stamp"
  fi
fi

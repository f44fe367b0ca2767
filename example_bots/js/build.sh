#!/usr/bin/env bash
# Install the JavaScript kit's dependencies: the build step of bot.toml, also called
# by the project's scripts/build-bots.sh (make test).
#
# `npm ci` empties node_modules before it installs, which would break a bot process
# of this kit starting at that moment, so it runs only when node_modules is missing
# or package-lock.json has changed since the last install; otherwise this does
# nothing. Concurrent builds wait for each other (flock, where available).
set -euo pipefail
cd "$(dirname "$0")"
stamp=node_modules/.installed-package-lock.json
up_to_date() { [[ -d node_modules && -f "$stamp" ]] && cmp -s package-lock.json "$stamp"; }

up_to_date && exit 0
if ! command -v npm >/dev/null 2>&1; then
    echo "example_bots/js: npm not found. Install Node.js 18 or later (with npm)." >&2
    exit 1
fi
if command -v flock >/dev/null 2>&1; then
    exec 9<.
    flock 9
    up_to_date && exit 0 # another build did it while we waited
fi
# --prefer-offline: the lock file pins every version and hash, so a cached copy is
# as good as a download, and the build works offline once the cache holds it.
npm ci --prefer-offline --no-audit --no-fund
cp package-lock.json "$stamp"

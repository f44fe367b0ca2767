#!/usr/bin/env bash
# Build the Go starter bot, ./bot, WITHOUT network: the build step of bot.toml, also
# called by the project's scripts/build-bots.sh (make test). Run ./fetch.sh first
# (once, with network): it puts the dependencies in vendor/.
#
# Everything Go writes stays in this folder: GOCACHE and GOMODCACHE in .cache/, the
# binary in ./bot (static: CGO_ENABLED=0). HOME, GOPATH and the user's Go settings
# are not needed. Does nothing when ./bot is up to date (a stamp of the sources, go.mod,
# vendor/modules.txt and the Go version); otherwise links into .cache/ and renames
# the result onto ./bot, so a bot process starting meanwhile never sees half a file.
# Concurrent builds wait for each other (flock, where available).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=go-env.sh
source ./go-env.sh offline
if [[ ! -f vendor/modules.txt ]]; then
    echo "example_bots/go: the dependencies are missing (no vendor/): run ./fetch.sh first." >&2
    exit 1
fi
if [[ -f vendor/.fetched ]] && ! cat go.mod go.sum | cmp -s - vendor/.fetched; then
    echo "example_bots/go: go.mod or go.sum changed since the last fetch: run ./fetch.sh first." >&2
    exit 1
fi

mkdir -p .cache
stamp=.cache/bot.stamp
sources() { find . \( -path ./vendor -o -path ./.cache \) -prune -o -name '*.go' ! -name '*_test.go' -print | LC_ALL=C sort; }
wanted() { go env GOVERSION; sources; cat go.mod go.sum vendor/modules.txt $(sources); }
up_to_date() { [[ -x bot && -f "$stamp" ]] && cmp -s <(wanted) "$stamp"; }

up_to_date && exit 0
if command -v flock >/dev/null 2>&1; then
    exec 9<.
    flock 9
    up_to_date && exit 0 # another build did it while we waited
fi
go build -trimpath -ldflags="-s -w" -o .cache/bot.new .
mv -f .cache/bot.new bot
wanted >"$stamp"

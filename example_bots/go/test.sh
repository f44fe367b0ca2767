#!/usr/bin/env bash
# Run the Go kit's own tests offline: builds ./bot if needed (./build.sh), then
# `go test ./...` (protocol_test.go, strategy_test.go, bot_test.go) with the same
# settings as build.sh: vendor/ only, caches in .cache/. Extra arguments go to
# go test (e.g. ./test.sh -v, ./test.sh -run Strategy). Exit status 0 only when all
# tests pass. Run ./fetch.sh first (once, with network).
set -euo pipefail
cd "$(dirname "$0")"
./build.sh
# shellcheck source=go-env.sh
source ./go-env.sh offline
exec go test -count=1 "$@" ./...

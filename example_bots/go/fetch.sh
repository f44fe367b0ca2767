#!/usr/bin/env bash
# Fetch the Go kit's dependencies WITH network: github.com/vmihailenco/msgpack/v5
# (and its one dependency), at the versions of go.mod / go.sum, copied into vendor/
# by `go mod vendor`. ./build.sh then builds offline from vendor/ alone.
#
# Go's module cache goes to .cache/mod inside this folder (not ~/go). Does nothing
# when vendor/ already matches go.mod and go.sum. Concurrent runs wait for each
# other (flock, where available).
set -euo pipefail
cd "$(dirname "$0")"

# shellcheck source=go-env.sh
source ./go-env.sh

export GOFLAGS=-modcacherw         # a module cache that rm -rf can remove
stamp=vendor/.fetched
wanted() { cat go.mod go.sum; }
up_to_date() { [[ -f vendor/modules.txt && -f "$stamp" ]] && cmp -s <(wanted) "$stamp"; }

up_to_date && exit 0
if command -v flock >/dev/null 2>&1; then
    exec 9<.
    flock 9
    up_to_date && exit 0 # another fetch did it while we waited
fi
go mod vendor
wanted >"$stamp"
echo "example_bots/go: dependencies in vendor/"

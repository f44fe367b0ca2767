#!/usr/bin/env bash
# Fetch the yardstick's dependencies, with the network, into vendor/ (`cargo vendor`,
# at the exact versions and checksums of Cargo.lock). Afterwards ./build.sh and
# ./test.sh need no network: .cargo/config.toml points crates.io at vendor/.
# Does nothing when vendor/ already matches Cargo.lock. The project's `make test`
# runs it before build.sh.
set -euo pipefail
cd "$(dirname "$0")"
stamp=vendor/.fetched-Cargo.lock # written last: vendor/ is complete for this Cargo.lock
up_to_date() { [[ -f "$stamp" ]] && cmp -s Cargo.lock "$stamp"; }

up_to_date && exit 0
source ./cargo-env.sh
if command -v flock >/dev/null 2>&1; then
    exec 9<.
    flock 9
    up_to_date && exit 0 # another fetch did it while we waited
fi
# `cargo vendor` ignores the [source] replacement of .cargo/config.toml, so it
# reaches crates.io even while vendor/ is missing. It prints the config snippet
# that .cargo/config.toml already holds: not needed.
cargo vendor --locked --quiet vendor >/dev/null
cp Cargo.lock "$stamp"
echo "example_bots/yardstick: dependencies vendored in vendor/"

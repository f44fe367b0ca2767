#!/usr/bin/env bash
# Build the yardstick, target/release/yardstick, WITHOUT the network: only from the crates
# that ./fetch.sh put in vendor/. The build step of bot.toml; also called by the
# project's scripts/build-bots.sh. Quick when nothing changed (cargo sees that the
# binary is up to date). Concurrent builds wait for each other (flock).
set -euo pipefail
cd "$(dirname "$0")"
source ./cargo-env.sh # a Rust toolchain, CARGO_HOME in the kit
if [[ ! -f vendor/.fetched-Cargo.lock ]] || ! cmp -s Cargo.lock vendor/.fetched-Cargo.lock; then
    echo "example_bots/yardstick: the dependencies are missing or older than Cargo.lock:" \
         "run ./fetch.sh first (it needs the network)." >&2
    exit 1
fi
if command -v flock >/dev/null 2>&1; then
    exec 9<.
    flock 9
fi
exec cargo build --release --offline --locked --quiet

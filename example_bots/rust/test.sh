#!/usr/bin/env bash
# Run the kit's own tests, offline, with cargo test (after ./fetch.sh):
#   tests/vectors.rs   the protocol code against protocol/vectors/
#   tests/strategy.rs  the heuristic
#   tests/bot.rs       target/release/bot end to end, as a process
# Exit status 0 only when every test passes.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh # says what is missing (cargo, ./fetch.sh) and builds the bot
source ./cargo-env.sh
# --release: the tests reuse the dependencies and the bot that build.sh compiled.
exec cargo test --release --offline --locked

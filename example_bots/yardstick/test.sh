#!/usr/bin/env bash
# Run the yardstick's own tests, offline, with cargo test (after ./fetch.sh):
#   tests/transcripts.rs  the rules and the tracking against protocol/vectors/games/
#   tests/determinize.rs  the deals never hold a card that cannot be there
#   tests/search.rs       legal answers, reproducible fixed-seed games, strength vs the heuristic
#   tests/bot.rs          target/release/yardstick end to end, as a process
# Exit status 0 only when every test passes.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh
source ./cargo-env.sh
exec cargo test --release --offline --locked

#!/usr/bin/env bash
# Make the five levels of the yardstick as bot folders of their own, for a league:
#   ./levels.sh DEST        ->  DEST/yardstick-l1 ... DEST/yardstick-l5
# Each is a copy of this folder (sources, vendor/, no target/) whose bot.toml is
# named yardstick-lN and runs `./target/release/yardstick --level N`. A league
# builds each in its sandbox (offline, from the copy's vendor/: run ./fetch.sh here
# first). A folder with a bot.toml is one submission, and the sandbox shows a bot
# only its own folder: so the levels are separate folders, not sub-folders.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="${1:?usage: ./levels.sh DEST}"
[[ -f "$here/vendor/.fetched-Cargo.lock" ]] || { echo "run ./fetch.sh first" >&2; exit 1; }
for n in 1 2 3 4 5; do
    out="$dest/yardstick-l$n"
    rm -rf "$out"
    mkdir -p "$out"
    tar -C "$here" --exclude=./target --exclude=./.cargo-home -cf - . | tar -C "$out" -xf -
    sed -i -e "s/^name = .*/name = \"yardstick-l$n\"/" \
           -e "s#^run = .*#run = \"./target/release/yardstick --level $n\"#" "$out/bot.toml"
    echo "$out"
done

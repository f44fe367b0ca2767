#!/usr/bin/env bash
# Build every starter kit under example_bots/ that has a build step.
set -euo pipefail
cd "$(dirname "$0")/.."
for kit in example_bots/*/; do
    if [[ -x "$kit/build.sh" ]]; then
        echo "building $kit"
        (cd "$kit" && ./build.sh)
    fi
done

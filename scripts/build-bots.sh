#!/usr/bin/env bash
# Build every starter kit under example_bots/ that has a build step. A kit with a
# fetch.sh fetches its dependencies first (with network, into the kit's folder), so
# that its build.sh, which arena runs in the sandbox, works offline. A kit whose
# toolchain is missing is skipped with a message (its tests then skip too).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin:$HOME/.cargo/bin"
needs() {
    case "$1" in
        example_bots/go/) command -v go ;;
        example_bots/rust/ | example_bots/yardstick/) command -v cargo ;;
        example_bots/java/) command -v javac && command -v mvn ;;
        example_bots/js/) command -v npm ;;
        # The C kit needs the msgpack-c headers (libmsgpack-dev) too: probed as its build.sh
        # does, so that without them the kit is skipped rather than the whole script stopped.
        example_bots/c/) command -v "${CC:-cc}" && command -v make && printf '#include <msgpack.h>\n' |
            "${CC:-cc}" $(pkg-config --cflags msgpack-c 2>/dev/null || pkg-config --cflags msgpack 2>/dev/null || true) -E -x c - ;;
        *) true ;;
    esac
}
for kit in example_bots/*/; do
    if [[ -x "$kit/build.sh" ]]; then
        if ! needs "$kit" >/dev/null 2>&1; then
            echo "skipping $kit: its toolchain is not installed (see ${kit}README.md)" >&2
            continue
        fi
        if [[ -x "$kit/fetch.sh" ]]; then
            echo "fetching $kit"
            (cd "$kit" && ./fetch.sh)
        fi
        echo "building $kit"
        (cd "$kit" && ./build.sh)
    fi
done

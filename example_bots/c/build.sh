#!/usr/bin/env bash
# Build the C starter bot (called by the project's scripts/build-bots.sh).
set -euo pipefail
cd "$(dirname "$0")"
if ! printf '#include <msgpack.h>\n' | "${CC:-cc}" $(pkg-config --cflags msgpack-c 2>/dev/null || pkg-config --cflags msgpack 2>/dev/null || true) -E -x c - >/dev/null 2>&1; then
    echo "example_bots/c: msgpack.h not found. Install the C msgpack library:" >&2
    echo "    sudo apt-get install libmsgpack-dev    (Debian 12; libmsgpack-c-dev on newer releases)" >&2
    exit 1
fi
exec make

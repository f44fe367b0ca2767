#!/usr/bin/env bash
# Install the Debian packages the test suite needs, or say which are missing.
set -euo pipefail
need=()
[[ -f /usr/include/msgpack.h ]] || need+=(libmsgpack-dev)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v node >/dev/null 2>&1 || need+=(nodejs npm)
command -v cc >/dev/null 2>&1 || need+=(gcc make)
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
[[ -x /usr/bin/chromium ]] || need+=(chromium)  # the report's browser tests (Playwright)
# Go (1.22 or later) and Rust (1.85 or later) are newer than Debian 12 ships: they come
# from go.dev and rustup. Their kits are skipped, and say so, where they are missing.
export PATH="$PATH:/usr/local/go/bin:$HOME/.cargo/bin"
command -v go >/dev/null 2>&1 || echo "note: Go is not installed (https://go.dev/doc/install); the Go kit is skipped" >&2
command -v cargo >/dev/null 2>&1 || echo "note: Rust is not installed (rustup); the Rust kit is skipped" >&2
[[ ${#need[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "installing: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
else
    echo "missing system packages: ${need[*]}" >&2
    echo "install them with: sudo apt-get install ${need[*]}" >&2
    echo "(tests that need them are skipped until then)" >&2
fi

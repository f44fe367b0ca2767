# Sourced by fetch.sh, build.sh and test.sh (from this folder): find a Rust
# toolchain that works in a minimal environment and keep cargo's files in the kit.

# cargo and rustup where rustup puts them, if they are not on the PATH
PATH="$PATH:${HOME:-/nonexistent}/.cargo/bin:/root/.cargo/bin"
# An empty or private HOME (the arena's sandbox) has no ~/.rustup: use the system's.
if [[ -z ${RUSTUP_HOME:-} && ! -d ${HOME:-/nonexistent}/.rustup && -d /root/.rustup ]]; then
    export RUSTUP_HOME=/root/.rustup
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "example_bots/yardstick: cargo not found. Install Rust 1.85 or later (https://rustup.rs)" >&2
    echo "    and put cargo on the PATH (rustup installs it in ~/.cargo/bin)." >&2
    exit 1
fi
# Rust 1.85 or later: rmpv 1.3 needs it, and Cargo.lock has the format of cargo 1.78
# and later. (Debian 12's apt package is 1.63: use rustup.)
if ! cargo_version=$(cargo --version 2>&1); then
    echo "example_bots/yardstick: cargo does not run: $cargo_version" >&2
    exit 1
fi
IFS=. read -r major minor _ <<<"$(awk '{print $2}' <<<"$cargo_version")"
if ! [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || ((major < 1 || (major == 1 && minor < 85))); then
    echo "example_bots/yardstick: $cargo_version is too old: Rust 1.85 or later is needed (https://rustup.rs)." >&2
    exit 1
fi
# Everything cargo writes stays in the kit: its home (never the user's ~/.cargo,
# which may be missing, empty or read-only) and target/, where bot.toml expects
# the binary.
export CARGO_HOME="$PWD/.cargo-home"
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR CARGO_BUILD_TARGET
mkdir -p "$CARGO_HOME"

# Sourced by fetch.sh, build.sh and test.sh: finds the go command (on the PATH, else
# /usr/local/go/bin) and keeps everything Go writes in this folder (.cache/), with no
# toolchain download. `source ./go-env.sh offline` also builds from vendor/ alone, with
# no module proxy and no cgo (a static binary).
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
    PATH=/usr/local/go/bin:$PATH
fi
if ! command -v go >/dev/null 2>&1; then
    echo "example_bots/go: the go command was not found. Install Go 1.22 or later" \
         "(https://go.dev/dl/, usually in /usr/local/go) and put its bin/ on the PATH." >&2
    exit 1
fi
export GOTOOLCHAIN=local              # never download another toolchain
export GOMODCACHE="$PWD/.cache/mod"
export GOCACHE="$PWD/.cache/build"
if [[ "${1:-}" == offline ]]; then
    export GOFLAGS="-mod=vendor -buildvcs=false"
    export GOPROXY=off                # offline: everything comes from vendor/
    export CGO_ENABLED=0
fi

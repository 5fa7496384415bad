#!/usr/bin/env bash
# Sets up a Debian 12 / Ubuntu machine for sandy-native, from a checkout:
# the Debian packages the build and the tests need (through sudo unless
# already root), then the npm dependencies, which builds the addon and the
# launcher. The one list of system packages; .ci/run uses it too: every
# program the suite runs is either here or in Debian's essential set.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential python3        # node-gyp
  libseccomp-dev libcjson-dev    # the C core
  bubblewrap                     # the bwrap backend
  clang libclang-rt-dev          # libFuzzer for the parser's fuzz target
  util-linux attr                # setpriv, unshare and xattr tools for the tests
  cppcheck                       # the C sources' static check (test/native.test.js)
  strace                         # "parsing makes no file-name system call"
)
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
npm ci --no-audit --no-fund

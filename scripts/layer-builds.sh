#!/usr/bin/env bash
# Test launchers with a chosen set of enforcement layers switched on, for
# the per-layer comparison (test/meta/layers.test.js): scripts/layer-builds.sh
# DIR [EXTRA_CFLAGS...]. Each build is DIR/sandy-launcher-<layers>, where
# <layers> names the layers left on ("none", "view", "landlock", "seccomp",
# "landlock+seccomp", "view+seccomp", "view+landlock", and every layer:
# "view+landlock+seccomp"); the view means
# namespaces, pinning, the descriptor checks and the mount view. EXTRA_CFLAGS
# go to every build (the meta-test removes one rule that way); LAYER_BUILDS
# names a subset to build. Test builds
# only: a release build never defines SANDY_TEST_*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: $0 DIR [EXTRA_CFLAGS...]}
shift
extra=("$@")
mkdir -p "$out"
mapfile -t sources < <(cd "$root" && node scripts/sources.js launcher core)
configs=(none view landlock seccomp landlock+seccomp view+seccomp view+landlock view+landlock+seccomp)
# LAYER_BUILDS="a b": only those
if [ -n "${LAYER_BUILDS:-}" ]; then read -r -a configs <<< "$LAYER_BUILDS"; fi

build() {
  local name=$1 flags=()
  [ "$name" = none ] && flags+=(-DSANDY_TEST_SKIP_BASE)
  for layer in view landlock seccomp; do
    case "+$name+" in
      *"+$layer+"*) ;;
      *) flags+=("-DSANDY_TEST_SKIP_$(echo "$layer" | tr 'a-z' 'A-Z')") ;;
    esac
  done
  gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -static "${flags[@]}" "${extra[@]}" \
    -o "$out/sandy-launcher-$name" "${sources[@]/#/$root/}" -l:libseccomp.a
}

# two at a time (the machine has two cores)
for ((i = 0; i < ${#configs[@]}; i += 2)); do
  pids=()
  for name in "${configs[@]:$i:2}"; do
    build "$name" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
done
chmod 755 "$out" "$out"/sandy-launcher-*

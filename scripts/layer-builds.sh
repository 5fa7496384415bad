#!/usr/bin/env bash
# Builds three test launchers into DIR, each with one enforcement layer
# switched off (the view, Landlock, seccomp): scripts/layer-builds.sh DIR.
# test/layers.test.js runs the escape suite against each and requires it to
# fail, proving that every layer does work of its own. Test builds only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: $0 DIR}
mkdir -p "$out"
src="$root/csrc"
sources=("$src/launcher.c" "$src/error.c" "$src/policy.c" "$src/resolve.c" "$src/policy_argv.c" "$src/copy_dirs.c"
  "$src/linux/apply.c" "$src/linux/self.c" "$src/linux/pins.c" "$src/linux/guard.c" "$src/linux/guard_view.c" "$src/linux/loader_env.c" "$src/linux/descriptors.c" "$src/linux/namespaces.c" "$src/linux/mount_view.c"
  "$src/linux/landlock.c" "$src/linux/seccomp.c")
for layer in VIEW LANDLOCK SECCOMP; do
  name=$(echo "$layer" | tr 'A-Z' 'a-z')
  gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -static "-DSANDY_TEST_SKIP_$layer" \
    -o "$out/sandy-launcher-no-$name" "${sources[@]}" -l:libseccomp.a
done
chmod 755 "$out" "$out"/sandy-launcher-no-*

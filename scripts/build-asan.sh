#!/usr/bin/env bash
# Builds an ASan/UBSan copy of the package in build-asan/ (the tracked
# sources plus a link to node_modules), so the same tap suite can run
# against sanitized binaries without any switch in the production code.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build-asan"
mkdir -p "$out"
# Copy what the package and its tests are made of; keep the old build dir
# so make stays incremental.
(cd "$root" && tar -cf - binding.gyp package.json README.md csrc lib bin types test scripts fuzz bench 2>/dev/null) |
  (cd "$out" && tar -xf -)
ln -sfn "$root/node_modules" "$out/node_modules"
# cJSON's fetched source is shared with the main build (fetched once).
sh "$root/scripts/fetch-cjson.sh" >/dev/null
ln -sfn "$root/deps" "$out/deps"
nodedir=$(node -p "require('path').resolve(process.execPath, '../..')")
[ -f "$nodedir/include/node/node_api.h" ] || nodedir=/usr
gyp="${npm_config_node_gyp:-$(dirname "$(command -v node)")/../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js}"
cd "$out"
# gyp variables go to configure only (build would hand them to make)
log="$out/build.log"
if ! { node "$gyp" configure --nodedir="$nodedir" -- -Dsanitize=1 &&
       node "$gyp" build --nodedir="$nodedir" &&
       make -s --no-print-directory -C csrc launcher O=../build/Release VARIANT=sanitize; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
chmod -R a+rX "$out"
echo "ASan/UBSan build ready in $out"

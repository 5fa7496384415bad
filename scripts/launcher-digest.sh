#!/bin/sh
# Records the launcher's SHA-256 beside it: scripts/launcher-digest.sh IN OUT.
# Run by the build (binding.gyp) right after the launcher links;
# lib/launcher-copy.js makes its private copies only from bytes that match.
set -eu
digest=$(sha256sum < "$1")
printf '%s\n' "${digest%% *}" > "$2.tmp"
mv "$2.tmp" "$2"

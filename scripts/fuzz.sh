#!/usr/bin/env bash
# Builds the libFuzzer target for the policy document parser and runs it for
# a bounded time: scripts/fuzz.sh [seconds] (default 20). Exits non-zero
# when the build fails or the fuzzer finds a crash, leak, sanitizer report
# or broken invariant. The seed corpus in fuzz/corpus is only read; new
# inputs go to a scratch directory, crash reproducers to $FUZZ_ARTIFACTS
# (default: the scratch directory, whose path is printed and which is kept
# only when something was found).
set -euo pipefail

seconds="${1:-20}"
case "$seconds" in
  ''|*[!0-9]*) echo "usage: $0 [seconds]" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/sandy-fuzz.XXXXXX")"
artifacts="${FUZZ_ARTIFACTS:-$work/artifacts}"
mkdir -p "$work/corpus" "$artifacts"
echo "fuzz: scratch directory $work"

clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 \
  -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/csrc" \
  "$root/fuzz/policy_json_fuzz.c" \
  "$root/csrc/policy_json.c" "$root/csrc/policy.c" "$root/csrc/error.c" \
  -lcjson -o "$work/policy_json_fuzz"

# Tokens of the format help the fuzzer reach the shape checks quickly.
cat > "$work/policy_json.dict" <<'DICT'
"\"schema_version\""
"\"network\""
"\"allow_subprocesses\""
"\"grants\""
"\"executable_grants\""
"\"deny_subtrees\""
"\"deny_write_exact\""
"\"path\""
"\"access\""
"\"scope\""
"\"allow_all\""
"\"block_all\""
"\"read\""
"\"read_write\""
"\"exact\""
"\"subtree\""
"true"
"false"
"null"
"\\u0000"
"\\ud83d\\ude00"
"\\udc00"
"\xc3\xa9"
"\xed\xa0\x80"
DICT

# The seeds are checked once on their own first, so a seed that breaks an
# invariant is reported as such rather than as a fuzzing find.
"$work/policy_json_fuzz" -runs=0 "$root/fuzz/corpus"

UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" \
"$work/policy_json_fuzz" \
  -max_total_time="$seconds" -timeout=10 -max_len=8192 \
  -dict="$work/policy_json.dict" \
  -artifact_prefix="$artifacts/" \
  -print_final_stats=1 \
  "$work/corpus" "$root/fuzz/corpus"
echo "fuzz: no crash in ${seconds}s"
# Nothing to keep after a clean run.
rm -rf "$work"

#!/usr/bin/env bash
# Builds the libFuzzer targets (the policy document parser, the launcher's
# argument parser, the probe report's decoder) and runs each for a bounded time: scripts/fuzz.sh
# [seconds] (default 20, per target). Exits non-zero
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
# The parser's target links the cJSON the addon ships (fetched and checked
# by scripts/fetch-cjson.sh), compiled with the fuzzer's instrumentation.
cjson="$root/$(sh "$root/scripts/fetch-cjson.sh")"
work="$(mktemp -d "${TMPDIR:-/tmp}/sandy-fuzz.XXXXXX")"
artifacts="${FUZZ_ARTIFACTS:-$work/artifacts}"
mkdir -p "$artifacts"
echo "fuzz: scratch directory $work"

# fuzz_target NAME SEEDS MAXLEN SOURCES... [-lLIB]: build, check the seeds
# once on their own (so a seed that breaks an invariant is reported as
# such rather than as a fuzzing find), then fuzz for $seconds.
fuzz_target() {
  local name=$1 seeds=$2 max_len=$3
  shift 3
  clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 \
    -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/csrc" "$@" -o "$work/$name"
  mkdir -p "$work/corpus-$name"
  "$work/$name" -runs=0 "$seeds"
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" \
  "$work/$name" \
    -max_total_time="$seconds" -timeout=10 -max_len="$max_len" \
    -dict="$work/$name.dict" \
    -artifact_prefix="$artifacts/" \
    -print_final_stats=1 \
    "$work/corpus-$name" "$seeds"
  echo "fuzz: $name: no crash in ${seconds}s"
}

# Tokens of each format help the fuzzer reach the shape checks quickly.
cat > "$work/policy_json_fuzz.dict" <<'DICT'
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
cat > "$work/launch_argv_fuzz.dict" <<'DICT'
"--sandy-policy-v1\x00"
"\x00--network\x00"
"allow_all\x00"
"block_all\x00"
"\x00--subprocesses\x00"
"\x00--grant\x00"
"read\x00"
"read_write\x00"
"exact\x00"
"subtree\x00"
"\x00--execute\x00"
"\x00--deny-subtree\x00"
"\x00--deny-write-exact\x00"
"\x00--tmpfs\x00"
"\x00--landlock-only\x00"
"\x00--canonical\x00"
"\x00--cwd\x00"
"\x00--pin\x00"
"\x00--pinned\x00"
"\x00--nonce\x00"
"0123456789abcdef\x00"
"\x00--\x00"
"/usr\x00"
"1:2\x00"
DICT

fuzz_target policy_json_fuzz "$root/fuzz/corpus" 8192 \
  "$root/fuzz/policy_json_fuzz.c" \
  "$root/csrc/addon/policy_json.c" "$root/csrc/core/policy.c" "$root/csrc/core/error.c" \
  "$root/csrc/core/paths.c" -I"$cjson" "$cjson/cJSON.c"
fuzz_target launch_argv_fuzz "$root/fuzz/corpus-argv" 4096 \
  "$root/fuzz/launch_argv_fuzz.c" \
  "$root/csrc/core/policy_argv.c" "$root/csrc/core/secret_env.c" "$root/csrc/core/policy.c" "$root/csrc/core/error.c"
cat > "$work/probe_report_fuzz.dict" <<'DICT'
"sandy-probe-v1\x0a"
"end\x0a"
"=0\x0a"
"=1\x0a"
"kernel_release="
"landlock_abi="
"landlock_errata="
"user_namespaces="
"user_namespaces_detail="
"mount_api="
"pid_namespace="
"pid_namespace_detail="
"openat2="
"seccomp_filter="
"no_new_privs="
"bwrap_found="
"bwrap_path="
"bwrap_version="
"bwrap_works="
"bwrap_detail="
"root_user="
DICT
fuzz_target probe_report_fuzz "$root/fuzz/corpus-probe" 4096 \
  "$root/fuzz/probe_report_fuzz.c" "$root/csrc/core/probe.c"
# Nothing to keep after a clean run.
rm -rf "$work"

#!/bin/sh
# Builds and runs the C tests of the Linux backend (csrc/test/), and checks
# that the committed generated files are current: the precompiled seccomp
# filters (csrc/linux/seccomp_filters.h, from the rules in
# csrc/linux/seccomp.c) and lib/vocabulary.js (from csrc/core/vocabulary.h
# and protocol.h). Exits non-zero on any failure. When run as root, the tests run again as an unprivileged user.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d /tmp/sandy-c-tests.XXXXXX)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out"

cc=${CC:-gcc}
cflags="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2"
src="$root/csrc"
status=0

echo "# seccomp filter generator (x86_64 here, aarch64 under qemu-user)"
sh "$root/scripts/seccomp-filters.sh" "$out/seccomp_filters.h"
if cmp -s "$out/seccomp_filters.h" "$src/linux/seccomp_filters.h"; then
	echo "ok   csrc/linux/seccomp_filters.h is current"
else
	echo "FAIL csrc/linux/seccomp_filters.h is stale: regenerate it with"
	echo "     sh scripts/seccomp-filters.sh csrc/linux/seccomp_filters.h"
	diff -u "$src/linux/seccomp_filters.h" "$out/seccomp_filters.h" | head -20 || true
	status=1
fi

echo "# vocabulary generator"
$cc $cflags -o "$out/vocabulary-gen" "$src/gen/vocabulary_gen.c"
"$out/vocabulary-gen" > "$out/vocabulary.js"
if cmp -s "$out/vocabulary.js" "$root/lib/vocabulary.js"; then
	echo "ok   lib/vocabulary.js is current"
else
	echo "FAIL lib/vocabulary.js is stale: regenerate it with"
	echo "     cc -std=c11 -o vocabulary-gen csrc/gen/vocabulary_gen.c &&"
	echo "     ./vocabulary-gen > lib/vocabulary.js (see vocabulary_gen.c)"
	diff -u "$root/lib/vocabulary.js" "$out/vocabulary.js" | head -20 || true
	status=1
fi

echo "# building tests"
# The shipped path: precompiled BPF.
$cc $cflags -pthread -o "$out/seccomp_test" \
	"$src/test/seccomp_test.c" "$src/linux/seccomp.c" "$src/linux/plan.c" \
	"$src/core/error.c" "$src/core/paths.c"
# The same rules built by libseccomp at run time (test builds only).
$cc $cflags -pthread -DSANDY_SECCOMP_RUNTIME_BUILD -o "$out/seccomp_test_rt" \
	"$src/test/seccomp_test.c" "$src/linux/seccomp.c" "$src/linux/plan.c" \
	"$src/core/error.c" "$src/core/paths.c" -l:libseccomp.a
# The resolver's canonical spelling, with glibc and with musl (whose
# realpath keeps a leading "//"; the launcher that ships is built with it).
# musl has no UAPI headers of its own: the kernel's, alone on the path.
resolve_srcs="$src/test/resolve_test.c $src/core/resolve.c $src/core/policy.c $src/core/paths.c $src/core/stat.c $src/core/kernel_fs.c $src/core/error.c"
# shellcheck disable=SC2086
$cc $cflags -o "$out/resolve_test" $resolve_srcs
mkdir "$out/uapi"
ln -s /usr/include/linux "$out/uapi/linux"
ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$out/uapi/asm"
ln -s /usr/include/asm-generic "$out/uapi/asm-generic"
# shellcheck disable=SC2086
musl-gcc $cflags -isystem "$out/uapi" -static -o "$out/resolve_test_musl" $resolve_srcs
# The precompiled programs through a classic-BPF interpreter.
$cc $cflags -o "$out/bpf_test" "$src/test/bpf_test.c" "$src/test/bpf_cases_aarch64.c"
# The launcher's argument parser: every rejection and its reason.
$cc $cflags -o "$out/policy_argv_test" "$src/test/policy_argv_test.c" \
	"$src/core/policy_argv.c" "$src/core/secret_env.c" "$src/core/policy.c" "$src/core/error.c"
# The launcher's probe report: round trip, refusals, the judge.
$cc $cflags -o "$out/probe_wire_test" "$src/test/probe_wire_test.c" \
	"$src/core/probe.c"
# The plan: what Linux can represent, the Landlock rules, the view's mount
# plan, the seccomp variant. Pure: no root, no kernel feature.
$cc $cflags -o "$out/plan_test" "$src/test/plan_test.c" "$src/linux/plan.c" \
	"$src/core/paths.c" "$src/core/error.c"
# Path containment and UTF-8 validation, the core's one copy of each.
$cc $cflags -o "$out/paths_test" "$src/test/paths_test.c" "$src/core/paths.c"
# The guard mode's words: encoder and decoder.
$cc $cflags -o "$out/guard_argv_test" "$src/test/guard_argv_test.c" \
	"$src/core/guard_argv.c" "$src/core/policy_argv.c" "$src/core/secret_env.c" "$src/core/policy.c" \
	"$src/core/resolve.c" "$src/core/error.c" "$src/core/paths.c" \
	"$src/core/stat.c" "$src/core/kernel_fs.c"
# The seatbelt backend's words: golden profiles, structure, hostile paths;
# and its verdict from the probe's facts.
$cc $cflags -o "$out/seatbelt_test" "$src/test/seatbelt_test.c" \
	"$src/backends/seatbelt.c" "$src/core/policy_argv.c" "$src/core/secret_env.c" "$src/core/policy.c" \
	"$src/core/error.c" "$src/core/probe.c"
# confinePolicy's one crossing: refusals and pins, the lookup injected.
$cc $cflags -o "$out/confine_test" "$src/test/confine_test.c" \
	"$src/addon/confine.c" "$src/core/policy_argv.c" "$src/core/secret_env.c" "$src/core/policy.c" \
	"$src/core/resolve.c" "$src/core/error.c" "$src/core/paths.c" \
	"$src/core/stat.c" "$src/core/kernel_fs.c"
# Static, so it can copy itself into the test tree as a library-free program.
$cc $cflags -static -o "$out/landlock_test" \
	"$src/test/landlock_test.c" "$src/linux/landlock.c" "$src/linux/plan.c" \
	"$src/core/error.c" \
	"$src/core/paths.c" "$src/core/stat.c"

run() {
	echo "# $*"
	"$@" || status=1
}

for t in bpf_test resolve_test resolve_test_musl policy_argv_test probe_wire_test plan_test paths_test confine_test guard_argv_test seccomp_test seccomp_test_rt landlock_test; do
	run "$out/$t"
done
run "$out/seatbelt_test" "$src/test/golden"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	for t in seccomp_test landlock_test; do
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$out/$t"
	done
fi

if [ $status -eq 0 ]; then echo "c-tests: all passed"; else echo "c-tests: FAILED"; fi
exit $status

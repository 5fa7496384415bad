#!/usr/bin/env bash
# The launcher's coverage and fault-injection build (test builds only):
# scripts/coverage-build.sh DIR. Compiles every launcher source with
# --coverage into DIR/obj (the .gcno files stay there), links them with
# csrc/test/launcher_hooks.c and ld --wrap of the calls it hooks, and
# writes DIR/sandy-launcher-coverage. See launcher_hooks.c for what the
# build does with SANDY_COVERAGE_DIR and SANDY_FAULT_AT.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: $0 DIR}
src="$root/csrc"
mkdir -p "$out/obj"
mapfile -t sources < <(cd "$root" && node scripts/sources.js launcher core)
# (stat, the mount API, openat2, Landlock and statx are made through
# syscall(): csrc/core/sys.h, csrc/core/stat.c; wrapping syscall fails them)
wrapped=(malloc calloc realloc strdup strndup chdir fchdir fstatvfs
  statvfs getcwd getline getresuid lseek memfd_create mkdir mkdirat mount umount2
  unshare readlink readlinkat realpath symlinkat write dup2 socket
  fopen opendir fdopendir readdir open openat fcntl ioctl prctl syscall execv execve _exit
  fork socketpair pipe2 sigprocmask sigaction kill)
cflags=(-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O0 -g)
objects=()
pids=()
for f in "${sources[@]}"; do
  o="$out/obj/$(echo "${f#csrc/}" | tr / _ | sed 's/\.c$/.o/')"
  objects+=("$o")
  gcc "${cflags[@]}" --coverage -fprofile-info-section=sandy_gcov_info -c "$root/$f" -o "$o" &
  pids+=($!)
  if (( ${#pids[@]} >= 2 )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
gcc "${cflags[@]}" -c "$src/test/launcher_hooks.c" -o "$out/obj/launcher_hooks.o"
flags=()
for w in "${wrapped[@]}"; do flags+=("-Wl,--wrap=$w"); done
gcc -static -o "$out/sandy-launcher-coverage" "${objects[@]}" "$out/obj/launcher_hooks.o" \
  "${flags[@]}" -lgcov -pthread
chmod -R a+rX "$out"

#!/bin/sh
# Writes the precompiled seccomp filters, csrc/linux/seccomp_filters.h, to
# OUT: scripts/seccomp-filters.sh OUT
#
# One part per shipped architecture (x86_64, aarch64), each written by
# csrc/gen/seccomp_gen.c built for that architecture: natively for this
# host's, and for the other with Debian's cross compiler against
# libseccomp-dev:<arch>, run under qemu-user (it only computes BPF; no
# system call of the target is made). scripts/setup.sh installs both.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
dest=$1
work=$(mktemp -d /tmp/sandy-seccomp-gen.XXXXXX)
trap 'rm -rf "$work"' EXIT

flags="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -DSANDY_SECCOMP_GENERATOR -O2"
srcs="$root/csrc/gen/seccomp_gen.c $root/csrc/linux/seccomp.c $root/csrc/core/error.c"
host=$(uname -m)

# part ARCH: writes $work/ARCH.part
part() {
	arch=$1
	if [ "$arch" = "$host" ]; then
		# shellcheck disable=SC2086
		gcc $flags -o "$work/gen-$arch" $srcs -lseccomp
		"$work/gen-$arch" > "$work/$arch.part"
		return
	fi
	tri=$arch-linux-gnu
	for tool in "$tri-gcc" "qemu-$arch-static"; do
		command -v "$tool" >/dev/null 2>&1 ||
			{ echo "seccomp-filters: $tool is missing (scripts/setup.sh installs it)" >&2; exit 1; }
	done
	[ -f "/usr/lib/$tri/libseccomp.a" ] ||
		{ echo "seccomp-filters: libseccomp-dev for $arch is missing (scripts/setup.sh installs it)" >&2; exit 1; }
	# shellcheck disable=SC2086
	"$tri-gcc" $flags -static -o "$work/gen-$arch" $srcs -L"/usr/lib/$tri" -l:libseccomp.a
	"qemu-$arch-static" "$work/gen-$arch" > "$work/$arch.part"
}

part x86_64
part aarch64
"$work/gen-$host" --header "$work/x86_64.part" "$work/aarch64.part" > "$dest"

#!/bin/sh
# cJSON for the addon, linked statically: Debian's `cjson` source package
# (upstream 1.7.15 with Debian's security patches), fetched at build time and
# checked against the pin below, the one place its version and checksums are
# written. No third-party source is kept in the repository.
#
#   sh scripts/fetch-cjson.sh     prints deps/cjson, the directory holding
#                                 cJSON.c, relative to the package root
#
# binding.gyp runs it at configure time (so does csrc/Makefile's fuzz). The
# source is unpacked once into deps/cjson/ (git-ignored; the three files
# stay in deps/ as the cache); later runs only check the stamp. The files
# come from, in order: deps/ itself (put them there by hand to build
# offline), `apt-get source` (needs a deb-src entry), then
# deb.debian.org's pool with curl or wget. Every byte is checked against the
# SHA-256 sums below before it is unpacked; the patches are applied as
# dpkg-source would (debian/patches/series, in order).
#
# Updating: when Debian publishes a new cjson for bookworm, the old files
# leave the pool; take the new version's three SHA-256 sums from
# `apt-cache showsrc cjson` (and check the .dsc's signature), update them
# here and the README's packaging note.
set -eu

version=1.7.15-1+deb12u4
upstream=1.7.15
dsc_sha256=764c2de141d680f4fb4cada30c526dacaa30ead061b9b9c34f2b81e2df0f8439
orig_sha256=5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2
debian_sha256=afd19a970966cf534ff1e9ec077d710a5e7e78eb4ec9b499c8bdc32e55da12cb

dsc=cjson_$version.dsc
orig=cjson_$upstream.orig.tar.gz
debian=cjson_$version.debian.tar.xz
pools="https://deb.debian.org/debian/pool/main/c/cjson https://deb.debian.org/debian-security/pool/updates/main/c/cjson"

root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/deps"
dest="$deps/cjson"
stamp="cjson $version $dsc_sha256"

say() { echo "fetch-cjson: $*" >&2; }

fail() {
	cat >&2 <<EOF
fetch-cjson: cannot build sandy-native: cJSON's source is missing and could not be fetched.
  $1
  The addon links cJSON $upstream statically, from Debian's cjson source package $version.
  Any one of these provides it:
  - Debian/Ubuntu: add a deb-src entry for Debian bookworm (main) and run apt-get update,
    so that \`apt-get source --download-only cjson=$version\` works;
  - install curl or wget and allow https to deb.debian.org;
  - offline: copy $dsc, $orig and $debian
    (from $(echo "$pools" | cut -d' ' -f1)/) into $deps/.
  Then run \`sh scripts/fetch-cjson.sh\`, or build again (npm run build / npm rebuild sandy-native).
EOF
	exit 1
}

if [ -f "$dest/.sandy-cjson" ] && [ "$(cat "$dest/.sandy-cjson")" = "$stamp" ] && [ -f "$dest/cJSON.c" ]; then
	echo deps/cjson
	exit 0
fi

if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	fail "No sha256sum or shasum to check the downloaded files with (install coreutils)."
fi

# verified DIR: the three files in DIR have the pinned checksums
verified() {
	[ -f "$1/$dsc" ] && [ "$(sha256 "$1/$dsc")" = "$dsc_sha256" ] &&
	[ -f "$1/$orig" ] && [ "$(sha256 "$1/$orig")" = "$orig_sha256" ] &&
	[ -f "$1/$debian" ] && [ "$(sha256 "$1/$debian")" = "$debian_sha256" ]
}

mkdir -p "$deps"
work=$(mktemp -d "$deps/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

if verified "$deps"; then
	say "using $dsc and its files from $deps"
else
	got=
	if command -v apt-get >/dev/null 2>&1; then
		say "apt-get source --download-only cjson=$version"
		# (as root, apt cannot hand the download to its _apt user in a
		# private directory; the files are checked below either way)
		if (cd "$work" && apt-get source --download-only -qq -o APT::Sandbox::User="$(id -un)" "cjson=$version" >&2); then
			got=apt
		else
			say "apt-get source failed (no deb-src entry, or $version no longer in the archive)"
		fi
	fi
	if [ -z "$got" ]; then
		if command -v curl >/dev/null 2>&1; then
			download() { curl -fsSL --retry 2 -o "$2" "$1"; }
		elif command -v wget >/dev/null 2>&1; then
			download() { wget -q -O "$2" "$1"; }
		else
			fail "apt-get source did not provide it, and there is no curl or wget to download it."
		fi
		for pool in $pools; do
			say "downloading from $pool"
			ok=1
			for f in "$dsc" "$orig" "$debian"; do
				download "$pool/$f" "$work/$f" || { ok=0; break; }
			done
			if [ $ok = 1 ]; then got=$pool; break; fi
		done
		[ -n "$got" ] || fail "$dsc could not be downloaded from $pools."
	fi
	verified "$work" || fail "The downloaded files do not match the SHA-256 sums pinned in scripts/fetch-cjson.sh (refusing them)."
	for f in "$dsc" "$orig" "$debian"; do mv -f "$work/$f" "$deps/$f"; done
fi

# Unpack as dpkg-source -x would a 3.0 (quilt) package: the upstream
# tarball, debian/ over it, then the patches in series order.
src="$work/src"
mkdir -p "$src"
tar -xzf "$deps/$orig" -C "$src" --strip-components=1
tar -xJf "$deps/$debian" -C "$src"
while read -r p rest; do
	case "$p" in ''|'#'*) continue ;; esac
	[ -z "$rest" ] || fail "debian/patches/series line '$p $rest': options are not supported."
	patch -s -p1 -d "$src" <"$src/debian/patches/$p" >&2 || fail "Debian's patch $p does not apply."
done <"$src/debian/patches/series"
[ -f "$src/cJSON.c" ] && [ -f "$src/cJSON.h" ] && [ -f "$src/LICENSE" ] || fail "The unpacked source has no cJSON.c, cJSON.h or LICENSE."
echo "$stamp" >"$src/.sandy-cjson"
rm -rf "$dest"
mv "$src" "$dest"
say "cJSON $version unpacked in $dest"
echo deps/cjson

#!/bin/sh
# Shell checks of the Linux launcher's view (issue 3), as the current user.
# Usage: csrc/test/view_check.sh [LAUNCHER]   (default build/Release/sandy-launcher)
# Run it as root and as nobody:
#   setpriv --reuid=65534 --regid=65534 --clear-groups csrc/test/view_check.sh
# Every check also runs the action unconfined first, so a check cannot pass
# because the action was impossible anyway.
L=${1:-build/Release/sandy-launcher}
W=$(mktemp -d /tmp/sandy-view.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/ws/a/b/secret" "$W/ws/c" "$W/tools" "$W/out"
echo key >"$W/ws/a/b/secret/key"
echo cfg >"$W/ws/c/settings.json"
echo out >"$W/out/file"
cp /usr/bin/true "$W/tools/t"
fails=0
run() {
	"$L" --sandy-policy-v1 --network block_all --subprocesses \
		--grant read subtree /usr --execute subtree /usr \
		--grant read subtree "$W/tools" --execute exact "$W/tools/t" \
		--grant read_write subtree "$W/ws" \
		--deny-subtree "$W/ws/a/b/secret" \
		--deny-write-exact "$W/ws/c/settings.json" \
		--cwd "$W/ws" -- /bin/sh -c "$1" >/dev/null 2>&1
}
check() { # name, expected status (0 ok / 1 fails), command
	if sh -c "$3" >/dev/null 2>&1; then :; else
		[ "$2" = 0 ] || { echo "SKIP $1 (fails unconfined)"; return; }
	fi
	run "$3"; rc=$?
	if { [ "$2" = 0 ] && [ $rc = 0 ]; } || { [ "$2" = 1 ] && [ $rc != 0 ] && [ $rc != 125 ]; }; then
		echo "ok   $1"
	else
		echo "FAIL $1 (status $rc)"; fails=$((fails + 1))
	fi
}
cd "$W/ws" || exit 1
check "workspace writable"            0 "echo x > $W/ws/new && rm $W/ws/new"
check "outside grant invisible"       1 "test -e $W/out/file"
check "outside read-only (/usr)"      1 "touch /usr/sandy-view-probe && rm /usr/sandy-view-probe"
check "denied subtree unreadable"     1 "cat $W/ws/a/b/secret/key"
check "rename ancestor of deny"       1 "mv $W/ws/a $W/ws/a2 && mv $W/ws/a2 $W/ws/a"
check "rename parent of deny"         1 "mv $W/ws/a/b $W/ws/a/b2 && mv $W/ws/a/b2 $W/ws/a/b"
check "deny_write_exact not writable" 1 "echo y >> $W/ws/c/settings.json"
check "deny_write_exact not renamed"  1 "mv $W/ws/c/settings.json $W/ws/c/s && mv $W/ws/c/s $W/ws/c/settings.json"
check "adjacent of deny_write_exact"  0 "echo y > $W/ws/c/other"
check "exec grant runs"               0 "$W/tools/t"
check "workspace is noexec"           1 "cp /usr/bin/true $W/ws/t2; $W/ws/t2"
check "/bin symlink into the view"    0 "test -x /bin/sh"
check "no /proc unless granted"       1 "test -e /proc/self/status"
[ $fails = 0 ] && echo "all view checks passed" || echo "$fails view checks failed"
exit $fails

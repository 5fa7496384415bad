/* The bubblewrap guard's own mount namespace (docs/bwrap-guard.md): the
 * whole tree bubblewrap starts from, built by descriptor, so that bwrap
 * binds it as it stands ("--bind / /") and looks up no path a confined
 * command could re-point.
 *
 * Order, and why:
 *  1. Before any change: whether the workspace's host mount is read-only
 *     (it then stays so, as under the sandy backend, instead of failing).
 *  2. user + mount namespaces of the guard's own, identity maps, private
 *     propagation: nothing the host mounts later reaches bwrap, and the
 *     changes below stay here.
 *  3. Every mount read-only, nosuid and nodev, recursively, in one call on
 *     "/" (bwrap then finds nothing to remount by path); /proc writable
 *     again at its top (bwrap writes its user namespace's maps there);
 *     /dev allowed devices at its top (bwrap binds /dev/null and the
 *     other nodes from it; they stay writable as devices, their inodes do
 *     not). bwrap's namespaces are children of this one, so these flags
 *     reach it locked.
 *  4. With a workspace: its directory, opened without following any
 *     symlink and checked to be the object confine saw, is cloned with
 *     every mount beneath it (read-only already) and the clone's top made
 *     writable; a private tmpfs goes on /tmp (the seam's temp area; bwrap
 *     adds /dev/shm itself); the clone is attached over the directory, or,
 *     for a workspace in /tmp, at the same path inside the private tmpfs.
 *     Then each protected directory beneath it (the launcher copies) is
 *     made read-only, the directories above it bound onto themselves so
 *     they cannot be renamed from inside; all walked by descriptor.
 * A failure from 2 on is an enforcement failure: nothing runs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "../launcher/guard.h"
#include "../core/resolve.h"
#include "linux.h"
#include "sys.h"
#include "../core/paths.h"
#include "../core/stat.h"

#define LOCKED_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

static int fail(sandy_error *err, const char *step, int e)
{
	return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
			  "guard: %s failed (errno %d)", step, e);
}

static int set_attr(int dfd, const char *path, unsigned int flags,
		    unsigned long long set, unsigned long long clr)
{
	struct mount_attr ma = {.attr_set = set, .attr_clr = clr};

	return sys_mount_setattr(dfd, path, flags, &ma, sizeof(ma));
}

static int open_no_symlinks(int dfd, const char *path, int flags)
{
	return sandy_open_how(dfd, path,
			      (unsigned long long)(O_PATH | O_CLOEXEC | flags),
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/* A clone of the mount tree at fd (recursive), attributes changed, then
 * attached over fd's own place; the clone's descriptor, or -1. */
static int cover(int fd, unsigned long long set, unsigned long long clr)
{
	int tree = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
					     AT_RECURSIVE | AT_EMPTY_PATH);

	if (tree < 0)
		return -1;
	if (set != 0 &&
	    set_attr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, set, 0) != 0)
		goto fail;
	if (clr != 0 && set_attr(tree, "", AT_EMPTY_PATH, 0, clr) != 0)
		goto fail;
	if (sys_move_mount(tree, "", fd, "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
		goto fail;
	return tree;
fail:
	close(tree);
	return -1;
}

/* Whether path is a mount's root: changing "its" attributes otherwise
 * changes the mount around it ("/"). */
static bool mount_root(const char *path)
{
	struct statx stx;

	return sys_statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW,
			 STATX_BASIC_STATS, &stx) == 0 &&
	       (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* A container's /dev often holds /dev/null and the other nodes as mounts
 * of their own: devices allowed on each (one whose nodev came in locked
 * stays so, which is stricter; /dev/shm and the like are not nodes). */
static void devices_bound_in_dev(void)
{
	DIR *d = opendir("/dev");
	struct dirent *e;
	struct stat st;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (sandy_stat(dirfd(d), e->d_name, AT_SYMLINK_NOFOLLOW, &st) == 0 &&
		    (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			set_attr(dirfd(d), e->d_name, AT_SYMLINK_NOFOLLOW, 0,
				 MOUNT_ATTR_NODEV);
	closedir(d);
}

/* Step 3. /proc keeps its kernel switches as they are here: covering any
 * part of it would make it "not fully visible", and the kernel then
 * refuses bwrap a fresh procfs. bwrap binds them read-only itself, by
 * paths no confined command can re-point (/proc is no one's workspace). */
static int everything_read_only(sandy_error *err)
{
	if (!mount_root("/proc") || !mount_root("/dev"))
		return fail(err, "finding the /proc and /dev mounts", ENOENT);
	if (set_attr(AT_FDCWD, "/", AT_RECURSIVE, LOCKED_ATTRS, 0) != 0)
		return fail(err, "read-only mounts", errno);
	if (set_attr(AT_FDCWD, "/proc", AT_SYMLINK_NOFOLLOW, 0,
		     MOUNT_ATTR_RDONLY) != 0)
		return fail(err, "writable /proc", errno);
	if (set_attr(AT_FDCWD, "/dev", AT_SYMLINK_NOFOLLOW, 0,
		     MOUNT_ATTR_NODEV) != 0)
		return fail(err, "devices in /dev", errno);
	devices_bound_in_dev();
	return 0;
}

/* The workspace directory as confine saw it (dev:ino), or -1. */
static int open_root(const char *root, const char *root_id, sandy_error *err)
{
	struct stat st;
	char seen[48];
	int fd = open_no_symlinks(AT_FDCWD, root, O_DIRECTORY);

	if (fd >= 0 && sandy_stat(fd, NULL, 0, &st) == 0) {
		snprintf(seen, sizeof(seen), "%" PRIu64 ":%" PRIu64,
			 (uint64_t)st.st_dev, (uint64_t)st.st_ino);
		if (strcmp(seen, root_id) == 0)
			return fd;
	}
	if (fd >= 0)
		close(fd);
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			  "the workspace root changed since confine");
}

/* Where the workspace clone goes: over its own directory, or for one in
 * /tmp at the same path inside the private tmpfs (tmp: its descriptor). */
static int place_of(int dir, int tmp, const char *root)
{
	const char *in_tmp = root + strlen("/tmp");

	if (!sandy_path_within("/tmp", root))
		return dup(dir);
	if (sandy_make_mountpoint(tmp, in_tmp, true) != 0)
		return -1;
	return open_no_symlinks(tmp, in_tmp + 1, O_DIRECTORY);
}

/* One protected directory at or beneath the workspace (attached at ws):
 * the directories strictly between bound onto themselves, dir itself a
 * read-only clone; walked from ws one component at a time without
 * following symlinks, each step inside the mount just attached. A missing
 * one has nothing to protect. */
static int protect_one(int ws, const char *root, const char *dir,
		       sandy_error *err)
{
	char rest[SANDY_PATH_MAX_BYTES + 1];
	size_t start = strcmp(root, "/") == 0 ? 0 : strlen(root);
	int at = dup(ws), rc = 0;
	char *c, *next;

	if (at < 0 || strlen(dir + start) > SANDY_PATH_MAX_BYTES)
		return fail(err, "protecting a launcher copy", errno);
	snprintf(rest, sizeof(rest), "%s", dir + start + 1);
	for (c = rest; rc == 0 && c != NULL; c = next) {
		int fd, tree;

		next = strchr(c, '/');
		if (next != NULL)
			*next++ = '\0';
		fd = open_no_symlinks(at, c, O_DIRECTORY);
		if (fd < 0) {
			rc = errno == ENOENT ? 1 : -1;
			break;
		}
		tree = cover(fd, next == NULL ? MOUNT_ATTR_RDONLY : 0, 0);
		close(fd);
		if (tree < 0) {
			rc = -1;
			break;
		}
		close(at);
		at = tree;
	}
	close(at);
	return rc < 0 ? fail(err, "protecting a launcher copy", errno) : 0;
}

/* Step 4. */
static int workspace(const char *root, const char *root_id, bool host_ro,
		     const char *const *protect, size_t n_protect,
		     sandy_error *err)
{
	bool keep_ro = host_ro;
	int dir, tree = -1, tmp = -1, place = -1, rc = -1;

	if (sandy_path_within("/dev", root) || sandy_path_within("/proc", root) ||
	    strcmp(root, "/tmp") == 0)
		return sandy_fail(err, SANDY_ERR_INVALID_POLICY,
				  "bubblewrap's own /dev, /proc and /tmp would "
				  "hide this workspace");
	for (size_t i = 0; i < n_protect; i++)
		keep_ro |= strcmp(protect[i], root) == 0;
	dir = open_root(root, root_id, err);
	if (dir < 0)
		return -1;
	tree = sys_open_tree(dir, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
					  AT_RECURSIVE | AT_EMPTY_PATH);
	if (tree < 0) {
		fail(err, "cloning the workspace", errno);
		goto done;
	}
	if (!keep_ro &&
	    set_attr(tree, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_RDONLY) != 0) {
		fail(err, "a writable workspace", errno);
		goto done;
	}
	tmp = sandy_new_tmpfs("1777", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (tmp < 0 || sys_move_mount(tmp, "", AT_FDCWD, "/tmp",
				  MOVE_MOUNT_F_EMPTY_PATH) != 0) {
		fail(err, "the private /tmp", errno);
		goto done;
	}
	place = place_of(dir, tmp, root);
	if (place < 0 || sys_move_mount(tree, "", place, "",
				    MOVE_MOUNT_F_EMPTY_PATH |
					    MOVE_MOUNT_T_EMPTY_PATH) != 0) {
		fail(err, "attaching the workspace", errno);
		goto done;
	}
	rc = 0;
	for (size_t i = 0; rc == 0 && i < n_protect; i++)
		if (strcmp(protect[i], root) != 0 &&
		    sandy_path_within(root, protect[i]))
			rc = protect_one(tree, root, protect[i], err);
done:
	for (size_t k = 0; k < 4; k++) {
		int fd = (int[]){dir, tree, tmp, place}[k];

		if (fd >= 0)
			close(fd);
	}
	return rc;
}

int sandy_guard_enter(const char *root, const char *root_id,
		      const char *const *protect, size_t n_protect,
		      sandy_error *err)
{
	struct statvfs vfs;
	bool host_ro = root != NULL && statvfs(root, &vfs) == 0 &&
		       (vfs.f_flag & ST_RDONLY);

	if (sandy_namespaces_enter_mounts(err) != 0 ||
	    everything_read_only(err) != 0)
		return -1;
	return root == NULL ? 0
			    : workspace(root, root_id, host_ro, protect,
					n_protect, err);
}

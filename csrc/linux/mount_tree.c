/* The mount-tree operations both descriptor-built views are made of: the
 * sandy backend's (mount_view.c) and the bubblewrap guard's
 * (guard_view.c); the probe makes its trial procfs with them too. Each
 * view keeps its own plan and order; what is done to one mount is written
 * here once, so that a flag, a mode or a lookup rule cannot differ
 * between the two.
 *
 * The rules each operation keeps:
 * - By descriptor: a tree is cloned from, changed through and attached
 *   over a descriptor its caller opened and checked; where a caller names
 *   a path instead, it is beneath a descriptor the caller holds, or one of
 *   its fixed mounts ("/", "/tmp", "/proc", "/dev"). Opening a place
 *   follows no symlink, magic links included.
 * - Changed while detached: a clone's attributes are set before it is
 *   attached, and a new file system gets its attributes at fsmount (the
 *   deny objects, written first, are locked before they are returned), so
 *   nothing made here is attached with fewer attributes than its caller
 *   asked for.
 * - Attributes only as the caller names them: propagation is the
 *   namespaces' (namespaces.c made every mount private before either view
 *   is built), and nothing here changes it or maps a mount's ids.
 * - Each returns -1 with errno when a call fails, a descriptor it made
 *   closed and errno kept; the caller names the step in its own error and
 *   fails closed. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "linux.h"
#include "../core/sys.h"
#include "../core/paths.h"

/* fd closed (none when -1) with errno as the failure before it left it;
 * rc, passed through. */
static int closing(int fd, int rc)
{
	int e = errno;

	if (fd >= 0)
		close(fd);
	errno = e;
	return rc;
}

const char *sandy_tree_rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

int sandy_open_no_symlinks(int dfd, const char *path, int flags)
{
	return sandy_open_how(dfd, path,
			      (unsigned long long)(O_PATH | O_CLOEXEC | flags),
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

int sandy_tree_clone(int fd)
{
	return sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
					     AT_RECURSIVE | AT_EMPTY_PATH);
}

int sandy_mount_attr(int dfd, const char *path, unsigned int flags,
		     unsigned long long set, unsigned long long clr)
{
	struct mount_attr ma = {.attr_set = set, .attr_clr = clr};

	return sys_mount_setattr(dfd, path, flags, &ma, sizeof(ma));
}

int sandy_tree_attach(int tree, int target)
{
	return sys_move_mount(tree, "", target, "",
			      MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

int sandy_tree_attach_at(int tree, int dfd, const char *path)
{
	return sys_move_mount(tree, "", dfd, path, MOVE_MOUNT_F_EMPTY_PATH);
}

int sandy_tree_cover(int fd, unsigned long long set, sandy_tree_step *failed)
{
	sandy_tree_step step = SANDY_TREE_CLONE;
	int tree = sandy_tree_clone(fd);

	if (tree < 0)
		goto fail;
	step = SANDY_TREE_ATTR;
	if (set != 0 && sandy_mount_attr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE,
					 set, 0) != 0)
		goto fail;
	step = SANDY_TREE_ATTACH;
	if (sandy_tree_attach(tree, fd) != 0)
		goto fail;
	return tree;
fail:
	if (failed != NULL)
		*failed = step;
	return closing(tree, -1);
}

/* size NULL: the kernel's default (half of RAM), for temp areas. */
int sandy_new_tmpfs(const char *mode, const char *size, unsigned int attr)
{
	int fs = sys_fsopen("tmpfs", FSOPEN_CLOEXEC);
	int mnt = -1;

	if (fs < 0)
		return -1;
	if (sys_fsconfig(fs, FSCONFIG_SET_STRING, "mode", mode, 0) == 0 &&
	    (size == NULL ||
	     sys_fsconfig(fs, FSCONFIG_SET_STRING, "size", size, 0) == 0) &&
	    sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		mnt = sys_fsmount(fs, FSMOUNT_CLOEXEC, attr);
	return closing(fs, mnt);
}

int sandy_new_temp_area(void)
{
	return sandy_new_tmpfs("1777", NULL,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
}

/* The atime rule of the host's /proc, which a new procfs of a user
 * namespace must repeat (the kernel refuses one less restricted than the
 * mount it copies in view). */
static unsigned int atime_attr(unsigned long f_flag)
{
	unsigned int a = f_flag & ST_NOATIME    ? MOUNT_ATTR_NOATIME
			 : f_flag & ST_RELATIME ? MOUNT_ATTR_RELATIME
						: MOUNT_ATTR_STRICTATIME;

	return a | (f_flag & ST_NODIRATIME ? MOUNT_ATTR_NODIRATIME : 0);
}

int sandy_new_proc(int host_proc)
{
	struct statvfs sv;
	int fs, mnt = -1;

	if (fstatvfs(host_proc, &sv) != 0)
		return -1;
	fs = sys_fsopen("proc", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -1;
	if (sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		mnt = sys_fsmount(fs, FSMOUNT_CLOEXEC,
				  MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					  MOUNT_ATTR_NOEXEC |
					  atime_attr(sv.f_flag));
	return closing(fs, mnt);
}

int sandy_make_mountpoint(int root, const char *path, bool is_dir)
{
	char buf[SANDY_PATH_MAX_BYTES + 1];
	size_t len = strlen(path);
	int fd;

	if (len > SANDY_PATH_MAX_BYTES) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, sandy_tree_rel(path), strlen(sandy_tree_rel(path)) + 1);
	for (char *s = strchr(buf, '/'); s != NULL; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdirat(root, buf, 0755) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (is_dir)
		return mkdirat(root, buf, 0755) != 0 && errno != EEXIST ? -1
									 : 0;
	fd = openat(root, buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int sandy_stage(int tree)
{
	return sandy_tree_attach_at(tree, AT_FDCWD, "/");
}

int sandy_unstage(int tree)
{
	char self[32];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", tree);
	return umount2(self, MNT_DETACH);
}

static int new_deny_objects(void)
{
	int fs = sandy_new_tmpfs("0555", "1m", 0), fd;

	if (fs < 0)
		return -1;
	if (mkdirat(fs, "d", 0) != 0 ||
	    (fd = openat(fs, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0)) < 0)
		goto fail;
	close(fd);
	if (sandy_mount_attr(fs, "", AT_EMPTY_PATH,
			     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				     MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
			     0) != 0)
		goto fail;
	return fs;
fail:
	return closing(fs, -1);
}

int sandy_deny_objects(const bool *is_dir, size_t n, int *trees)
{
	int objs = new_deny_objects(), saved;
	size_t made = 0;

	if (objs < 0)
		return -1;
	if (sandy_stage(objs) != 0)
		return closing(objs, -1);
	for (; made < n; made++) {
		trees[made] = sys_open_tree(objs, is_dir[made] ? "d" : "f",
					    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (trees[made] < 0)
			break;
	}
	if (sandy_unstage(objs) == 0 && made == n)
		return closing(objs, 0);
	saved = errno;
	while (made > 0)
		close(trees[--made]);
	close(objs);
	errno = saved;
	return -1;
}

int sandy_mount_root(int dfd, const char *path, int flags)
{
	struct statx stx;

	if (sys_statx(dfd, path, AT_SYMLINK_NOFOLLOW | flags,
		      STATX_BASIC_STATS, &stx) != 0)
		return -1;
	return (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

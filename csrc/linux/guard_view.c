/* The bubblewrap guard's own mount namespace (docs/bwrap-guard.md): what
 * bwrap starts from, made read-only by descriptor before bwrap looks up a
 * single path.
 *
 * Order, and why:
 *  1. user + mount namespaces of the guard's own, identity maps, private
 *     propagation: nothing the host mounts later reaches bwrap, and the
 *     changes below stay here.
 *  2. Every mount read-only, recursively, in one call on "/"; then /proc
 *     and /dev (their top mounts only) writable again: bwrap writes its
 *     user namespace's maps through /proc, and binds /dev/null and the
 *     other device nodes from /dev. bwrap's namespaces are children of
 *     this one, so the read-only flags reach it locked: no remount inside
 *     can clear them, however its path lookups are raced.
 *  3. With a workspace: its directory, opened without following any
 *     symlink and checked to be the object confine saw, cloned with every
 *     mount beneath it (read-only already), the clone's top made writable
 *     and attached over the directory; its descriptor goes to
 *     SANDY_GUARD_ROOT_FD for bwrap's --bind-fd. Mounts beneath the
 *     workspace are thus read-only inside unless the workspace itself is
 *     that mount.
 * A failure after step 1 is an enforcement failure: nothing runs. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../guard.h"
#include "linux.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static int fail(sandy_error *err, const char *step, int e)
{
	return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
			  "guard: %s failed (errno %d)", step, e);
}

static int set_attr(int dfd, const char *path, unsigned int flags,
		    unsigned long long set, unsigned long long clr)
{
	struct mount_attr ma = {.attr_set = set, .attr_clr = clr};

	return mount_setattr(dfd, path, flags, &ma, sizeof(ma));
}

/* Step 2. */
static int everything_read_only(sandy_error *err)
{
	if (set_attr(AT_FDCWD, "/", AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0) != 0)
		return fail(err, "read-only mounts", errno);
	if (set_attr(AT_FDCWD, "/proc", AT_SYMLINK_NOFOLLOW, 0,
		     MOUNT_ATTR_RDONLY) != 0)
		return fail(err, "writable /proc", errno);
	if (set_attr(AT_FDCWD, "/dev", AT_SYMLINK_NOFOLLOW, 0,
		     MOUNT_ATTR_RDONLY) != 0)
		return fail(err, "writable /dev", errno);
	return 0;
}

/* The workspace directory as confine saw it (dev:ino), or -1. */
static int open_root(const char *root, const char *root_id, sandy_error *err)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	char seen[48];
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, root, &how, sizeof(how));

	if (fd >= 0 && fstat(fd, &st) == 0) {
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

/* Step 3. */
static int writable_root(const char *root, const char *root_id,
			 sandy_error *err)
{
	int dir, tree, rc = 0;

	if (fcntl(SANDY_GUARD_ROOT_FD, F_GETFD) >= 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the workspace root's descriptor slot is "
				  "taken");
	dir = open_root(root, root_id, err);
	if (dir < 0)
		return -1;
	tree = open_tree(dir, "", OPEN_TREE_CLONE | AT_RECURSIVE |
					  AT_EMPTY_PATH);
	if (tree < 0)
		rc = fail(err, "cloning the workspace", errno);
	else if (set_attr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE,
			  MOUNT_ATTR_RDONLY, 0) != 0 ||
		 set_attr(tree, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_RDONLY) != 0)
		rc = fail(err, "a writable workspace", errno);
	else if (move_mount(tree, "", dir, "",
			    MOVE_MOUNT_F_EMPTY_PATH |
				    MOVE_MOUNT_T_EMPTY_PATH) != 0)
		rc = fail(err, "attaching the workspace", errno);
	else if (dup2(tree, SANDY_GUARD_ROOT_FD) != SANDY_GUARD_ROOT_FD)
		rc = fail(err, "the workspace descriptor", errno);
	if (tree >= 0)
		close(tree);
	close(dir);
	return rc;
}

int sandy_guard_enter(const char *root, const char *root_id, sandy_error *err)
{
	if (sandy_namespaces_enter_mounts(err) != 0 ||
	    everything_read_only(err) != 0)
		return -1;
	return root == NULL ? 0 : writable_root(root, root_id, err);
}

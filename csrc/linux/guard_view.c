/* The bubblewrap guard's own mount namespace (docs/bwrap-guard.md): the
 * whole tree bubblewrap starts from, built by descriptor, so that bwrap
 * binds it as it stands ("--bind / /") and looks up no path a confined
 * command could re-point.
 *
 * Order, and why:
 *  1. Before any change: whether each writable root's host mount is
 *     read-only (it then stays so, as under the sandy backend, instead of
 *     failing).
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
 *  4. With a workspace: each writable root (the workspace, then the
 *     operator's), opened without following any symlink and checked to be
 *     the object confine saw, is cloned with every mount beneath it
 *     (read-only already) and the clone's top made writable; a private
 *     tmpfs goes on /tmp (the seam's temp area; bwrap adds /dev/shm
 *     itself), after the clones, so that a root in /tmp is still the
 *     host's when cloned; each clone is attached, outer roots before inner
 *     ones, over its directory as it stands by then (opened and checked
 *     again), or, for a root in /tmp, at the same path inside the private
 *     tmpfs. Then each protected path beneath a root (the launcher
 *     copies' directories, the protected writes) is made read-only in
 *     the innermost root holding it, the
 *     directories above it bound onto themselves so they cannot be
 *     renamed from inside, as are those above each protected read inside
 *     a root; all walked by descriptor.
 *  5. Each protected read (--deny-read), opened without following any
 *     symlink and checked to be the object confine saw, is covered by an
 *     empty read-only object of its kind (mount_tree.c's deny objects).
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

#include "guard.h"
#include "../core/copy_dirs.h"
#include "../core/resolve.h"
#include "linux.h"
#include "../core/sys.h"
#include "../core/paths.h"
#include "../core/stat.h"

#define LOCKED_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

static int fail(sandy_error *err, const char *step, int e)
{
	return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
			  "guard: %s failed (errno %d)", step, e);
}

/* Whether path (at dfd) is a mount's root: changing "its" attributes
 * otherwise changes the mount around it ("/"), and a directory that is one
 * cannot be renamed already. */
static bool mount_root_at(int dfd, const char *path, int flags)
{
	return sandy_mount_root(dfd, path, flags) == 1;
}

static bool mount_root(const char *path)
{
	return mount_root_at(AT_FDCWD, path, 0);
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
			sandy_mount_attr(dirfd(d), e->d_name,
					 AT_SYMLINK_NOFOLLOW, 0,
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
	if (sandy_mount_attr(AT_FDCWD, "/", AT_RECURSIVE, LOCKED_ATTRS, 0) != 0)
		return fail(err, "read-only mounts", errno);
	if (sandy_mount_attr(AT_FDCWD, "/proc", AT_SYMLINK_NOFOLLOW, 0,
			     MOUNT_ATTR_RDONLY) != 0)
		return fail(err, "writable /proc", errno);
	if (sandy_mount_attr(AT_FDCWD, "/dev", AT_SYMLINK_NOFOLLOW, 0,
			     MOUNT_ATTR_NODEV) != 0)
		return fail(err, "devices in /dev", errno);
	devices_bound_in_dev();
	return 0;
}

/* The object confine saw at r->path (r->id, "dev:ino"), opened now
 * without following any symlink (flags: O_DIRECTORY or 0), its stat in
 * *st; -1 with errno when it cannot be opened, or with ESTALE when it is
 * another. */
static int open_as_seen(const sandy_writable_root *r, int flags,
			struct stat *st)
{
	char seen[48];
	int fd = sandy_open_no_symlinks(AT_FDCWD, r->path, flags);

	if (fd >= 0 && sandy_stat(fd, NULL, 0, st) == 0) {
		snprintf(seen, sizeof(seen), "%" PRIu64 ":%" PRIu64,
			 (uint64_t)st->st_dev, (uint64_t)st->st_ino);
		if (strcmp(seen, r->id) == 0)
			return fd;
		errno = ESTALE;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A writable root as confine saw it, opened now, or -1. */
static int open_root(const sandy_writable_root *r, sandy_error *err)
{
	struct stat st;
	int fd = open_as_seen(r, O_DIRECTORY, &st);

	return fd >= 0 ? fd
		       : sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				    "a writable root changed since confine");
}

/* The clone of a root with every mount beneath it, its top writable
 * unless keep_ro, detached; its descriptor, or -1. */
static int clone_root(const sandy_writable_root *r, bool keep_ro,
		      sandy_error *err)
{
	int dir = open_root(r, err), tree;

	if (dir < 0)
		return -1;
	tree = sandy_tree_clone(dir);
	close(dir);
	if (tree < 0)
		return fail(err, "cloning a writable root", errno);
	if (!keep_ro && sandy_mount_attr(tree, "", AT_EMPTY_PATH, 0,
					 MOUNT_ATTR_RDONLY) != 0) {
		close(tree);
		return fail(err, "a writable root", errno);
	}
	return tree;
}

/* Where a root's clone goes: over its directory as it stands now (an
 * outer root's clone may be in place by then), or for one in /tmp at the
 * same path inside the private tmpfs (tmp: its descriptor); -1 if none. */
static int place_of(const sandy_writable_root *r, int tmp, sandy_error *err)
{
	const char *in_tmp = r->path + strlen("/tmp");
	int fd;

	if (!sandy_path_within("/tmp", r->path))
		return open_root(r, err);
	fd = sandy_make_mountpoint(tmp, in_tmp, true) == 0
		     ? sandy_open_no_symlinks(tmp, in_tmp + 1, O_DIRECTORY)
		     : -1;
	return fd >= 0 ? fd : fail(err, "attaching a writable root", errno);
}

/* One protected directory or file beneath a writable root (attached at
 * ws): the directories strictly between bound onto themselves, so none
 * can be renamed from inside, and dir itself a read-only clone (with
 * last_ro; a protected read's place is left to deny_reads, which covers
 * it); walked from ws one component at a time without following
 * symlinks, each step inside the mount just attached. A missing one has
 * nothing to protect. */
static int protect_one(int ws, const char *root, const char *dir,
		       bool last_ro, sandy_error *err)
{
	char rest[SANDY_PATH_MAX_BYTES + 1];
	size_t start = strcmp(root, "/") == 0 ? 0 : strlen(root);
	int at = dup(ws), rc = 0;
	char *c, *next;

	if (at < 0 || strlen(dir + start) > SANDY_PATH_MAX_BYTES)
		return fail(err, "protecting a path beneath a writable root", errno);
	snprintf(rest, sizeof(rest), "%s", dir + start + 1);
	for (c = rest; rc == 0 && c != NULL; c = next) {
		int fd, tree;

		next = strchr(c, '/');
		if (next != NULL)
			*next++ = '\0';
		if (next == NULL && !last_ro)
			break;
		fd = sandy_open_no_symlinks(at, c,
					    next == NULL ? 0 : O_DIRECTORY);
		if (fd < 0) {
			rc = errno == ENOENT ? 1 : -1;
			break;
		}
		/* a directory on the way that is a mount's root already (bound
		 * for an earlier path) cannot be renamed: cloning it again with
		 * everything beneath would multiply the mounts */
		if (next != NULL && mount_root_at(fd, "", AT_EMPTY_PATH)) {
			close(at);
			at = fd;
			continue;
		}
		tree = sandy_tree_cover(fd, next == NULL ? MOUNT_ATTR_RDONLY : 0,
					NULL);
		close(fd);
		if (tree < 0) {
			rc = -1;
			break;
		}
		close(at);
		at = tree;
	}
	close(at);
	return rc < 0 ? fail(err, "protecting a path beneath a writable root", errno) : 0;
}

/* bubblewrap's own /dev, /proc and /tmp would hide such a root. */
static bool hidden_by_bwrap(const char *root)
{
	return sandy_path_within("/dev", root) ||
	       sandy_path_within("/proc", root) || strcmp(root, "/tmp") == 0;
}

/* The roots' indices, outer before inner: a root that holds another has
 * the shorter path. */
static void outer_first(const sandy_writable_root *roots, size_t n,
			size_t order[])
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		for (; j > 0 && strlen(roots[order[j - 1]].path) >
					strlen(roots[i].path);
		     j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* The innermost (or outermost) root strictly above dir, or n. */
static size_t root_above(const sandy_writable_root *roots, size_t n,
			 const char *dir, bool outer)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++)
		if (strcmp(roots[i].path, dir) != 0 &&
		    sandy_path_within(roots[i].path, dir) &&
		    (best == n ||
		     (strlen(roots[i].path) < strlen(roots[best].path)) ==
			     outer))
			best = i;
	return best;
}

static size_t holder(const sandy_writable_root *roots, size_t n,
		     const char *dir)
{
	return root_above(roots, n, dir, false);
}

/* Step 4. keep_ro[i]: root i stays read-only (step 1); the directories
 * above each protected read inside a root bound onto themselves, as
 * above each launcher copy, and each watched name's directory and those
 * above it (anchors: their dir/name paths). */
static int writable_roots(const sandy_writable_root *roots, size_t n,
			  const bool *keep_ro, const char *const *protect,
			  size_t n_protect, const sandy_writable_root *reads,
			  size_t n_reads, const char *const *anchors,
			  size_t n_anchors, sandy_error *err)
{
	int trees[SANDY_GUARD_ROOTS_MAX], tmp = -1, rc = -1;
	size_t order[SANDY_GUARD_ROOTS_MAX], done = 0;

	for (size_t i = 0; i < n; i++)
		if (hidden_by_bwrap(roots[i].path))
			return sandy_fail(err, SANDY_ERR_INVALID_POLICY,
					  "bubblewrap's own /dev, /proc and "
					  "/tmp would hide a writable root");
	outer_first(roots, n, order);
	for (; done < n; done++) {
		bool ro = keep_ro[done];

		for (size_t k = 0; k < n_protect; k++)
			ro |= strcmp(protect[k], roots[done].path) == 0;
		if ((trees[done] = clone_root(&roots[done], ro, err)) < 0)
			goto out;
	}
	tmp = sandy_new_temp_area();
	if (tmp < 0 || sandy_tree_attach_at(tmp, AT_FDCWD, "/tmp") != 0) {
		fail(err, "the private /tmp", errno);
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		int place = place_of(&roots[i], tmp, err);

		if (place < 0)
			goto out;
		if (sandy_tree_attach(trees[i], place) != 0) {
			fail(err, "attaching a writable root", errno);
			close(place);
			goto out;
		}
		close(place);
	}
	rc = 0;
	for (size_t k = 0; rc == 0 && k < n_protect; k++) {
		size_t i = holder(roots, n, protect[k]);

		if (i < n)
			rc = protect_one(trees[i], roots[i].path, protect[k],
					 true, err);
	}
	for (size_t k = 0; rc == 0 && k < n_reads; k++) {
		size_t i = holder(roots, n, reads[k].path);

		if (i < n)
			rc = protect_one(trees[i], roots[i].path, reads[k].path,
					 false, err);
	}
	for (size_t k = 0; rc == 0 && k < n_anchors; k++) {
		size_t i = holder(roots, n, anchors[k]);

		if (i < n)
			rc = protect_one(trees[i], roots[i].path, anchors[k],
					 false, err);
	}
out:
	for (size_t i = 0; i < done; i++)
		close(trees[i]);
	if (tmp >= 0)
		close(tmp);
	return rc;
}

/* Whether protected read i lies beneath another one (a directory): that
 * one's cover hides it already, and a cover of its own would only show,
 * in the command's mountinfo, that it exists. */
static bool beneath_other_read(const sandy_guard_args *g, size_t i)
{
	for (size_t j = 0; j < g->n_deny_reads; j++)
		if (j != i &&
		    strcmp(g->deny_reads[j].path, g->deny_reads[i].path) != 0 &&
		    sandy_path_within(g->deny_reads[j].path,
				      g->deny_reads[i].path))
			return true;
	return false;
}

/* Step 5. Each protected read as confine saw it, covered by an empty
 * read-only object of its kind, so nothing beneath bubblewrap reads it or
 * connects to it; last, so that one inside a writable root covers what
 * its clone shows. Those the guard's uid cannot reach were dropped before
 * the namespace (sandy_guard_reached_reads); one the private /tmp hides
 * (or that is gone since) needs none, nor one beneath another; one
 * replaced fails closed. All are opened first, then their covers made in
 * one go (mount_tree.c stages the objects they are cloned from), then
 * each attached. */
static int deny_reads(const sandy_guard_args *g, sandy_error *err)
{
	int fds[SANDY_DENY_READS_MAX], covers[SANDY_DENY_READS_MAX];
	bool is_dir[SANDY_DENY_READS_MAX];
	size_t n = 0;
	bool made;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < g->n_deny_reads; i++) {
		struct stat st;
		int fd;

		if (beneath_other_read(g, i))
			continue;
		fd = open_as_seen(&g->deny_reads[i], 0, &st);
		if (fd >= 0) {
			is_dir[n] = S_ISDIR(st.st_mode);
			fds[n++] = fd;
		} else if (errno != ENOENT) {
			rc = sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					"deny_reads[%zu] changed since confine",
					i);
		}
	}
	made = rc == 0 && n > 0;
	if (made && sandy_deny_objects(is_dir, n, covers) != 0) {
		rc = fail(err, "the deny objects", errno);
		made = false;
	}
	for (size_t k = 0; k < n; k++) {
		if (made && rc == 0 && sandy_tree_attach(covers[k], fds[k]) != 0)
			rc = fail(err, "covering a protected read", errno);
		if (made)
			close(covers[k]);
		close(fds[k]);
	}
	return rc;
}

int sandy_guard_hold(const sandy_guard_args *g, const char *const *protect,
		     size_t n_protect, sandy_watch *watch, sandy_error *err)
{
	static sandy_hold h[SANDY_GUARD_PROTECT_MAX + SANDY_COPY_DIRS_MAX +
			    SANDY_DENY_READS_MAX];
	static sandy_identity ids[SANDY_DENY_READS_MAX];
	static const sandy_identity unknown = {0};
	size_t n = 0;

	if (n_protect > SANDY_GUARD_PROTECT_MAX + SANDY_COPY_DIRS_MAX)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "too many protected paths");
	for (size_t k = 0; k < n_protect; k++) {
		size_t i = root_above(g->roots, g->n_roots, protect[k], true);

		if (i < g->n_roots)
			h[n++] = (sandy_hold){.root = g->roots[i].path,
					      .path = protect[k],
					      .writable = g->roots[i].path,
					      .expect = &unknown,
					      .section = "protect", .index = k};
	}
	for (size_t k = 0; k < g->n_deny_reads; k++) {
		const char *path = g->deny_reads[k].path;
		size_t i = root_above(g->roots, g->n_roots, path, true);
		/* the private /tmp (a workspace: g's roots) hides the host's,
		 * but for a root inside it, attached inside the tmpfs */
		bool in_tmp = g->n_roots > 0 && sandy_path_within("/tmp", path);

		if (beneath_other_read(g, k) || strcmp(path, "/") == 0 ||
		    (in_tmp && i == g->n_roots))
			continue;
		ids[k].known = sscanf(g->deny_reads[k].id, "%llu:%llu",
				      &ids[k].dev, &ids[k].ino) == 2;
		h[n++] = (sandy_hold){.root = in_tmp ? g->roots[i].path : "/",
				      .path = path,
				      .writable = i < g->n_roots
							  ? g->roots[i].path
							  : NULL,
				      .expect = &ids[k],
				      .section = "deny_reads", .index = k};
	}
	return sandy_watch_hold(watch, h, n, err);
}

/* Each protected path and read the tree now holds with a mount, for the
 * init to look at (copies: the words are wiped). */
static int note_mounted(const sandy_guard_args *g, const char *const *protect,
			size_t n_protect, sandy_mounted *out, size_t *n,
			sandy_error *err)
{
	*n = 0;
	for (size_t k = 0; k < n_protect + g->n_deny_reads; k++) {
		bool read = k >= n_protect;
		const char *path = read ? g->deny_reads[k - n_protect].path
					: protect[k];

		if (!mount_root(path))
			continue;
		out[*n] = (sandy_mounted){
			.path = strdup(path),
			.section = read ? "deny_reads" : "protect",
			.index = read ? k - n_protect : k};
		if (out[(*n)++].path == NULL)
			return fail(err, "noting the protected paths", ENOMEM);
	}
	return 0;
}

int sandy_guard_enter(const sandy_guard_args *g, const char *const *protect,
		      size_t n_protect, const sandy_watch *watch,
		      sandy_mounted *mounted, size_t *n_mounted,
		      sandy_error *err)
{
	struct statvfs vfs;
	bool host_ro[SANDY_GUARD_ROOTS_MAX];

	if (g->n_roots > SANDY_GUARD_ROOTS_MAX)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "too many writable roots");
	for (size_t i = 0; i < g->n_roots; i++)
		host_ro[i] = statvfs(g->roots[i].path, &vfs) == 0 &&
			     (vfs.f_flag & ST_RDONLY);
	if (sandy_namespaces_enter_mounts(err) != 0 ||
	    everything_read_only(err) != 0)
		return -1;
	if (g->n_roots > 0 &&
	    writable_roots(g->roots, g->n_roots, host_ro, protect, n_protect,
			   g->deny_reads, g->n_deny_reads,
			   (const char *const *)watch->paths, watch->n,
			   err) != 0)
		return -1;
	if (deny_reads(g, err) != 0)
		return -1;
	return note_mounted(g, protect, n_protect, mounted, n_mounted, err);
}

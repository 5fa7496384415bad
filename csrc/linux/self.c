/* The launcher's own file, and its user's other copies. Every confined
 * argv starts with a launcher, so no sandbox may let its command change
 * one for a later run (docs/launcher-copy.md).
 *
 * Protected: the directory holding the running executable (found through
 * /proc/self/exe; it must hold, under the same name, the very inode this
 * process runs from, pinned without following symlinks), and each copy
 * directory of the real uid (copy_dirs.h) that exists as a directory of
 * that uid, whoever made the argv (a root service may spawn it as
 * another uid, whose own copies must stay safe too).
 * - Full level: each joins the resolved policy as a deny_write_exact, so
 *   the view binds it read-only, contents and nested mounts included,
 *   wherever a writable grant shows it, and binds every directory between
 *   that grant's mount and it onto itself (rename() then fails with
 *   EBUSY).
 * - Landlock-only level: there is no view, and Landlock cannot stop a
 *   rename inside a writable grant, so neither such a directory nor any
 *   directory above it may be the root of a read_write grant, compared by
 *   device and inode, never by path.
 * - Every level: no read_write grant may hold the parent of any candidate
 *   copy directory of the uid, whether it exists now or not, whoever owns
 *   it: a command that can write there could make the directory, and its
 *   program in it, once the host removes it (docs/launcher-copy.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "../core/copy_dirs.h"
#include "../core/resolve.h"
#include "linux.h"
#include "../core/sys.h"
#include "../core/paths.h"
#include "../core/stat.h"

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Fills dir (canonical) and returns an O_PATH descriptor of it, or -1. */
static int self_dir(char dir[SANDY_PATH_MAX_BYTES + 1], sandy_error *err)
{
	struct stat exe, entry;
	ssize_t n = readlink("/proc/self/exe", dir, SANDY_PATH_MAX_BYTES + 1);
	char *slash;
	int fd;

	if (n <= 0 || n > SANDY_PATH_MAX_BYTES || dir[0] != '/')
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "self: the launcher cannot name its own file");
	dir[n] = '\0';
	if (sandy_stat(AT_FDCWD, "/proc/self/exe", 0, &exe) != 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "self: the launcher cannot stat its own file "
				  "(errno %d)",
				  errno);
	slash = strrchr(dir, '/');
	*slash = '\0';
	fd = sandy_open_how(AT_FDCWD, dir[0] ? dir : "/",
			    O_PATH | O_DIRECTORY | O_CLOEXEC,
			    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0 && errno == ENOSYS)
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "self: openat2 is missing (errno %d)", errno);
	if (fd < 0 || sandy_stat(fd, slash + 1, AT_SYMLINK_NOFOLLOW, &entry) != 0 ||
	    !same_inode(&exe, &entry)) {
		if (fd >= 0)
			close(fd);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "self: the launcher's file was moved or "
				  "replaced since it started");
	}
	if (!dir[0])
		strcpy(dir, "/");
	return fd;
}

static int add_deny(sandy_resolved *r, const char *dir, sandy_error *err)
{
	sandy_rdeny *more;

	for (size_t i = 0; i < r->n_deny_write_exact; i++)
		if (strcmp(r->deny_write_exact[i].canonical, dir) == 0)
			return 0;
	more = realloc(r->deny_write_exact,
		       (r->n_deny_write_exact + 1) * sizeof(*more));
	if (more == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "self: out of memory");
	r->deny_write_exact = more;
	more[r->n_deny_write_exact] = (sandy_rdeny){0}; /* nothing pinned */
	more[r->n_deny_write_exact].canonical = strdup(dir);
	if (more[r->n_deny_write_exact].canonical == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "self: out of memory");
	r->n_deny_write_exact++;
	return 0;
}

/* Cuts the absolute path p to its parent, in place ("/a/b" to "/a", "/a"
 * to "/", "/" stays); false when p has no slash. By name, not by "..":
 * the directory p names may not exist (yet). */
static bool to_parent(char *p)
{
	char *slash = strrchr(p, '/');

	if (slash == NULL)
		return false;
	if (slash == p)
		slash[1] = '\0';
	else
		*slash = '\0';
	return true;
}

/* dir's parent is owned by uid (which could loosen it with chmod, which
 * no layer governs, and so let another user swap dir). */
static bool parent_owned_by(const char *dir, uid_t uid, struct stat *parent)
{
	char p[SANDY_PATH_MAX_BYTES + 1];

	snprintf(p, sizeof(p), "%s", dir);
	if (!to_parent(p))
		return false;
	return sandy_stat(AT_FDCWD, p, 0, parent) == 0 && parent->st_uid == uid;
}

static bool is_writable_root(const sandy_resolved *r, const struct stat *st)
{
	struct stat g;

	for (size_t i = 0; i < r->n_grants; i++)
		if (r->grants[i].access == SANDY_ACCESS_READ_WRITE &&
		    sandy_stat(AT_FDCWD, r->grants[i].path, 0, &g) == 0 && same_inode(&g, st))
			return true;
	return false;
}

/* Walks ".." from fd (consumed) up to the root, asking hit of each
 * directory met: 1 when one answers true, 0 when none does, -1 when the
 * walk fails. */
static int walk_up(int fd, bool (*hit)(const struct stat *st, const void *arg),
		   const void *arg)
{
	struct stat st, up;

	for (;;) {
		int parent;

		if (sandy_stat(fd, NULL, 0, &st) != 0) {
			close(fd);
			return -1;
		}
		if (hit(&st, arg)) {
			close(fd);
			return 1;
		}
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		if (parent < 0 || sandy_stat(parent, NULL, 0, &up) != 0) {
			if (parent >= 0)
				close(parent);
			return -1;
		}
		if (same_inode(&st, &up)) {
			close(parent);
			return 0;
		}
		fd = parent;
	}
}

static bool writable_root_hit(const struct stat *st, const void *r)
{
	return is_writable_root(r, st);
}

/* A walk's answer (walk_up's) as a refusal: PreparationFailed with
 * unwalked when the walk failed, InvalidPolicy with met when it met what
 * it looked for. */
static int refuse_walk(int held, const char *unwalked, const char *met,
		       sandy_error *err)
{
	if (held < 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED, "%s",
				  unwalked);
	if (held > 0)
		return sandy_fail(err, SANDY_ERR_INVALID_POLICY, "%s", met);
	return 0;
}

/* From fd (consumed) up to the root: no directory may be a writable root. */
static int refuse_writable_ancestors(const sandy_resolved *r, int fd,
				     sandy_error *err)
{
	return refuse_walk(walk_up(fd, writable_root_hit, r),
			   "self: cannot walk above the launcher's directory",
			   "the policy lets the command write the launcher "
			   "itself",
			   err);
}

int sandy_refuse_writable_over(const char *grant, const char *dir, uid_t uid,
			       sandy_error *err)
{
	char p[SANDY_PATH_MAX_BYTES + 1];
	struct stat g, st, parent;
	size_t len = strlen(dir);

	if (sandy_stat(AT_FDCWD, grant, 0, &g) != 0 || len > SANDY_PATH_MAX_BYTES)
		return 0; /* nothing writable there to check */
	memcpy(p, dir, len + 1);
	for (char *slash = p + len;; slash = strrchr(p, '/')) {
		bool at_dir = slash == p + len;

		*slash = '\0';
		if (sandy_stat(AT_FDCWD, at_dir ? dir : (p[0] ? p : "/"), 0,
			       &st) == 0 &&
		    same_inode(&g, &st)) {
			if (!sandy_path_within(grant, dir))
				return sandy_fail(err, SANDY_ERR_INVALID_POLICY,
						  "a writable grant shows a "
						  "launcher copy directory "
						  "under another name");
			if (!at_dir && parent_owned_by(dir, uid, &parent))
				return sandy_fail(err, SANDY_ERR_INVALID_POLICY,
						  "a writable grant holds the "
						  "parent of a launcher copy "
						  "directory of this user");
		}
		if (slash == p)
			return 0;
	}
}

static bool same_hit(const struct stat *st, const void *g)
{
	return same_inode(st, g);
}

/* Whether the walk up from dir's parent (or its nearest ancestor that
 * exists: a missing parent can be made too) meets the object g: 1 yes,
 * 0 no, -1 the walk failed. Symlinks on the way are followed, since the
 * parent that counts is the directory in which a process would make dir. */
static int parent_chain_holds(const char *dir, const struct stat *g)
{
	char p[SANDY_PATH_MAX_BYTES + 1];
	int fd = -1;

	snprintf(p, sizeof(p), "%s", dir);
	while (fd < 0) {
		if (!to_parent(p))
			return -1;
		fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && (errno != ENOENT || strcmp(p, "/") == 0))
			return -1;
	}
	return walk_up(fd, same_hit, g);
}

int sandy_refuse_parent_of(const char *grant, const char *dir,
			   sandy_error *err)
{
	struct stat g;

	if (sandy_stat(AT_FDCWD, grant, 0, &g) != 0)
		return 0; /* nothing writable there to check */
	return refuse_walk(parent_chain_holds(dir, &g),
			   "self: cannot walk above a launcher copy directory",
			   "a writable grant holds the parent of a launcher "
			   "copy directory",
			   err);
}

int sandy_refuse_copy_parents(const char *grant, uid_t uid, sandy_error *err)
{
	char copies[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES];
	size_t n = sandy_copy_dirs(uid, copies);

	for (size_t i = 0; i < n; i++)
		if (sandy_refuse_parent_of(grant, copies[i], err) != 0)
			return -1;
	return 0;
}

int sandy_protect_dir(sandy_resolved *r, sandy_apply_level level,
		      const char *dir, int fd, uid_t uid, sandy_error *err)
{
	if (level == SANDY_APPLY_LANDLOCK_ONLY)
		return refuse_writable_ancestors(r, fd, err);
	close(fd);
	for (size_t i = 0; i < r->n_grants; i++)
		if (r->grants[i].access == SANDY_ACCESS_READ_WRITE &&
		    sandy_refuse_writable_over(r->grants[i].path, dir, uid,
					       err) != 0)
			return -1;
	return add_deny(r, dir, err);
}

int sandy_open_copy_dir(const char *dir, uid_t uid)
{
	/* made when missing, so that it is protected from now on, whoever
	 * puts a copy there later (a root service's argv may be the first
	 * use of the package by uid) */
	(void)mkdir(dir, uid == 0 ? 0755 : 0700);
	struct stat st;
	int fd = sandy_open_how(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC,
				RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	if (fd >= 0 && (sandy_stat(fd, NULL, 0, &st) != 0 || st.st_uid != uid)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int sandy_protect_self(sandy_resolved *r, sandy_apply_level level,
		       sandy_error *err)
{
	char dir[SANDY_PATH_MAX_BYTES + 1];
	char copies[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES];
	uid_t uid = getuid();
	size_t n = sandy_copy_dirs(uid, copies);
	int fd = self_dir(dir, err);

	if (fd < 0 || sandy_protect_dir(r, level, dir, fd, uid, err) != 0)
		return -1;
	for (size_t i = 0; i < r->n_grants; i++)
		if (r->grants[i].access == SANDY_ACCESS_READ_WRITE &&
		    sandy_refuse_copy_parents(r->grants[i].path, uid, err) != 0)
			return -1;
	for (size_t i = 0; i < n; i++) {
		fd = sandy_open_copy_dir(copies[i], uid);
		if (fd >= 0 &&
		    sandy_protect_dir(r, level, copies[i], fd, uid, err) != 0)
			return -1;
	}
	return 0;
}

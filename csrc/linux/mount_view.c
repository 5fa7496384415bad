/* The descriptor-built filesystem view.
 *
 * Before any namespace change every granted, executable and denied path is
 * pinned with an O_PATH descriptor (openat2, no symlinks at all: the paths
 * are canonical, so a symlink appearing in one means it was swapped) and
 * its device/inode recorded. Inside the new mount namespace each grant is
 * re-opened by path and must still be that object (a pin from the old
 * namespace cannot be cloned there), and the clone is taken from the
 * re-opened, verified descriptor. Nested targets and denied paths are
 * opened inside the view under RESOLVE_BENEATH and compared again, so a
 * rename race on the host ends in EnforcementFailed, never a wrong view.
 * What the policy alone decides (which paths, sorted, what the rules give
 * each, which are never mounted, which denies act at all) is the view
 * plan's (plan.c); this file decides what needs the objects: placeholders
 * and attributes by type, and which entries share a mount. Each operation
 * on a mount is mount_tree.c's, as the bubblewrap guard's view's are.
 *
 * View semantics (the choices documented):
 * - A subtree grant (or a file grant) is a recursive bind of the object:
 *   nosuid always, read-only unless a read_write grant covers it (device
 *   nodes always: their data stays writable, their inodes do not), noexec
 *   unless an execute grant covers it, nodev unless it is an exact grant of
 *   a device. Attributes are only ever added, never cleared, so a host
 *   read-only or noexec mount stays so; the one exception is the
 *   read-only flag this code itself set on the top of a writable clone.
 * - Every mount beneath a writable grant is read-only unless it is granted
 *   itself (a procfs or tmpfs under a workspace, a bind mount placed in a
 *   project): a writable clone is made read-only as a whole, then its top
 *   writable again; a writable grant that names a submount is mounted on
 *   its own. No list of filesystem types: the rule needs no detection.
 * - A nested entry whose attributes equal those of the mount above it is
 *   not mounted again (it is already visible): fewer mounts, faster set up
 *   and teardown.
 * - An EXACT grant of a directory is the node, not its contents: it
 *   appears as an empty read-only directory of the view's skeleton (so it
 *   can be the working directory or lead to nested grants), and inside a
 *   subtree mount it changes nothing. Exact grants never change the
 *   attributes of a directory mount, which would widen a whole subtree.
 * - Execute-only paths are mounted like grants (read-only, exec allowed);
 *   Landlock denies their reads.
 * - Denied subtrees are overmounted by an empty read-only directory (or an
 *   empty read-only file), deny_write_exact objects by a read-only bind of
 *   themselves with every mount beneath them (also where only a grant
 *   nested inside them is writable). For a directory that makes its
 *   contents read-only too: the view cannot make only the node read-only,
 *   and stricter is the safe side. Grants beneath a denied subtree are not
 *   mounted at all.
 * - Inside writable mounts every directory between the mount root and a
 *   denied path is bound onto itself, so rename() of it fails with EBUSY
 *   and the denied object cannot be moved out from under its rules; the
 *   same for each anchor (a watched name's directory and those above).
 * - The host root's top-level symlinks (/bin -> usr/bin on merged-/usr
 *   systems) are recreated when their target lies inside the view; they
 *   grant nothing by themselves.
 * - Private temp areas (the launcher's --tmpfs) are empty tmpfs mounts,
 *   writable, nosuid and nodev, that vanish with the namespace.
 * - Nothing else exists: no /proc, /dev or /tmp unless granted. Whatever
 *   is granted at or beneath /proc comes from the PID namespace's own
 *   procfs, which this process (its pid 1) mounts before the root is
 *   switched, while the host's whole /proc is still in view, as the kernel
 *   requires; it is read-only unless granted read_write, and shows only
 *   the command's processes. Identity checks against what was pinned on
 *   the host do not apply there: the objects are the new procfs's.
 * - The lexical spelling of a deny (a symlink) is left to Landlock: a
 *   mount cannot sit on a symlink.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "linux.h"
#include "plan.h"
#include "../core/sys.h"
#include "../core/paths.h"
#include "../core/stat.h"

#define VIEW_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
		      RESOLVE_NO_MAGICLINKS)

/* One item of the view plan (plan.h), with what pinning found and the
 * build decides: the same index as in the plan. */
typedef struct view_entry {
	const char *path;
	const sandy_view_item *item;
	const sandy_pin *pin;
	bool placeholder; /* exact directory: a skeleton node only */
	bool mounted;     /* mounted (as opposed to skipped) */
	unsigned int attr;
	int tree_fd;
} view_entry;

typedef struct view_build {
	const sandy_view_plan *p;
	sandy_view *v;
	view_entry *e;
	size_t n;
	int root_fd;  /* the view's tmpfs root */
	int *deny_trees; /* each deny subtree's cover (detached), or -1 */
	int proc_fd;  /* the namespace's own procfs, or -1 */
	struct prefix {
		const char *p;
		size_t len;
	} *anc;       /* directories already bound onto themselves */
	size_t n_anc;
} view_build;

/* ------------------------------------------------------------------ */
/* small helpers */

static int view_fail(sandy_error *err, const char *what, int e)
{
	return sandy_fail(err, e == ENOSYS ? SANDY_ERR_UNSUPPORTED
					   : SANDY_ERR_ENFORCEMENT_FAILED,
			  "view: %s failed (errno %d)", what, e);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* tree closed, errno kept; rc passed through */
static int closing_tree(int tree, int rc)
{
	int e = errno;

	close(tree);
	errno = e;
	return rc;
}

/* Whether "/.." is "/": true of a namespace's root with nothing stacked
 * beneath it. errno EBUSY when it is not. */
static bool root_is_alone(void)
{
	struct stat top, up;

	if (sandy_stat(AT_FDCWD, "/", 0, &top) != 0 ||
	    sandy_stat(AT_FDCWD, "/..", 0, &up) != 0)
		return false;
	if (top.st_dev == up.st_dev && top.st_ino == up.st_ino)
		return true;
	errno = EBUSY;
	return false;
}

static bool path_strictly_covers(const char *a, const char *p)
{
	return strcmp(a, p) != 0 && sandy_path_within(a, p);
}

/* Two descriptors on the same mount (statx's mount id; unknown counts as
 * different, which only costs a mount). */
static bool same_mount(int a, int b)
{
	struct statx sa, sb;

	return sys_statx(a, "", AT_EMPTY_PATH, STATX_MNT_ID, &sa) == 0 &&
	       sys_statx(b, "", AT_EMPTY_PATH, STATX_MNT_ID, &sb) == 0 &&
	       (sa.stx_mask & sb.stx_mask & STATX_MNT_ID) &&
	       sa.stx_mnt_id == sb.stx_mnt_id;
}

/* The pin an object found at path in the view must match: none in the
 * namespace's procfs, which is not what the host showed. */
static const sandy_pin *expected(const char *path, const sandy_pin *pin)
{
	return sandy_view_own_proc(path) ? NULL : pin;
}

static bool same_object(int fd, const sandy_pin *p)
{
	struct stat st;

	return sandy_stat(fd, NULL, 0, &st) == 0 && (unsigned long long)st.st_dev == p->dev &&
	       (unsigned long long)st.st_ino == p->ino;
}

/* ------------------------------------------------------------------ */
/* pinning, before any namespace change */

/* expect: the object confine pinned there (pins.c), which must be the
 * one pinned now (ESTALE otherwise). */
static int pin_one(const char *path, const sandy_identity *expect,
		   sandy_pin *p)
{
	struct stat st;

	p->path = path;
	p->fd = sandy_open_no_symlinks(AT_FDCWD, path, 0);
	if (p->fd < 0 || sandy_stat(p->fd, NULL, 0, &st) != 0)
		return -1;
	if (expect->known && (expect->dev != (unsigned long long)st.st_dev ||
			      expect->ino != (unsigned long long)st.st_ino)) {
		errno = ESTALE;
		return -1;
	}
	p->dev = (unsigned long long)st.st_dev;
	p->ino = (unsigned long long)st.st_ino;
	p->is_dir = S_ISDIR(st.st_mode);
	p->is_dev = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
	return 0;
}

static sandy_pin *pin_array(size_t n)
{
	sandy_pin *a = calloc(n ? n : 1, sizeof(*a));

	for (size_t i = 0; a != NULL && i < n; i++)
		a[i].fd = -1;
	return a;
}

static int pin_fail(sandy_view *v, sandy_error *err, const char *section,
		    size_t i)
{
	int e = errno;

	sandy_view_release(v);
	/* ENOSYS: a kernel without openat2, which the contract requires */
	return sandy_fail(err, e == ENOSYS ? SANDY_ERR_UNSUPPORTED
					   : SANDY_ERR_PREPARATION_FAILED,
			  "pin: %s[%zu] could not be pinned (errno %d)",
			  section, i, e);
}

int sandy_view_pin(const sandy_resolved *r, sandy_view *v, sandy_error *err)
{
	memset(v, 0, sizeof(*v));
	v->n_grants = r->n_grants;
	v->n_execs = r->n_execs;
	v->n_denies = r->n_deny_subtrees + r->n_deny_write_exact;
	v->grants = pin_array(r->n_grants);
	v->execs = pin_array(r->n_execs);
	v->denies = pin_array(v->n_denies);
	v->mounted = calloc(v->n_denies + 1, sizeof(*v->mounted));
	if (v->grants == NULL || v->execs == NULL || v->denies == NULL ||
	    v->mounted == NULL) {
		sandy_view_release(v);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "pin: out of memory");
	}
	for (size_t i = 0; i < r->n_grants; i++)
		if (pin_one(r->grants[i].path, &r->grants[i].expect,
			    &v->grants[i]) != 0)
			return pin_fail(v, err, SANDY_SECTION_KEY(GRANTS), i);
	for (size_t i = 0; i < r->n_execs; i++)
		if (pin_one(r->execs[i].path, &r->execs[i].expect,
			    &v->execs[i]) != 0)
			return pin_fail(v, err,
					SANDY_SECTION_KEY(EXECUTABLE_GRANTS), i);
	for (size_t i = 0; i < r->n_deny_subtrees; i++)
		if (pin_one(r->deny_subtrees[i].canonical,
			    &r->deny_subtrees[i].expect, &v->denies[i]) != 0)
			return pin_fail(v, err,
					SANDY_SECTION_KEY(DENY_SUBTREES), i);
	for (size_t i = 0; i < r->n_deny_write_exact; i++) {
		sandy_pin *p = &v->denies[r->n_deny_subtrees + i];

		if (pin_one(r->deny_write_exact[i].canonical,
			    &r->deny_write_exact[i].expect, p) != 0)
			return pin_fail(v, err,
					SANDY_SECTION_KEY(DENY_WRITE_EXACT), i);
	}
	return 0;
}

static void release_pins(sandy_pin *a, size_t n)
{
	for (size_t i = 0; a != NULL && i < n; i++)
		close_fd(&a[i].fd);
	free(a);
}

void sandy_view_release(sandy_view *v)
{
	release_pins(v->grants, v->n_grants);
	release_pins(v->execs, v->n_execs);
	release_pins(v->denies, v->n_denies);
	free(v->mounted);
	memset(v, 0, sizeof(*v));
}

/* ------------------------------------------------------------------ */
/* re-verification inside the new mount namespace */

static int reverify(sandy_pin *a, size_t n, const char *section,
		    sandy_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int fd = sandy_open_no_symlinks(AT_FDCWD, a[i].path, 0);

		if (fd < 0 || !same_object(fd, &a[i])) {
			if (fd >= 0)
				close(fd);
			return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
					  "view: %s[%zu] changed after pinning",
					  section, i);
		}
		close(a[i].fd);
		a[i].fd = fd;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the plan's items, with what their pins found */

/* The deepest mounted entry at or above p, or NULL. Entries are sorted,
 * so only earlier ones (and p's own) can qualify. */
static const view_entry *mount_above(const view_build *b, const char *p,
				     bool strict)
{
	const view_entry *best = NULL;

	for (size_t i = 0; i < b->n; i++) {
		const view_entry *e = &b->e[i];

		if (!e->mounted || !(strict ? path_strictly_covers(e->path, p)
					    : sandy_path_within(e->path, p)))
			continue;
		if (best == NULL || strlen(e->path) > strlen(best->path))
			best = e;
	}
	return best;
}

/* Each item of the plan becomes an entry: its pin, whether it is only a
 * placeholder (an exact directory), its attributes, and whether it needs
 * a mount of its own. */
static int settle(view_build *b, sandy_error *err)
{
	const sandy_view_plan *p = b->p;
	const sandy_view *v = b->v;

	b->e = calloc(p->n_items + 1, sizeof(*b->e));
	if (b->e == NULL)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "view: out of memory");
	b->n = p->n_items;
	for (size_t i = 0; i < b->n; i++) {
		const sandy_view_item *it = &p->items[i];
		const sandy_pin *pin = it->grant != SIZE_MAX
					       ? &v->grants[it->grant]
					       : &v->execs[it->exec];

		b->e[i] = (view_entry){.path = it->path, .item = it,
				       .pin = pin,
				       .placeholder = it->all_exact &&
						      pin->is_dir,
				       .tree_fd = -1};
	}
	for (size_t i = 0; i < b->n; i++) {
		view_entry *e = &b->e[i];
		const view_entry *up = mount_above(b, e->path, true);

		if (e->placeholder || e->item->skip)
			continue;
		e->attr = sandy_view_attr(e->item, e->pin->is_dir,
					  e->pin->is_dev);
		/* already visible with the same attributes: no new mount;
		 * but a writable grant of another mount than the one above
		 * (a submount it names) is mounted on its own, since every
		 * submount of a writable clone is made read-only */
		e->mounted = up == NULL || up->attr != e->attr ||
			     (!(e->attr & MOUNT_ATTR_RDONLY) &&
			      !same_mount(e->pin->fd, up->pin->fd));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the skeleton: a fresh tmpfs holding the mountpoints */

static int build_skeleton(view_build *b, sandy_error *err)
{
	for (size_t i = 0; i < b->n; i++) {
		const view_entry *e = &b->e[i];

		if ((!e->mounted && !e->placeholder) || e->item->skip ||
		    mount_above(b, e->path, true) != NULL)
			continue;
		if (sandy_make_mountpoint(b->root_fd, e->path,
				    e->placeholder || e->pin->is_dir) != 0)
			return view_fail(err, "mountpoint", errno);
	}
	return 0;
}

/* A top-level symlink of the host root whose target is visible. */
static bool link_target_visible(const view_build *b, const char *target)
{
	char abs[256];

	if (strstr(target, "..") != NULL || strlen(target) + 2 > sizeof(abs))
		return false;
	abs[0] = '/';
	strcpy(abs + (target[0] == '/' ? 0 : 1), target);
	return mount_above(b, abs, false) != NULL;
}

static bool is_symlink(int dir, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_LNK;
	/* file systems without d_type */
	return sandy_stat(dir, de->d_name, AT_SYMLINK_NOFOLLOW, &st) == 0 &&
	       S_ISLNK(st.st_mode);
}

static int copy_top_symlinks(view_build *b, sandy_error *err)
{
	DIR *d = opendir("/");
	struct dirent *de;
	char target[PATH_MAX];

	if (d == NULL)
		return view_fail(err, "host root listing", errno);
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
		ssize_t n;

		if (!is_symlink(dirfd(d), de))
			continue;
		/* a link that cannot be read would leave the view without
		 * it (/lib64: no program could start): fail, never skip */
		n = readlinkat(dirfd(d), de->d_name, target,
			       sizeof(target) - 1);
		if (n <= 0) {
			int e = n < 0 ? errno : EINVAL;

			closedir(d);
			return view_fail(err, "symlink target", e);
		}
		target[n] = '\0';
		if (link_target_visible(b, target) &&
		    symlinkat(target, b->root_fd, de->d_name) != 0 &&
		    errno != EEXIST) {
			int e = errno;

			closedir(d);
			return view_fail(err, "symlink", e);
		}
	}
	if (errno != 0) {
		int e = errno;

		closedir(d);
		return view_fail(err, "host root listing", e);
	}
	closedir(d);
	return 0;
}

/* ------------------------------------------------------------------ */
/* cloning and attaching */

/* A clone of the entry's path in the namespace's own procfs (staged by
 * clone_sources); -1 with *err. */
static int proc_tree(view_build *b, const view_entry *e, sandy_error *err)
{
	int fd, tree;

	fd = sandy_open_how(b->proc_fd,
			    sandy_tree_rel(e->path + strlen("/proc")),
			    O_PATH | O_CLOEXEC, VIEW_RESOLVE);
	if (fd < 0)
		return view_fail(err, "open in the new /proc", errno);
	tree = sandy_tree_clone(fd);
	if (tree < 0)
		view_fail(err, "open_tree of the new /proc", errno);
	close(fd);
	return tree;
}

/* Every mount beneath a writable grant is read-only unless it is granted
 * itself (a procfs, sysfs or tmpfs under a workspace, a bind mount a user
 * placed in a project): the whole clone is made read-only, then its top
 * mount writable again unless the host's was read-only already. */
static int clone_trees(view_build *b, sandy_error *err)
{
	for (size_t i = 0; i < b->n; i++) {
		view_entry *e = &b->e[i];
		bool writable = !(e->attr & MOUNT_ATTR_RDONLY);
		struct statvfs sv;

		if (!e->mounted)
			continue;
		if (sandy_view_own_proc(e->path))
			e->tree_fd = proc_tree(b, e, err);
		else if ((e->tree_fd = sandy_tree_clone(e->pin->fd)) < 0)
			view_fail(err, "open_tree", errno);
		if (e->tree_fd < 0)
			return -1;
		if (writable && fstatvfs(e->tree_fd, &sv) != 0)
			return view_fail(err, "fstatvfs", errno);
		if (sandy_mount_attr(e->tree_fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
				     e->attr | MOUNT_ATTR_RDONLY, 0) != 0)
			return view_fail(err, "mount_setattr", errno);
		if (writable && !(sv.f_flag & ST_RDONLY) &&
		    sandy_mount_attr(e->tree_fd, "", AT_EMPTY_PATH, 0,
				     MOUNT_ATTR_RDONLY) != 0)
			return view_fail(err, "mount_setattr top", errno);
	}
	return 0;
}

/* Whether deny subtree i is covered: a mount of the view shows it and no
 * wider deny hides it (apply_deny's test for a subtree). */
static bool deny_acts(const view_build *b, size_t i)
{
	return mount_above(b, b->v->denies[i].path, false) != NULL &&
	       !b->p->deny_hidden[i];
}

/* Every tree the view is made of, cloned before its root is attached
 * (mount_tree.c's staging: nothing staged is left on "/" when the root is
 * stacked there). The namespace's own procfs is mounted while the host's
 * whole /proc is still in view, as the kernel requires, and staged while
 * the entries in it are cloned; the covers of the deny subtrees that act
 * are cloned in one go (one descriptor each until it is attached). */
static int clone_sources(view_build *b, sandy_error *err)
{
	const view_entry *proc = NULL;
	size_t n = b->p->n_deny_subtrees;
	bool *is_dir;
	int rc;

	for (size_t i = 0; i < b->n && proc == NULL; i++)
		if (b->e[i].mounted && sandy_view_own_proc(b->e[i].path))
			proc = &b->e[i];
	if (proc != NULL) {
		if ((b->proc_fd = sandy_new_proc(proc->pin->fd)) < 0)
			return view_fail(err, "a /proc of its own", errno);
		if (sandy_stage(b->proc_fd) != 0)
			return view_fail(err, "stage /proc", errno);
	}
	rc = clone_trees(b, err);
	if (proc != NULL && sandy_unstage(b->proc_fd) != 0 && rc == 0)
		rc = view_fail(err, "unstage /proc", errno);
	if (rc != 0 || n == 0)
		return rc;
	is_dir = malloc(n * sizeof(*is_dir));
	b->deny_trees = malloc(n * sizeof(*b->deny_trees));
	if (is_dir == NULL || b->deny_trees == NULL) {
		rc = sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				"view: out of memory");
	} else {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (deny_acts(b, i))
				is_dir[k++] = b->v->denies[i].is_dir;
		if (k > 0 && sandy_deny_objects(is_dir, k, b->deny_trees) != 0)
			rc = view_fail(err, "deny objects", errno);
		/* spread out: deny i's cover at i, -1 where none acts */
		for (size_t i = n; rc == 0 && i-- > 0;)
			b->deny_trees[i] = deny_acts(b, i) ? b->deny_trees[--k]
							    : -1;
	}
	free(is_dir);
	if (rc != 0) {
		free(b->deny_trees);
		b->deny_trees = NULL;
	}
	return rc;
}

/* Opens path inside the view; when expect is given the object found must
 * be the pinned one. */
static int open_in_view(const view_build *b, const char *path,
			const sandy_pin *expect, sandy_error *err)
{
	int fd = sandy_open_how(b->root_fd, sandy_tree_rel(path),
				O_PATH | O_CLOEXEC, VIEW_RESOLVE);

	if (fd < 0)
		return view_fail(err, "open in view", errno);
	if (expect != NULL && !same_object(fd, expect)) {
		close(fd);
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "view: an object changed while mounting");
	}
	return fd;
}

static int attach(int tree, int target, sandy_error *err)
{
	if (sandy_tree_attach(tree, target) != 0)
		return view_fail(err, "move_mount", errno);
	return 0;
}

static int attach_trees(view_build *b, sandy_error *err)
{
	for (size_t i = 0; i < b->n; i++) {
		view_entry *e = &b->e[i];
		bool nested;
		int target, rc;

		if (!e->mounted)
			continue;
		nested = mount_above(b, e->path, true) != NULL;
		target = open_in_view(b, e->path,
				      nested ? expected(e->path, e->pin) : NULL,
				      err);
		if (target < 0)
			return -1;
		rc = attach(e->tree_fd, target, err);
		close(target);
		close_fd(&e->tree_fd);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* Private temp areas: empty writable tmpfs mounts (exec allowed: the seam
 * promises execution everywhere), attached before the grants so that a
 * grant below one (a workspace in /tmp) gets its mountpoint inside it. */
static int attach_tmpfs(view_build *b, sandy_error *err)
{
	for (size_t i = 0; i < b->p->n_tmpfs; i++) {
		const char *p = b->p->tmpfs[i];
		int fd, rc;

		if (mount_above(b, p, false) != NULL)
			return view_fail(err, "temp area inside a grant", EINVAL);
		if (sandy_make_mountpoint(b->root_fd, p, true) != 0)
			return view_fail(err, "temp area mountpoint", errno);
		fd = sandy_new_temp_area();
		if (fd < 0)
			return view_fail(err, "temp area tmpfs", errno);
		rc = sandy_tree_attach_at(fd, b->root_fd, sandy_tree_rel(p));
		close(fd);
		if (rc != 0)
			return view_fail(err, "temp area move_mount", errno);
	}
	/* mountpoints below a temp area now land inside it */
	return b->p->n_tmpfs > 0 ? build_skeleton(b, err) : 0;
}

/* ------------------------------------------------------------------ */
/* denies */

static bool ancestor_bound(const view_build *b, const char *p, size_t len)
{
	for (size_t i = 0; i < b->n_anc; i++)
		if (b->anc[i].len == len && strncmp(b->anc[i].p, p, len) == 0)
			return true;
	return false;
}

/* The view's words for the call of sandy_tree_cover that failed, when it
 * binds a directory onto itself (no attributes set) and when it makes a
 * deny_write_exact object read-only. */
static const char *const ancestor_step[SANDY_TREE_STEPS] = {
	[SANDY_TREE_CLONE] = "open_tree ancestor",
	[SANDY_TREE_ATTR] = "mount_setattr ancestor",
	[SANDY_TREE_ATTACH] = "move_mount",
};
static const char *const deny_step[SANDY_TREE_STEPS] = {
	[SANDY_TREE_CLONE] = "open_tree deny",
	[SANDY_TREE_ATTR] = "mount_setattr deny",
	[SANDY_TREE_ATTACH] = "move_mount",
};

/* Binds one directory onto itself: a mountpoint cannot be renamed. */
static int bind_onto_itself(view_build *b, const char *path, size_t len,
			    sandy_error *err)
{
	char buf[SANDY_PATH_MAX_BYTES + 1];
	sandy_tree_step step = SANDY_TREE_CLONE;
	int target, tree, rc;

	memcpy(buf, path, len);
	buf[len] = '\0';
	target = open_in_view(b, buf, NULL, err);
	if (target < 0)
		return -1;
	tree = sandy_tree_cover(target, 0, &step);
	rc = tree < 0 ? view_fail(err, ancestor_step[step], errno) : 0;
	if (tree >= 0)
		close(tree);
	close(target);
	if (rc == 0)
		b->anc[b->n_anc++] = (struct prefix){path, len};
	return rc;
}

/* Every directory strictly between the mount root and the denied path,
 * outermost first so each lookup goes through the previous bind. */
static int bind_ancestors(view_build *b, const view_entry *m, const char *p,
			 sandy_error *err)
{
	size_t start = strcmp(m->path, "/") == 0 ? 0 : strlen(m->path);

	if (start >= strlen(p))
		return 0; /* the denied path is the mount root itself */
	for (const char *s = strchr(p + start + 1, '/'); s != NULL;
	     s = strchr(s + 1, '/')) {
		size_t len = (size_t)(s - p);

		if (ancestor_bound(b, p, len))
			continue;
		if (bind_onto_itself(b, p, len, err) != 0)
			return -1;
	}
	return 0;
}

/* A denied subtree is covered by an empty object of its kind; a
 * deny_write_exact object is bound read-only onto itself with every mount
 * beneath it (a writable grant nested in a denied directory too). */
static int overmount(view_build *b, int target, size_t i, bool subtree,
		     sandy_error *err)
{
	sandy_tree_step step = SANDY_TREE_CLONE;
	int tree;

	if (subtree) {
		tree = b->deny_trees[i];
		b->deny_trees[i] = -1;
		return closing_tree(tree, sandy_tree_attach(tree, target)) == 0
			       ? 0
			       : view_fail(err, "cover deny", errno);
	}
	if ((tree = sandy_tree_cover(target, MOUNT_ATTR_RDONLY, &step)) < 0)
		return view_fail(err, deny_step[step], errno);
	close(tree);
	return 0;
}

/* A writable mount strictly beneath p (a grant nested in a denied path). */
static bool writable_beneath(const view_build *b, const char *p)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->e[i].mounted && !(b->e[i].attr & MOUNT_ATTR_RDONLY) &&
		    path_strictly_covers(p, b->e[i].path))
			return true;
	return false;
}

static int apply_deny(view_build *b, size_t i, sandy_error *err)
{
	const sandy_pin *pin = &b->v->denies[i];
	bool subtree = i < b->p->n_deny_subtrees;
	const view_entry *m = mount_above(b, pin->path, false);
	bool writable = m != NULL && !(m->attr & MOUNT_ATTR_RDONLY);
	int target, rc;

	/* invisible already, hidden by a wider deny, or nothing writable at
	 * or beneath it */
	if (m == NULL ||
	    (!subtree && !writable && !writable_beneath(b, pin->path)))
		return 0;
	if (b->p->deny_hidden[i])
		return 0;
	if (writable && bind_ancestors(b, m, pin->path, err) != 0)
		return -1;
	target = open_in_view(b, pin->path, expected(pin->path, pin), err);
	if (target < 0)
		return -1;
	rc = overmount(b, target, i, subtree, err);
	close(target);
	if (rc == 0)
		b->v->mounted[b->v->n_mounted++] = (sandy_mounted){
			.path = pin->path,
			.section = subtree ? "deny_subtrees" : "deny_write_exact",
			.index = subtree ? i : i - b->p->n_deny_subtrees};
	return rc;
}

/* Each anchor's directories above it inside a writable mount bound onto
 * themselves (a watched name's directory may not be renamed away and
 * made again, unwatched). */
static int apply_anchors(view_build *b, sandy_error *err)
{
	for (size_t i = 0; i < b->p->n_anchors; i++) {
		const view_entry *m = mount_above(b, b->p->anchors[i], false);

		if (m != NULL && !(m->attr & MOUNT_ATTR_RDONLY) &&
		    bind_ancestors(b, m, b->p->anchors[i], err) != 0)
			return -1;
	}
	return 0;
}

static int apply_denies(view_build *b, sandy_error *err)
{
	if (b->v->n_denies == 0 && b->p->n_anchors == 0)
		return 0;
	b->anc = calloc(b->p->anc_slots + 1, sizeof(*b->anc));
	if (b->anc == NULL)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "view: out of memory");
	for (size_t i = 0; i < b->v->n_denies; i++)
		if (apply_deny(b, i, err) != 0)
			return -1;
	return apply_anchors(b, err);
}

/* ------------------------------------------------------------------ */
/* switching root */

static int attach_root(view_build *b, sandy_error *err)
{
	/* pivot_root needs the new root attached in this namespace: stack it
	 * on the old root, the one place known to exist. */
	if (sandy_tree_attach_at(b->root_fd, AT_FDCWD, "/") != 0)
		return view_fail(err, "attach root", errno);
	return 0;
}

static int switch_root(view_build *b, sandy_error *err)
{
	if (fchdir(b->root_fd) != 0)
		return view_fail(err, "enter root", errno);
	/* The old root ends up stacked on "." and is detached at once. */
	if (sys_pivot_root(".", ".") != 0)
		return view_fail(err, "pivot_root", errno);
	if (umount2(".", MNT_DETACH) != 0)
		return view_fail(err, "detach old root", errno);
	/* the skeleton itself (not the grants on it) is read-only */
	if (sandy_mount_attr(b->root_fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY,
			     0) != 0)
		return view_fail(err, "root read-only", errno);
	/* nothing of the old root is left stacked under the view: "/.."
	 * would reach it */
	if (!root_is_alone())
		return view_fail(err, "the old root is still reachable", errno);
	if (chdir(b->p->cwd) != 0)
		return view_fail(err, "enter working directory", errno);
	return 0;
}

static void build_release(view_build *b)
{
	for (size_t i = 0; b->e != NULL && i < b->n; i++)
		close_fd(&b->e[i].tree_fd);
	free(b->e);
	free(b->anc);
	close_fd(&b->root_fd);
	for (size_t i = 0; b->deny_trees != NULL && i < b->p->n_deny_subtrees;
	     i++)
		close_fd(&b->deny_trees[i]);
	free(b->deny_trees);
	close_fd(&b->proc_fd);
}

static int build_steps(view_build *b, sandy_error *err)
{
	if (reverify(b->v->grants, b->v->n_grants, SANDY_SECTION_KEY(GRANTS),
		     err) != 0 ||
	    reverify(b->v->execs, b->v->n_execs,
		     SANDY_SECTION_KEY(EXECUTABLE_GRANTS), err) != 0 ||
	    settle(b, err) != 0)
		return -1;
	b->root_fd = sandy_new_tmpfs("0755", "1m", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					       MOUNT_ATTR_NOEXEC);
	if (b->root_fd < 0)
		return view_fail(err, "root tmpfs", errno);
	if (build_skeleton(b, err) != 0 || copy_top_symlinks(b, err) != 0 ||
	    clone_sources(b, err) != 0 || attach_root(b, err) != 0 ||
	    attach_tmpfs(b, err) != 0 || attach_trees(b, err) != 0 ||
	    apply_denies(b, err) != 0)
		return -1;
	return switch_root(b, err);
}

int sandy_view_build(const sandy_view_plan *p, sandy_view *v,
		     sandy_error *err)
{
	view_build b = {.p = p, .v = v, .root_fd = -1, .proc_fd = -1};
	int rc;

	/* another policy's pins would be read out of bounds */
	if (p->n_grants != v->n_grants || p->n_execs != v->n_execs ||
	    p->n_denies != v->n_denies)
		/* (unreachable: apply.c and probe.c plan and pin one policy) */
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "view: the plan and the pins disagree");
	rc = build_steps(&b, err);

	build_release(&b);
	return rc;
}

/* Landlock: filesystem rights per resolved rule, TCP bind/connect denied
 * when the network is blocked, abstract-socket and signal scoping.
 *
 * Landlock only ever ADDS rights beneath a directory, so the parts of the
 * Sandy model it cannot say directly are mapped as follows (fail closed:
 * whenever a mapping is imprecise it grants less, never more):
 *
 * - Exact grant of a directory: Landlock has no "this node only" rule; any
 *   right on a directory also covers everything beneath it. The node
 *   itself can only be listed, so it gets READ_DIR and nothing else, for
 *   read and read_write alike: creating or removing entries would have to
 *   be granted for the whole subtree. READ_DIR still lets descendant
 *   directories be listed (names only, never contents); the full level's
 *   view does not contain them, the Landlock-only level cannot hide them.
 * - Exact execute grant of a directory: nothing (executing a directory
 *   means nothing, and EXECUTE on it would cover the whole subtree).
 * - Execute grants give EXECUTE only: the contract says they grant no
 *   ordinary reads. Measured on 6.18 (csrc/test/landlock_test.c): execve
 *   needs READ_FILE as well as EXECUTE, because Landlock checks the
 *   read-mode open that exec performs (and the same for the ELF
 *   interpreter); a dynamic binary also needs READ_FILE on its libraries
 *   and a script on itself. So launching a path takes an execute grant
 *   AND a read grant; an execute grant alone fails closed (EACCES).
 * - IOCTL_DEV only for exact read_write grants of device nodes, matching
 *   the view, which is nodev except for exact device grants.
 * - Denies are honoured by not granting them ("sibling expansion"): a
 *   grant whose subtree contains a deny is replaced by rules for every
 *   entry on the way down to the denied object except that path itself.
 *   The directories on the path (the grant root included) keep only what
 *   may safely apply to the denied object too: READ_DIR above a denied
 *   subtree (so names inside a denied directory stay listable in the
 *   Landlock-only level, contents do not), the grant's rights minus every
 *   write right above a deny_write_exact object. No write right on those
 *   directories means the denied object and its ancestors cannot be
 *   removed, renamed or replaced. Entries created in them after this call
 *   are not covered by any rule and so are inaccessible (fails closed).
 *   A directory on the way that may be searched but not listed (a shared
 *   /home at 0711) gives rules to its entries on the way to a deny only.
 *   A deny above or at a grant drops the grant. Deny beats grant whatever
 *   the builder order, because expansion looks at every deny.
 *
 * The ABI check, the handled rights, the rule paths and the rights each
 * node keeps are the plan's (plan.c, pure); this file opens, examines and
 * lists the objects and adds the rules. */
#include "apply.h"
#include "linux.h"
#include "plan.h"
#include "../core/sys.h"
#include "../core/paths.h"
#include "../core/stat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sibling expansion can multiply rules: bounded like the policy's
 * effective rules, and a policy that needs more is refused. */
#define SANDY_LANDLOCK_RULES_MAX SANDY_EFFECTIVE_RULES_MAX

typedef struct ll_ctx {
	int ruleset_fd;
	const sandy_ll_plan *p;
	size_t n_rules;
	sandy_error *err;
	/* The node being expanded; long enough for a deny-length parent
	 * plus one name, which is all expansion ever builds. */
	char path[SANDY_PATH_MAX_BYTES + NAME_MAX + 3];
} ll_ctx;

/* Test builds only (csrc/Makefile's abi-caps): the launcher takes the
 * kernel's Landlock ABI as at most SANDY_TEST_LANDLOCK_ABI_CAP, so that the
 * suite can see on one kernel what a kernel with a lower ABI makes of the
 * launcher and of its probe. Lower only: the cap never raises what the
 * kernel offers. Everything that depends on the ABI reads it from
 * sandy_landlock_abi() (the plan's refusals and handled rights, the
 * probe's report), and a capped build refuses a ruleset that handles more
 * than its cap (create_ruleset), so that a step which did not ask cannot
 * go past it. A release build never defines it. */
#ifdef SANDY_TEST_LANDLOCK_ABI_CAP
_Static_assert(SANDY_TEST_LANDLOCK_ABI_CAP >= 0,
	       "SANDY_TEST_LANDLOCK_ABI_CAP is an ABI version, 0 or more");
#endif

static int kernel_abi(void)
{
	long v = sys_landlock_create_ruleset(NULL, 0,
					     LANDLOCK_CREATE_RULESET_VERSION);

	return v > 0 && v < INT_MAX ? (int)v : 0;
}

int sandy_landlock_abi(void)
{
	int abi = kernel_abi();

#ifdef SANDY_TEST_LANDLOCK_ABI_CAP
	if (abi > SANDY_TEST_LANDLOCK_ABI_CAP)
		abi = SANDY_TEST_LANDLOCK_ABI_CAP;
#endif
	return abi;
}

int sandy_landlock_errata(void)
{
	long v;

#ifdef SANDY_TEST_LANDLOCK_ABI_CAP
	/* Each erratum belongs to the ABI whose feature it fixes, which only
	 * the kernel knows: a build that pretends to an older ABI claims none
	 * of the fixes (the side nothing could rely on wrongly). */
	if (kernel_abi() > SANDY_TEST_LANDLOCK_ABI_CAP)
		return 0;
#endif
	/* Kernels predating the errata flag reject it with EINVAL. */
	v = sys_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_ERRATA);
	return v > 0 && v < INT_MAX ? (int)v : 0;
}

static int add_rule(ll_ctx *ctx, int fd, uint64_t rights, bool is_dir)
{
	struct sandy_ll_path_beneath pb;

	rights &= ctx->p->handled_fs;
	if (!is_dir)
		rights &= FS_FILE_RIGHTS;
	if (rights == 0)
		return 0;
	if (ctx->n_rules >= SANDY_LANDLOCK_RULES_MAX)
		return sandy_fail(ctx->err, SANDY_ERR_INVALID_POLICY,
				  "landlock: more than %u rules after deny "
				  "expansion",
				  SANDY_LANDLOCK_RULES_MAX);
	pb.allowed_access = rights;
	pb.parent_fd = fd;
	if (sys_landlock_add_rule(ctx->ruleset_fd, LANDLOCK_RULE_PATH_BENEATH,
				  &pb, 0) != 0)
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock_add_rule: %s", strerror(errno));
	ctx->n_rules++;
	return 0;
}

static int expand_node(ll_ctx *ctx, int fd, uint64_t rights);

/* Appends one name to ctx->path and stores the old length to restore.
 * Only directories above a deny are expanded, so the result fits unless
 * a deny is longer than the documented bound: refuse rather than
 * compare truncated paths. */
static int path_push(ll_ctx *ctx, const char *name, size_t *saved)
{
	size_t len = strlen(ctx->path);
	bool root = len == 1 && ctx->path[0] == '/';
	int n = snprintf(ctx->path + len, sizeof(ctx->path) - len, "%s%s",
			 root ? "" : "/", name);

	*saved = len;
	/* (unreachable: the buffer holds any path a policy may have plus one
	 * name; kept so that a truncated path is never compared) */
	if (n < 0 || (size_t)n >= sizeof(ctx->path) - len) {
		ctx->path[len] = '\0';
		return sandy_fail(ctx->err, SANDY_ERR_INVALID_POLICY,
				  "landlock: a path above a deny is too long");
	}
	return 0;
}

static int expand_child(ll_ctx *ctx, int dirfd, const char *name,
			uint64_t rights)
{
	size_t saved;
	int fd, rc;

	/* NOFOLLOW: a symlink entry would otherwise grant its target. */
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock: cannot open an entry beside a "
				  "deny: %s",
				  strerror(errno));
	rc = path_push(ctx, name, &saved);
	if (rc == 0) {
		rc = expand_node(ctx, fd, rights);
		ctx->path[saved] = '\0';
	}
	close(fd);
	return rc;
}

/* The entry of ctx->path on the way to the deny d (its canonical path),
 * into name; false when d is not strictly beneath ctx->path. */
static bool entry_toward(const ll_ctx *ctx, const sandy_rdeny *d,
			 char name[NAME_MAX + 1])
{
	const char *rest;
	size_t n;

	if (strcmp(d->canonical, ctx->path) == 0 ||
	    !sandy_path_within(ctx->path, d->canonical))
		return false;
	rest = d->canonical + strlen(ctx->path);
	rest += *rest == '/';
	n = strcspn(rest, "/");
	if (n == 0 || n > NAME_MAX)
		return false;
	memcpy(name, rest, n);
	name[n] = '\0';
	return true;
}

/* A directory above a deny that this uid may search but not list (a
 * shared /home at 0711): only its entries on the way to a deny get rules;
 * the others, which cannot be named, get none (the safe side: they are
 * inaccessible, as entries made after this call are). */
static int expand_known_children(ll_ctx *ctx, int fd, uint64_t rights)
{
	const sandy_resolved *r = ctx->p->r;
	size_t n = r->n_deny_subtrees + r->n_deny_write_exact;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		const sandy_rdeny *d = i < r->n_deny_subtrees
					       ? &r->deny_subtrees[i]
					       : &r->deny_write_exact[i - r->n_deny_subtrees];
		char name[NAME_MAX + 1], other[NAME_MAX + 1];
		bool seen = false;

		if (!entry_toward(ctx, d, name))
			continue;
		for (size_t j = 0; !seen && j < i; j++)
			seen = entry_toward(ctx, j < r->n_deny_subtrees
							 ? &r->deny_subtrees[j]
							 : &r->deny_write_exact[j - r->n_deny_subtrees],
					    other) &&
			       strcmp(name, other) == 0;
		if (!seen)
			rc = expand_child(ctx, fd, name, rights);
	}
	return rc;
}

static int expand_children(ll_ctx *ctx, int fd, uint64_t rights)
{
	struct dirent *de;
	DIR *dir;
	int dfd, rc = 0;

	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && errno == EACCES)
		return expand_known_children(ctx, fd, rights);
	if (dfd < 0)
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock: cannot list a directory above a "
				  "deny: %s",
				  strerror(errno));
	dir = fdopendir(dfd);
	if (dir == NULL) {
		close(dfd);
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock: fdopendir: %s", strerror(errno));
	}
	errno = 0;
	while (rc == 0 && (de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			rc = expand_child(ctx, dfd, de->d_name, rights);
		errno = 0;
	}
	if (rc == 0 && errno != 0)
		rc = sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				"landlock: readdir: %s", strerror(errno));
	closedir(dir);
	return rc;
}

/* One node of a subtree grant: a rule with what the denies leave it and,
 * when the node lies above a deny, the same for each of its entries. */
static int expand_node(ll_ctx *ctx, int fd, uint64_t rights)
{
	sandy_node_class c = sandy_ll_classify(ctx->p->r, ctx->path);
	struct stat st;
	bool is_dir;

	if (c.hidden)
		return 0;
	if (sandy_stat(fd, NULL, 0, &st) != 0)
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock: fstat: %s", strerror(errno));
	/* A symlink rule would be meaningless: access is checked on the
	 * target, which has rules of its own or none. */
	if (S_ISLNK(st.st_mode))
		return 0;
	is_dir = S_ISDIR(st.st_mode);
	if (add_rule(ctx, fd, sandy_ll_narrow(ctx->p, rights, c), is_dir) != 0)
		return -1;
	if (!sandy_ll_needs_expansion(ctx->p, rights, c, is_dir))
		return 0;
	return expand_children(ctx, fd, rights);
}

/* Rule paths are canonical, so any symlink on the way means the tree
 * changed since resolution: refuse it rather than follow it. */
static int open_rule_path(const char *path)
{
	return sandy_open_how(AT_FDCWD, path, O_PATH | O_CLOEXEC | O_NOFOLLOW,
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

static int add_exact(ll_ctx *ctx, int fd, uint64_t rights, bool rw)
{
	sandy_node_class c = sandy_ll_classify(ctx->p->r, ctx->path);
	struct stat st;

	if (c.hidden)
		return 0;
	if (sandy_stat(fd, NULL, 0, &st) != 0)
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock: fstat: %s", strerror(errno));
	rights = sandy_ll_exact_rights(
		rights, S_ISDIR(st.st_mode),
		S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode), rw);
	return add_rule(ctx, fd, sandy_ll_narrow(ctx->p, rights, c),
			S_ISDIR(st.st_mode));
}

/* In the view, an exact directory grant that no mount covers is a
 * placeholder directory of the skeleton (mount_view.c), the view's root
 * filesystem, which the launcher made and nothing else can write: it is
 * the node the rule names, with no host object behind it to compare. */
static bool skeleton_node(const ll_ctx *ctx, const sandy_ll_rule *rule,
			  const struct stat *st)
{
	struct stat root;

	return ctx->p->with_view && rule->scope == SANDY_SCOPE_EXACT &&
	       S_ISDIR(st->st_mode) && sandy_stat(AT_FDCWD, "/", 0, &root) == 0 &&
	       root.st_dev == st->st_dev;
}

/* One rule path of the plan. Its expect: the object confine pinned at
 * the path (pins.c), or NULL; a rule path that names another object now
 * (other than its skeleton placeholder) fails closed. (Resolution keeps
 * every path within SANDY_PATH_MAX_BYTES; a longer one would fail to open
 * below, closed.) */
static int add_path_rules(ll_ctx *ctx, const sandy_ll_rule *rule)
{
	const sandy_identity *expect = rule->expect;
	struct stat st;
	int fd, rc;

	fd = open_rule_path(rule->path);
	if (fd < 0)
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock: cannot open %s[%zu]: %s",
				  rule->section, rule->index, strerror(errno));
	if (expect != NULL && expect->known &&
	    (sandy_stat(fd, NULL, 0, &st) != 0 ||
	     (((unsigned long long)st.st_dev != expect->dev ||
	       (unsigned long long)st.st_ino != expect->ino) &&
	      !skeleton_node(ctx, rule, &st)))) {
		close(fd);
		return sandy_fail(ctx->err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "landlock: %s[%zu] changed since confine",
				  rule->section, rule->index);
	}
	strcpy(ctx->path, rule->path);
	if (rule->scope == SANDY_SCOPE_EXACT)
		rc = add_exact(ctx, fd, rule->rights, rule->rw_device);
	else
		rc = expand_node(ctx, fd, rule->rights);
	close(fd);
	return rc;
}

static int add_all_rules(ll_ctx *ctx)
{
	for (size_t i = 0; i < ctx->p->n_rules; i++)
		if (add_path_rules(ctx, &ctx->p->rules[i]) != 0)
			return -1;
	return 0;
}

#ifdef SANDY_TEST_LANDLOCK_ABI_CAP
/* A capped build's own check that no ruleset handles what its ABI has
 * not: network rights came with ABI 4, scoping with 6. */
static int within_cap(const sandy_ll_plan *p, sandy_error *err)
{
	int abi = sandy_landlock_abi();

	if (abi == 0 || (p->handled_fs & ~sandy_ll_handled_fs(abi)) != 0 ||
	    (p->handled_net != 0 && abi < 4) || (p->scoped != 0 && abi < 6))
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "landlock: this test build is capped at "
				  "Landlock ABI %d, which cannot handle the "
				  "ruleset",
				  abi);
	return 0;
}
#endif

static int create_ruleset(const sandy_ll_plan *p, sandy_error *err)
{
	/* (no net rule is ever added: handling a right denies it) */
	struct sandy_ll_ruleset_attr attr = {
		.handled_access_fs = p->handled_fs,
		.handled_access_net = p->handled_net,
		.scoped = p->scoped,
	};
	long fd;

#ifdef SANDY_TEST_LANDLOCK_ABI_CAP
	if (within_cap(p, err) != 0)
		return -1;
#endif
	fd = sys_landlock_create_ruleset(&attr, sizeof(attr), 0);
	if (fd < 0) {
		sandy_error_kind kind = errno == ENOSYS || errno == EOPNOTSUPP
						? SANDY_ERR_UNSUPPORTED
						: SANDY_ERR_ENFORCEMENT_FAILED;

		return sandy_fail(err, kind, "landlock_create_ruleset: %s",
				  strerror(errno));
	}
	return (int)fd;
}

/* Enforces the ruleset on this thread (single-threaded by contract) and
 * closes it. */
static int restrict_to(int ruleset_fd, sandy_error *err)
{
	int rc = 0;

	if (sys_landlock_restrict_self(ruleset_fd, 0) != 0)
		rc = sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				"landlock_restrict_self: %s", strerror(errno));
	close(ruleset_fd);
	return rc;
}

int sandy_landlock_restrict(const sandy_ll_plan *p, sandy_error *err)
{
	ll_ctx ctx = {.p = p, .err = err};

	ctx.ruleset_fd = create_ruleset(p, err);
	if (ctx.ruleset_fd < 0)
		return -1;
	if (add_all_rules(&ctx) != 0) {
		close(ctx.ruleset_fd);
		return -1;
	}
	return restrict_to(ctx.ruleset_fd, err);
}

/* (the Landlock-only level's plan refused an ABI without signal scoping) */
int sandy_landlock_scope_signals(sandy_error *err)
{
	sandy_ll_plan p = {.scoped = LANDLOCK_SCOPE_SIGNAL};
	int fd = create_ruleset(&p, err);

	return fd < 0 ? -1 : restrict_to(fd, err);
}

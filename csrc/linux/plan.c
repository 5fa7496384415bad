/* The plan: apply.c's step 0 (plan.h says what it holds and why). Pure
 * functions of the resolved policy and the host facts given: no system
 * call, no path looked at. The refusals here are what Linux cannot
 * represent, with the messages the steps printed when they made them. */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "seccomp_build.h"
#include "../core/paths.h"
#include "../core/protocol.h"
#include "../core/vocabulary.h"

/* ---- Landlock --------------------------------------------------------- */

uint64_t sandy_ll_handled_fs(int abi)
{
	uint64_t fs = FS_ABI1;

	if (abi >= 2)
		fs |= LL(REFER);
	if (abi >= 3)
		fs |= LL(TRUNCATE);
	if (abi >= 5)
		fs |= LL(IOCTL_DEV);
	return fs;
}

static bool path_strictly_above(const char *node, const char *other)
{
	return strcmp(node, other) != 0 && sandy_path_within(node, other);
}

static void classify_one(const char *node, const char *deny, bool subtree,
			 sandy_node_class *c)
{
	if (deny == NULL)
		return;
	if (subtree) {
		c->hidden |= sandy_path_within(deny, node);
		c->above_deny |= path_strictly_above(node, deny);
	} else {
		c->locked |= strcmp(node, deny) == 0;
		c->above_lock |= path_strictly_above(node, deny);
	}
}

static void classify_deny(const char *node, const sandy_rdeny *d, bool subtree,
			  sandy_node_class *c)
{
	classify_one(node, d->canonical, subtree, c);
	classify_one(node, d->lexical, subtree, c);
	if (d->lexical != NULL)
		c->above_link |= path_strictly_above(node, d->lexical);
}

sandy_node_class sandy_ll_classify(const sandy_resolved *r, const char *node)
{
	sandy_node_class c = {0};

	for (size_t i = 0; i < r->n_deny_subtrees; i++)
		classify_deny(node, &r->deny_subtrees[i], true, &c);
	for (size_t i = 0; i < r->n_deny_write_exact; i++)
		classify_deny(node, &r->deny_write_exact[i], false, &c);
	return c;
}

/* Write locks only matter when the grant carries write rights at all.
 *
 * Landlock has no deny rules and its rights are inherited by everything
 * beneath, so without a view a deny inside a grant is kept by giving the
 * directories on the way down only what cannot reach the denied object
 * (sibling expansion): they then cannot gain new entries. With the view,
 * the denied objects are covered by empty read-only mounts and their
 * ancestors are bound onto themselves, so they keep the grant's rights
 * and stay writable ("adjacent entries remain writable"); the launcher
 * refuses inherited directory descriptors in that case, the one way to
 * reach the host tree beneath the view (apply.c). A deny's lexical spelling
 * (a symlink) cannot carry a mount, so the directories above it keep the
 * sibling expansion even with the view: the link cannot be replaced. */
static bool view_keeps(const sandy_ll_plan *p, sandy_node_class c)
{
	return p->with_view && !c.above_link;
}

uint64_t sandy_ll_narrow(const sandy_ll_plan *p, uint64_t rights,
			 sandy_node_class c)
{
	if (c.locked)
		return rights & ~FS_WRITE_RIGHTS;
	if (view_keeps(p, c))
		return rights;
	if (c.above_deny)
		return rights & LL(READ_DIR);
	if (c.above_lock)
		return rights & ~FS_WRITE_RIGHTS;
	return rights;
}

bool sandy_ll_needs_expansion(const sandy_ll_plan *p, uint64_t rights,
			      sandy_node_class c, bool is_dir)
{
	if (view_keeps(p, c) || !is_dir || c.hidden)
		return false;
	if (c.above_deny)
		return true;
	return (rights & FS_WRITE_RIGHTS) != 0 && (c.above_lock || c.locked);
}

uint64_t sandy_ll_exact_rights(uint64_t rights, bool is_dir, bool is_device,
			       bool rw_device)
{
	if (is_dir)
		return rights & LL(READ_DIR);
	if (rw_device && is_device)
		return rights | LL(IOCTL_DEV);
	return rights & ~LL(IOCTL_DEV);
}

static int landlock_check(const sandy_resolved *r, int abi, sandy_error *err)
{
	if (abi <= 0)
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "landlock is not available");
	if (r->network == SANDY_NETWORK_BLOCK_ALL && abi < 4)
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "landlock ABI %d cannot block TCP (needs 4)",
				  abi);
	if (abi < SANDY_LANDLOCK_MIN_ABI)
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "landlock ABI %d cannot scope signals and "
				  "abstract sockets (needs %d)",
				  abi, SANDY_LANDLOCK_MIN_ABI);
	return 0;
}

static uint64_t grant_rights(sandy_access access)
{
	if (access == SANDY_ACCESS_READ_WRITE)
		return FS_READ_RIGHTS | FS_WRITE_RIGHTS;
	return FS_READ_RIGHTS;
}

/* Deny beats grant: a rule path inside a denied subtree adds nothing, and
 * the view does not even contain it. */
static void add_ll_rule(sandy_ll_plan *p, sandy_ll_rule rule)
{
	if (sandy_ll_classify(p->r, rule.path).hidden)
		return;
	/* a subtree rule never grants IOCTL_DEV (only exact device grants) */
	if (rule.scope != SANDY_SCOPE_EXACT)
		rule.rights &= ~LL(IOCTL_DEV);
	p->rules[p->n_rules++] = rule;
}

bool sandy_view_own_proc(const char *path)
{
	return sandy_path_within("/proc", path);
}

/* The object confine pinned at a rule path, which Landlock must find
 * there; none in the view's own procfs (mount_view.c). */
static const sandy_identity *pinned(const sandy_host_facts *f,
				    const char *path,
				    const sandy_identity *id)
{
	return f->with_view && sandy_view_own_proc(path) ? NULL : id;
}

int sandy_plan_landlock(const sandy_resolved *r, const sandy_host_facts *f,
			sandy_ll_plan *out, sandy_error *err)
{
	size_t n = r->n_grants + r->n_tmpfs + r->n_execs;

	memset(out, 0, sizeof(*out));
	if (landlock_check(r, f->landlock_abi, err) != 0)
		return -1;
	out->rules = calloc(n ? n : 1, sizeof(*out->rules));
	if (out->rules == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "plan: out of memory");
	out->r = r;
	out->abi = f->landlock_abi;
	out->with_view = f->with_view;
	out->handled_fs = sandy_ll_handled_fs(f->landlock_abi);
	/* No net rule is ever added: handling a right denies it. */
	if (r->network == SANDY_NETWORK_BLOCK_ALL)
		out->handled_net = LANDLOCK_ACCESS_NET_BIND_TCP |
				   LANDLOCK_ACCESS_NET_CONNECT_TCP;
	out->scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		      LANDLOCK_SCOPE_SIGNAL;
	for (size_t i = 0; i < r->n_grants; i++) {
		const sandy_rgrant *g = &r->grants[i];

		add_ll_rule(out, (sandy_ll_rule){
			.path = g->path, .rights = grant_rights(g->access),
			.scope = g->scope,
			.rw_device = g->access == SANDY_ACCESS_READ_WRITE,
			.section = SANDY_SECTION_KEY(GRANTS), .index = i,
			.expect = pinned(f, g->path, &g->expect)});
	}
	for (size_t i = 0; i < r->n_tmpfs; i++)
		add_ll_rule(out, (sandy_ll_rule){
			.path = r->tmpfs[i], .rights = TMPFS_RIGHTS,
			.scope = SANDY_SCOPE_SUBTREE, .section = "tmpfs",
			.index = i});
	for (size_t i = 0; i < r->n_execs; i++)
		add_ll_rule(out, (sandy_ll_rule){
			.path = r->execs[i].path, .rights = LL(EXECUTE),
			.scope = r->execs[i].scope,
			.section = SANDY_SECTION_KEY(EXECUTABLE_GRANTS),
			.index = i,
			.expect = pinned(f, r->execs[i].path,
					 &r->execs[i].expect)});
	return 0;
}

void sandy_ll_plan_free(sandy_ll_plan *p)
{
	free(p->rules);
	memset(p, 0, sizeof(*p));
}

/* ---- the view --------------------------------------------------------- */

static bool under_deny_subtree(const sandy_resolved *r, const char *p)
{
	for (size_t i = 0; i < r->n_deny_subtrees; i++)
		if (sandy_path_within(r->deny_subtrees[i].canonical, p))
			return true;
	return false;
}

unsigned int sandy_view_attr(const sandy_view_item *it, bool is_dir,
			     bool is_dev)
{
	/* Exact rules only ever affect non-directories: on a directory they
	 * would change a whole subtree's mount. */
	bool rw = it->rw_subtree || (!is_dir && it->rw_exact);
	bool ex = it->ex_subtree || (!is_dir && it->ex_exact);
	bool dev = it->exact_grant && is_dev;

	/* A device node is written through, not changed: writing to one on
	 * a read-only mount works, while chmod, chown and utime of the
	 * host's node (by a confined uid 0, its owner) do not. */
	if (is_dev)
		rw = false;
	return MOUNT_ATTR_NOSUID | (rw ? 0 : MOUNT_ATTR_RDONLY) |
	       (ex ? 0 : MOUNT_ATTR_NOEXEC) | (dev ? 0 : MOUNT_ATTR_NODEV);
}

/* The entry of one rule naming its path (merged with the other rules
 * naming it once sorted, merge_items). */
static sandy_view_item rule_item(const char *path, bool exec, size_t index,
				 sandy_scope scope, bool rw)
{
	bool exact = scope == SANDY_SCOPE_EXACT;

	return (sandy_view_item){.path = path,
				 .grant = exec ? SIZE_MAX : index,
				 .exec = exec ? index : SIZE_MAX,
				 .all_exact = exact,
				 .exact_grant = !exec && exact,
				 .rw_exact = !exec && exact && rw,
				 .ex_exact = exec && exact};
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const sandy_view_item *)a)->path,
		      ((const sandy_view_item *)b)->path);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted entries of one path made one item: the first grant and the first
 * execute grant naming it, exact only if every rule is. */
static size_t merge_items(sandy_view_item *items, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		const sandy_view_item *e = &items[i];
		sandy_view_item *it;

		if (out == 0 || strcmp(items[out - 1].path, e->path) != 0) {
			items[out++] = *e;
			continue;
		}
		it = &items[out - 1];
		if (e->grant < it->grant)
			it->grant = e->grant;
		if (e->exec < it->exec)
			it->exec = e->exec;
		it->all_exact &= e->all_exact;
		it->exact_grant |= e->exact_grant;
		it->rw_exact |= e->rw_exact;
		it->ex_exact |= e->ex_exact;
	}
	return out;
}

/* Whether one of the n sorted paths of set is p or a directory above it:
 * each of p's ancestors looked up (sandy_path_within's answer, in
 * O(depth log n)). */
static bool set_holds_above(const char *const *set, size_t n, const char *p)
{
	size_t len = strlen(p);

	for (size_t end = 1; end <= len; end++) {
		size_t lo = 0, hi = n;

		/* the prefixes "/" and each one ending before a slash, p last */
		if (end > 1 && end < len && p[end] != '/')
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strncmp(set[mid], p, end);

			if (c == 0 && set[mid][end] != '\0')
				c = 1;
			if (c == 0)
				return true;
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return false;
}

/* Every item's rules: the exact ones merged in, the subtree ones looked
 * up among the subtree grants above it. */
static int plan_items(const sandy_resolved *r, sandy_view_plan *out)
{
	const char **rw = calloc(r->n_grants + 1, sizeof(*rw));
	const char **ex = calloc(r->n_execs + 1, sizeof(*ex));
	size_t n_rw = 0, n_ex = 0;

	if (rw == NULL || ex == NULL) {
		free(rw);
		free(ex);
		return -1;
	}
	for (size_t i = 0; i < r->n_grants; i++) {
		const sandy_rgrant *g = &r->grants[i];
		bool writes = g->access == SANDY_ACCESS_READ_WRITE;

		out->items[out->n_items++] =
			rule_item(g->path, false, i, g->scope, writes);
		if (writes && g->scope == SANDY_SCOPE_SUBTREE)
			rw[n_rw++] = g->path;
	}
	for (size_t i = 0; i < r->n_execs; i++) {
		out->items[out->n_items++] = rule_item(
			r->execs[i].path, true, i, r->execs[i].scope, false);
		if (r->execs[i].scope == SANDY_SCOPE_SUBTREE)
			ex[n_ex++] = r->execs[i].path;
	}
	qsort(out->items, out->n_items, sizeof(*out->items), cmp_item);
	out->n_items = merge_items(out->items, out->n_items);
	qsort(rw, n_rw, sizeof(*rw), cmp_path);
	qsort(ex, n_ex, sizeof(*ex), cmp_path);
	for (size_t i = 0; i < out->n_items; i++) {
		sandy_view_item *it = &out->items[i];

		it->rw_subtree = set_holds_above(rw, n_rw, it->path);
		it->ex_subtree = set_holds_above(ex, n_ex, it->path);
		it->skip = strcmp(it->path, "/") == 0 ||
			   under_deny_subtree(r, it->path);
	}
	free(rw);
	free(ex);
	return 0;
}

/* A deny inside a denied subtree needs nothing more; of two equal denied
 * subtrees the first one acts. i counts deny_subtrees, then
 * deny_write_exact. */
static bool hidden_by_other_deny(const sandy_resolved *r, size_t i,
				 const char *p)
{
	for (size_t j = 0; j < r->n_deny_subtrees; j++) {
		const char *d = r->deny_subtrees[j].canonical;

		if (j == i || !sandy_path_within(d, p))
			continue;
		if (strcmp(d, p) != 0 || j < i)
			return true;
	}
	return false;
}

/* The outermost subtree grant or execute grant at or above p, NULL for
 * none (then nothing of the view shows it). */
static const char *hold_root(const sandy_resolved *r, const char *p)
{
	const char *root = NULL;

	for (size_t i = 0; i < r->n_grants + r->n_execs; i++) {
		const char *g = i < r->n_grants ? r->grants[i].path
						: r->execs[i - r->n_grants].path;
		sandy_scope scope = i < r->n_grants
					    ? r->grants[i].scope
					    : r->execs[i - r->n_grants].scope;

		if (scope == SANDY_SCOPE_SUBTREE && sandy_path_within(g, p) &&
		    (root == NULL || strlen(g) < strlen(root)))
			root = g;
	}
	return root;
}

/* The outermost read_write subtree grant at or above p, or NULL. */
static const char *writable_above(const sandy_resolved *r, const char *p)
{
	const char *w = NULL;

	for (size_t i = 0; i < r->n_grants; i++) {
		const sandy_rgrant *g = &r->grants[i];

		if (g->access == SANDY_ACCESS_READ_WRITE &&
		    g->scope == SANDY_SCOPE_SUBTREE &&
		    sandy_path_within(g->path, p) &&
		    (w == NULL || strlen(g->path) < strlen(w)))
			w = g->path;
	}
	return w;
}

/* A read_write grant covers p, or lies at or beneath it. */
static bool writable_around(const sandy_resolved *r, const char *p)
{
	for (size_t i = 0; i < r->n_grants; i++) {
		const sandy_rgrant *g = &r->grants[i];

		if (g->access == SANDY_ACCESS_READ_WRITE &&
		    ((g->scope == SANDY_SCOPE_SUBTREE &&
		      sandy_path_within(g->path, p)) ||
		     sandy_path_within(p, g->path)))
			return true;
	}
	return false;
}

int sandy_plan_holds(const sandy_resolved *r, bool with_view,
		     sandy_hold **out, size_t *n, sandy_error *err)
{
	size_t nd = r->n_deny_subtrees + r->n_deny_write_exact;

	*n = 0;
	*out = calloc(nd + 1, sizeof(**out));
	if (*out == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "plan: out of memory");
	for (size_t i = 0; i < nd; i++) {
		bool subtree = i < r->n_deny_subtrees;
		size_t k = subtree ? i : i - r->n_deny_subtrees;
		const sandy_rdeny *d = subtree ? &r->deny_subtrees[k]
					       : &r->deny_write_exact[k];
		const char *root = hold_root(r, d->canonical);

		if (root == NULL || strcmp(root, d->canonical) == 0 ||
		    hidden_by_other_deny(r, i, d->canonical) ||
		    (!subtree && !writable_around(r, d->canonical)))
			continue;
		(*out)[(*n)++] = (sandy_hold){
			.root = root, .path = d->canonical,
			.expect = &d->expect,
			.writable = with_view ? writable_above(r, d->canonical)
					      : NULL,
			.section = subtree ? "deny_subtrees"
					   : "deny_write_exact",
			.index = k};
	}
	return 0;
}

int sandy_plan_view(const sandy_resolved *r, sandy_view_plan *out,
		    sandy_error *err)
{
	size_t nd = r->n_deny_subtrees + r->n_deny_write_exact;

	memset(out, 0, sizeof(*out));
	out->items = calloc(r->n_grants + r->n_execs + 1, sizeof(*out->items));
	out->deny_hidden = calloc(nd + 1, sizeof(*out->deny_hidden));
	if (out->items == NULL || out->deny_hidden == NULL) {
		sandy_view_plan_free(out);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "plan: out of memory");
	}
	out->netns = r->network == SANDY_NETWORK_BLOCK_ALL;
	out->n_grants = r->n_grants;
	out->n_execs = r->n_execs;
	out->tmpfs = r->tmpfs;
	out->n_tmpfs = r->n_tmpfs;
	out->anchors = r->anchors;
	out->n_anchors = r->n_anchors;
	out->cwd = r->cwd;
	if (plan_items(r, out) != 0) {
		sandy_view_plan_free(out);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "plan: out of memory");
	}
	out->n_denies = nd;
	out->n_deny_subtrees = r->n_deny_subtrees;
	for (size_t i = 0; i < nd; i++) {
		const char *p = i < r->n_deny_subtrees
					? r->deny_subtrees[i].canonical
					: r->deny_write_exact[i - r->n_deny_subtrees]
						  .canonical;

		out->deny_hidden[i] = hidden_by_other_deny(r, i, p);
		/* at most one ancestor per path component of each deny */
		for (const char *s = p; *s; s++)
			out->anc_slots += *s == '/';
	}
	for (size_t i = 0; i < r->n_anchors; i++)
		for (const char *s = r->anchors[i]; *s; s++)
			out->anc_slots += *s == '/';
	return 0;
}

void sandy_view_plan_free(sandy_view_plan *p)
{
	free(p->items);
	free(p->deny_hidden);
	memset(p, 0, sizeof(*p));
}

/* ---- seccomp ---------------------------------------------------------- */

unsigned sandy_plan_seccomp(const sandy_resolved *r,
			    const sandy_host_facts *f)
{
	unsigned v = f->with_view ? 0 : FILTER_HOST_PIDS;

	if (r->network == SANDY_NETWORK_BLOCK_ALL)
		v |= FILTER_NET_BLOCKED;
	if (r->allow_subprocesses)
		v |= FILTER_SUBPROCESSES;
	return v;
}

/* ---- the whole plan --------------------------------------------------- */

int sandy_make_plan(const sandy_resolved *r, const sandy_host_facts *f,
		    sandy_plan *out, sandy_error *err)
{
	memset(out, 0, sizeof(*out));
	if (sandy_plan_landlock(r, f, &out->landlock, err) != 0)
		return -1;
	/* (launcher.c refuses --tmpfs with --landlock-only before
	 * resolution, in the same words: this is the rule, that the order) */
	if (!f->with_view && r->n_tmpfs > 0) {
		sandy_plan_free(out);
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "a private temp area needs the full level");
	}
	if ((f->with_view && sandy_plan_view(r, &out->view, err) != 0) ||
	    sandy_plan_holds(r, f->with_view, &out->holds, &out->n_holds,
			     err) != 0) {
		sandy_plan_free(out);
		return -1;
	}
	out->with_view = f->with_view;
	out->seccomp_variant = sandy_plan_seccomp(r, f);
	return 0;
}

/* Without the view nothing governs chmod, chown, utime or xattr changes,
 * which for uid 0 reach every file root owns: that level refuses it. */
int sandy_plan_admit_uid(const sandy_plan *p, bool root, sandy_error *err)
{
	if (!p->with_view && root)
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "the Landlock-only level does not confine "
				  "uid 0 (chmod and chown are not governed "
				  "without a view)");
	return 0;
}

void sandy_plan_free(sandy_plan *p)
{
	sandy_ll_plan_free(&p->landlock);
	sandy_view_plan_free(&p->view);
	free(p->holds);
	memset(p, 0, sizeof(*p));
}

/* The plan (csrc/linux/plan.h): every decision the Linux launcher makes
 * from a resolved policy and host facts alone. Resolved policies are built
 * in memory; nothing is opened, no privilege or kernel feature is needed.
 * Built by csrc/Makefile (c-tests). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linux/plan.h"
#include "../linux/seccomp_build.h"
#include "../core/paths.h"
#include "../core/protocol.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define RO_ALL (MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC | \
		MOUNT_ATTR_NODEV)

static void report(bool ok, const char *name, const char *why)
{
	if (!tap_check(ok, name))
		tap_diag("%s", why);
}

/* A resolved policy in memory: paths need not exist. */
typedef struct pol {
	sandy_resolved r;
	sandy_rgrant g[8];
	sandy_rexec x[4];
	sandy_rdeny ds[8], dw[8];
	const char *tmpfs[4];
} pol;

static void pol_init(pol *p, sandy_network net, bool subprocesses)
{
	memset(p, 0, sizeof(*p));
	p->r.cwd = "/";
	p->r.network = net;
	p->r.allow_subprocesses = subprocesses;
	p->r.grants = p->g;
	p->r.execs = p->x;
	p->r.deny_subtrees = p->ds;
	p->r.deny_write_exact = p->dw;
	p->r.tmpfs = p->tmpfs;
}

static void grant(pol *p, const char *path, sandy_access a, sandy_scope s)
{
	p->g[p->r.n_grants++] = (sandy_rgrant){.path = (char *)path,
					       .access = a, .scope = s};
}

static void exec_grant(pol *p, const char *path, sandy_scope s)
{
	p->x[p->r.n_execs++] = (sandy_rexec){.path = (char *)path, .scope = s};
}

static void deny_subtree(pol *p, const char *path, const char *lexical)
{
	p->ds[p->r.n_deny_subtrees++] =
		(sandy_rdeny){.canonical = (char *)path,
			      .lexical = (char *)lexical};
}

static void deny_write(pol *p, const char *path)
{
	p->dw[p->r.n_deny_write_exact++] =
		(sandy_rdeny){.canonical = (char *)path};
}

static void tmpfs(pol *p, const char *path)
{
	p->tmpfs[p->r.n_tmpfs++] = path;
}

/* ---- seccomp ---------------------------------------------------------- */

static void test_seccomp(void)
{
	static const struct {
		const char *name;
		sandy_network net;
		bool sub;
		unsigned want;
		bool no_view; /* the Landlock-only level */
	} cases[] = {
		{"seccomp: network allowed, no subprocesses",
		 SANDY_NETWORK_ALLOW_ALL, false, 0, false},
		{"seccomp: network blocked", SANDY_NETWORK_BLOCK_ALL, false,
		 FILTER_NET_BLOCKED, false},
		{"seccomp: subprocesses allowed", SANDY_NETWORK_ALLOW_ALL, true,
		 FILTER_SUBPROCESSES, false},
		{"seccomp: network blocked, subprocesses allowed",
		 SANDY_NETWORK_BLOCK_ALL, true,
		 FILTER_NET_BLOCKED | FILTER_SUBPROCESSES, false},
		{"seccomp: the Landlock-only level keeps host processes out",
		 SANDY_NETWORK_ALLOW_ALL, true,
		 FILTER_SUBPROCESSES | FILTER_HOST_PIDS, true},
		{"seccomp: the Landlock-only level, network blocked",
		 SANDY_NETWORK_BLOCK_ALL, false,
		 FILTER_NET_BLOCKED | FILTER_HOST_PIDS, true},
	};

	for (size_t i = 0; i < N(cases); i++) {
		pol p;
		sandy_plan plan;
		sandy_host_facts f = {6, !cases[i].no_view};
		sandy_error err = {0};
		char why[64];
		unsigned got;
		int rc;

		pol_init(&p, cases[i].net, cases[i].sub);
		grant(&p, "/", SANDY_ACCESS_READ, SANDY_SCOPE_EXACT);
		rc = sandy_make_plan(&p.r, &f, &plan, &err);
		got = rc == 0 ? plan.seccomp_variant : 99;
		snprintf(why, sizeof(why), "variant %u, want %u", got,
			 cases[i].want);
		report(rc == 0 && got == cases[i].want &&
			       sandy_plan_seccomp(&p.r, &f) == cases[i].want &&
			       cases[i].want < FILTER_VARIANTS,
		       cases[i].name, why);
		if (rc == 0)
			sandy_plan_free(&plan);
	}
}

/* ---- Landlock: the ABI ------------------------------------------------ */

static void test_landlock_abi(void)
{
	static const struct {
		int abi;
		uint64_t fs;
	} handled[] = {
		{1, FS_ABI1},
		{2, FS_ABI1 | LL(REFER)},
		{3, FS_ABI1 | LL(REFER) | LL(TRUNCATE)},
		{4, FS_ABI1 | LL(REFER) | LL(TRUNCATE)},
		{5, FS_ABI1 | LL(REFER) | LL(TRUNCATE) | LL(IOCTL_DEV)},
		{6, FS_ABI1 | LL(REFER) | LL(TRUNCATE) | LL(IOCTL_DEV)},
		{7, FS_ABI1 | LL(REFER) | LL(TRUNCATE) | LL(IOCTL_DEV)},
	};
	/* the messages the launcher has always printed */
	static const struct {
		const char *name;
		int abi;
		sandy_network net;
		const char *want; /* NULL: planned */
	} refusals[] = {
		{"landlock: absent (ABI 0) is refused", 0,
		 SANDY_NETWORK_ALLOW_ALL, "landlock is not available"},
		{"landlock: a failed query (-1) is refused", -1,
		 SANDY_NETWORK_ALLOW_ALL, "landlock is not available"},
		{"landlock: ABI 3 cannot block TCP", 3, SANDY_NETWORK_BLOCK_ALL,
		 "landlock ABI 3 cannot block TCP (needs 4)"},
		{"landlock: ABI 1 with a blocked network names TCP first", 1,
		 SANDY_NETWORK_BLOCK_ALL,
		 "landlock ABI 1 cannot block TCP (needs 4)"},
		{"landlock: ABI 3, network allowed, needs scoping", 3,
		 SANDY_NETWORK_ALLOW_ALL,
		 "landlock ABI 3 cannot scope signals and abstract sockets "
		 "(needs 6)"},
		{"landlock: ABI 5 cannot scope", 5, SANDY_NETWORK_BLOCK_ALL,
		 "landlock ABI 5 cannot scope signals and abstract sockets "
		 "(needs 6)"},
		{"landlock: ABI 6 with a blocked network is planned", 6,
		 SANDY_NETWORK_BLOCK_ALL, NULL},
		{"landlock: ABI 7 is planned", 7, SANDY_NETWORK_ALLOW_ALL, NULL},
	};

	for (size_t i = 0; i < N(handled); i++) {
		char name[64], why[80];
		uint64_t got = sandy_ll_handled_fs(handled[i].abi);

		snprintf(name, sizeof(name), "landlock: rights handled at ABI %d",
			 handled[i].abi);
		snprintf(why, sizeof(why), "%#llx, want %#llx",
			 (unsigned long long)got,
			 (unsigned long long)handled[i].fs);
		report(got == handled[i].fs, name, why);
	}
	for (size_t i = 0; i < N(refusals); i++) {
		pol p;
		sandy_plan plan;
		sandy_host_facts f = {refusals[i].abi, true};
		sandy_error err = {0};
		int rc;
		bool ok;

		pol_init(&p, refusals[i].net, false);
		grant(&p, "/", SANDY_ACCESS_READ, SANDY_SCOPE_EXACT);
		rc = sandy_make_plan(&p.r, &f, &plan, &err);
		if (refusals[i].want == NULL) {
			bool block = refusals[i].net == SANDY_NETWORK_BLOCK_ALL;

			ok = rc == 0 && plan.landlock.abi == refusals[i].abi &&
			     plan.landlock.handled_fs ==
				     sandy_ll_handled_fs(refusals[i].abi) &&
			     plan.landlock.handled_net ==
				     (block ? LANDLOCK_ACCESS_NET_BIND_TCP |
						      LANDLOCK_ACCESS_NET_CONNECT_TCP
					    : 0) &&
			     plan.landlock.scoped ==
				     (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
				      LANDLOCK_SCOPE_SIGNAL) &&
			     plan.view.netns == block;
		} else {
			ok = rc != 0 && err.kind == SANDY_ERR_UNSUPPORTED &&
			     strcmp(err.message, refusals[i].want) == 0;
		}
		report(ok, refusals[i].name, rc == 0 ? "planned" : err.message);
		if (rc == 0)
			sandy_plan_free(&plan);
	}
}

/* ---- Landlock: the rules ---------------------------------------------- */

static bool rule_is(const sandy_ll_rule *r, const char *path, uint64_t rights,
		    sandy_scope scope, bool rw_device, const char *section,
		    size_t index)
{
	return strcmp(r->path, path) == 0 && r->rights == rights &&
	       r->scope == scope && r->rw_device == rw_device &&
	       strcmp(r->section, section) == 0 && r->index == index;
}

static void test_landlock_rules(void)
{
	const uint64_t rw = FS_READ_RIGHTS | FS_WRITE_RIGHTS;
	pol p;
	sandy_ll_plan lp;
	sandy_host_facts f = {6, false};
	sandy_error err = {0};
	bool ok;

	pol_init(&p, SANDY_NETWORK_ALLOW_ALL, true);
	grant(&p, "/usr", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	grant(&p, "/work/secret/x", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	grant(&p, "/work", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	grant(&p, "/dev/null", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_EXACT);
	exec_grant(&p, "/usr", SANDY_SCOPE_SUBTREE);
	exec_grant(&p, "/work/secret/tool", SANDY_SCOPE_EXACT);
	deny_subtree(&p, "/work/secret", NULL);
	tmpfs(&p, "/tmp");
	ok = sandy_plan_landlock(&p.r, &f, &lp, &err) == 0;
	report(ok && lp.n_rules == 5 &&
		       rule_is(&lp.rules[0], "/usr", FS_READ_RIGHTS,
			       SANDY_SCOPE_SUBTREE, false, "grants", 0) &&
		       rule_is(&lp.rules[1], "/work", rw & ~LL(IOCTL_DEV),
			       SANDY_SCOPE_SUBTREE, true, "grants", 2) &&
		       rule_is(&lp.rules[2], "/dev/null", rw,
			       SANDY_SCOPE_EXACT, true, "grants", 3) &&
		       rule_is(&lp.rules[3], "/tmp", TMPFS_RIGHTS & ~LL(IOCTL_DEV),
			       SANDY_SCOPE_SUBTREE, false, "tmpfs", 0) &&
		       rule_is(&lp.rules[4], "/usr", LL(EXECUTE),
			       SANDY_SCOPE_SUBTREE, false,
			       "executable_grants", 0) &&
		       lp.rules[0].expect == &p.g[0].expect &&
		       lp.rules[3].expect == NULL,
	       "landlock: rules in order, denied ones left out, sections "
	       "and indexes kept",
	       ok ? "rules differ" : err.message);
	if (ok)
		sandy_ll_plan_free(&lp);
}

/* The rights of nodes around denies, with and without the view. */
static void test_landlock_narrowing(void)
{
	const uint64_t rw = FS_READ_RIGHTS | FS_WRITE_RIGHTS;
	pol p;
	sandy_ll_plan without = {.with_view = false};
	sandy_ll_plan with = {.with_view = true};
	sandy_node_class root, secret, inside, lock_parent, locked, link_parent;

	pol_init(&p, SANDY_NETWORK_ALLOW_ALL, false);
	grant(&p, "/work", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	deny_subtree(&p, "/work/a/secret", "/work/link/secret");
	deny_write(&p, "/work/b/keep");
	root = sandy_ll_classify(&p.r, "/work");
	secret = sandy_ll_classify(&p.r, "/work/a/secret");
	inside = sandy_ll_classify(&p.r, "/work/a/secret/x");
	lock_parent = sandy_ll_classify(&p.r, "/work/b");
	locked = sandy_ll_classify(&p.r, "/work/b/keep");
	link_parent = sandy_ll_classify(&p.r, "/work/link");
	report(root.above_deny && root.above_lock && root.above_link &&
		       !root.hidden && secret.hidden && inside.hidden &&
		       lock_parent.above_lock && !lock_parent.above_deny &&
		       locked.locked && !locked.above_lock &&
		       link_parent.above_link && link_parent.above_deny,
	       "landlock: nodes classified by both spellings of each deny",
	       "a class differs");
	report(sandy_ll_narrow(&without, rw, root) == LL(READ_DIR) &&
		       sandy_ll_needs_expansion(&without, rw, root, true) &&
		       sandy_ll_narrow(&without, rw, lock_parent) ==
			       (rw & ~FS_WRITE_RIGHTS) &&
		       sandy_ll_needs_expansion(&without, rw, lock_parent, true) &&
		       !sandy_ll_needs_expansion(&without, FS_READ_RIGHTS,
						 lock_parent, true) &&
		       !sandy_ll_needs_expansion(&without, rw, root, false),
	       "landlock: without the view, directories above a deny are "
	       "narrowed and expanded",
	       "narrowing differs");
	report(sandy_ll_narrow(&with, rw, lock_parent) == rw &&
		       !sandy_ll_needs_expansion(&with, rw, lock_parent, true) &&
		       sandy_ll_narrow(&with, rw, link_parent) == LL(READ_DIR) &&
		       sandy_ll_needs_expansion(&with, rw, link_parent, true) &&
		       sandy_ll_narrow(&with, rw, locked) ==
			       (rw & ~FS_WRITE_RIGHTS),
	       "landlock: with the view, only a lexical spelling and the "
	       "locked object narrow",
	       "narrowing differs");
	report(sandy_ll_exact_rights(rw, true, false, true) == LL(READ_DIR) &&
		       sandy_ll_exact_rights(rw, false, true, true) ==
			       (rw | LL(IOCTL_DEV)) &&
		       sandy_ll_exact_rights(FS_READ_RIGHTS, false, true,
					     false) == FS_READ_RIGHTS &&
		       sandy_ll_exact_rights(rw, false, false, true) ==
			       (rw & ~LL(IOCTL_DEV)),
	       "landlock: exact rules: a directory lists, a read_write "
	       "device keeps IOCTL_DEV",
	       "exact rights differ");
}

/* ---- refusals of the level -------------------------------------------- */

static void test_level(void)
{
	pol p;
	sandy_plan plan;
	sandy_host_facts only = {6, false}, full = {6, true};
	sandy_error err = {0};
	int rc;

	pol_init(&p, SANDY_NETWORK_ALLOW_ALL, false);
	grant(&p, "/", SANDY_ACCESS_READ, SANDY_SCOPE_EXACT);
	tmpfs(&p, "/tmp");
	rc = sandy_make_plan(&p.r, &only, &plan, &err);
	report(rc != 0 && err.kind == SANDY_ERR_UNSUPPORTED &&
		       strcmp(err.message,
			      "a private temp area needs the full level") == 0,
	       "level: a private temp area at the Landlock-only level",
	       rc == 0 ? "planned" : err.message);
	if (rc == 0)
		sandy_plan_free(&plan);

	p.r.n_tmpfs = 0;
	rc = sandy_make_plan(&p.r, &only, &plan, &err);
	report(rc == 0 && !plan.with_view && plan.view.n_items == 0 &&
		       !plan.landlock.with_view &&
		       sandy_plan_admit_uid(&plan, false, &err) == 0 &&
		       sandy_plan_admit_uid(&plan, true, &err) != 0 &&
		       err.kind == SANDY_ERR_UNSUPPORTED &&
		       strcmp(err.message,
			      "the Landlock-only level does not confine uid 0 "
			      "(chmod and chown are not governed without a "
			      "view)") == 0,
	       "level: Landlock-only plans no view and refuses uid 0",
	       err.message);
	if (rc == 0)
		sandy_plan_free(&plan);

	rc = sandy_make_plan(&p.r, &full, &plan, &err);
	report(rc == 0 && plan.with_view && plan.landlock.with_view &&
		       plan.view.n_items == 1 &&
		       sandy_plan_admit_uid(&plan, true, &err) == 0,
	       "level: the full level admits uid 0", "refused");
	if (rc == 0)
		sandy_plan_free(&plan);
}

/* ---- the view --------------------------------------------------------- */

static const sandy_view_item *item(const sandy_view_plan *v, const char *path)
{
	for (size_t i = 0; i < v->n_items; i++)
		if (strcmp(v->items[i].path, path) == 0)
			return &v->items[i];
	return NULL;
}

static void test_view_grants(void)
{
	static const char *const order[] = {"/", "/dev/null", "/opt/tool", "/usr",
					    "/work",
					    "/work/secret/x", "/work/sub"};
	const unsigned rw_dir = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC |
				MOUNT_ATTR_NODEV;
	pol p;
	sandy_view_plan v;
	sandy_error err = {0};
	const sandy_view_item *it;
	bool ok;

	pol_init(&p, SANDY_NETWORK_BLOCK_ALL, false);
	grant(&p, "/work", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	grant(&p, "/usr", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	grant(&p, "/", SANDY_ACCESS_READ, SANDY_SCOPE_EXACT);
	grant(&p, "/work/sub", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	grant(&p, "/dev/null", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_EXACT);
	grant(&p, "/work/secret/x", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	exec_grant(&p, "/usr", SANDY_SCOPE_SUBTREE);
	exec_grant(&p, "/opt/tool", SANDY_SCOPE_EXACT);
	deny_subtree(&p, "/work/secret", NULL);
	tmpfs(&p, "/tmp");
	p.r.cwd = "/work";
	if (sandy_plan_view(&p.r, &v, &err) != 0) {
		report(false, "view: a grant subtree plan", err.message);
		return;
	}
	ok = v.n_items == N(order);
	for (size_t i = 0; ok && i < N(order); i++)
		ok = strcmp(v.items[i].path, order[i]) == 0;
	report(ok, "view: one item per path, sorted", "order differs");
	report(v.n_grants == p.r.n_grants && v.n_execs == p.r.n_execs &&
		       v.n_denies == p.r.n_deny_subtrees + p.r.n_deny_write_exact,
	       "view: the plan records the counts its pins must have",
	       "counts differ");

	it = item(&v, "/usr");
	report(it != NULL && it->grant == 1 && it->exec == 0 &&
		       !it->all_exact && !it->skip &&
		       sandy_view_attr(it, true, false) ==
			       (MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY |
				MOUNT_ATTR_NODEV),
	       "view: a grant and an execute grant of one path merge: "
	       "read-only, exec allowed",
	       "item differs");
	it = item(&v, "/opt/tool");
	report(it != NULL && it->grant == SIZE_MAX && it->exec == 1 &&
		       it->all_exact &&
		       sandy_view_attr(it, false, false) ==
			       (MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY |
				MOUNT_ATTR_NODEV) &&
		       sandy_view_attr(it, true, false) == RO_ALL,
	       "view: an exact execute grant counts for a file only",
	       "item differs");
	it = item(&v, "/work");
	report(it != NULL && sandy_view_attr(it, true, false) == rw_dir,
	       "view: a read_write subtree is writable, noexec", "attr");
	it = item(&v, "/work/sub");
	report(it != NULL && it->rw_subtree &&
		       sandy_view_attr(it, true, false) == rw_dir,
	       "view: a read grant inside a writable one stays writable",
	       "attr");
	it = item(&v, "/");
	report(it != NULL && it->skip && it->all_exact,
	       "view: the root grant is the skeleton, never mounted", "item");
	it = item(&v, "/work/secret/x");
	report(it != NULL && it->skip,
	       "view: a grant beneath a denied subtree is not mounted",
	       "item");
	it = item(&v, "/dev/null");
	report(it != NULL && it->all_exact && it->exact_grant &&
		       sandy_view_attr(it, false, true) ==
			       (MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY |
				MOUNT_ATTR_NOEXEC) &&
		       sandy_view_attr(it, false, false) == rw_dir &&
		       sandy_view_attr(it, true, false) == RO_ALL,
	       "view: an exact read_write device is read-only with dev; a "
	       "file writable; a directory read-only",
	       "attr");
	report(v.netns && v.n_tmpfs == 1 && strcmp(v.tmpfs[0], "/tmp") == 0 &&
		       strcmp(v.cwd, "/work") == 0,
	       "view: a network namespace, the temp area, the working "
	       "directory",
	       "differs");
	sandy_view_plan_free(&v);
}

/* Many rules on paths that sort between a directory and its children
 * ("/a b", "/a-b" come between "/a" and "/a/b"): every item as a rule-by-
 * rule reading of sandy_path_within says, over 200 generated policies. */
static bool item_as_rules(const sandy_resolved *r, const sandy_view_item *it)
{
	sandy_view_item want = {.path = it->path, .grant = SIZE_MAX,
				.exec = SIZE_MAX, .all_exact = true};

	for (size_t i = 0; i < r->n_grants; i++) {
		const sandy_rgrant *g = &r->grants[i];
		bool here = strcmp(g->path, it->path) == 0;
		bool rw = g->access == SANDY_ACCESS_READ_WRITE;

		if (here && want.grant == SIZE_MAX)
			want.grant = i;
		if (here)
			want.all_exact &= g->scope == SANDY_SCOPE_EXACT;
		if (g->scope == SANDY_SCOPE_EXACT) {
			want.exact_grant |= here;
			want.rw_exact |= here && rw;
		} else {
			want.rw_subtree |= rw && sandy_path_within(g->path,
								   it->path);
		}
	}
	for (size_t i = 0; i < r->n_execs; i++) {
		const sandy_rexec *x = &r->execs[i];
		bool here = strcmp(x->path, it->path) == 0;

		if (here && want.exec == SIZE_MAX)
			want.exec = i;
		if (here)
			want.all_exact &= x->scope == SANDY_SCOPE_EXACT;
		if (x->scope == SANDY_SCOPE_EXACT)
			want.ex_exact |= here;
		else
			want.ex_subtree |= sandy_path_within(x->path, it->path);
	}
	want.skip = strcmp(it->path, "/") == 0;
	for (size_t i = 0; i < r->n_deny_subtrees; i++)
		want.skip |= sandy_path_within(r->deny_subtrees[i].canonical,
					       it->path);
	return (want.grant != SIZE_MAX || want.exec != SIZE_MAX) &&
	       it->grant == want.grant && it->exec == want.exec &&
	       it->all_exact == want.all_exact && it->skip == want.skip &&
	       it->rw_subtree == want.rw_subtree &&
	       it->rw_exact == want.rw_exact &&
	       it->ex_subtree == want.ex_subtree &&
	       it->ex_exact == want.ex_exact &&
	       it->exact_grant == want.exact_grant;
}

static void test_view_items_match_rules(void)
{
	static const char *const paths[] = {
		"/", "/a", "/a b", "/a-b", "/a/b", "/a/b c", "/a/b-c",
		"/a/b/c", "/a/bc", "/ab", "/a/b/c/d", "/z", "/z/a"};
	static sandy_rgrant g[40];
	static sandy_rexec x[20];
	static sandy_rdeny ds[2];
	unsigned seed = 12345;
	bool ok = true;
	char why[160] = "";

#define NEXT() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)
	for (int round = 0; ok && round < 200; round++) {
		sandy_resolved r = {.cwd = "/", .grants = g, .execs = x,
				    .deny_subtrees = ds};
		sandy_view_plan v;
		sandy_error err = {0};
		size_t distinct = 0;

		r.n_grants = 1 + NEXT() % N(g);
		r.n_execs = NEXT() % N(x);
		r.n_deny_subtrees = NEXT() % 3;
		for (size_t i = 0; i < r.n_grants; i++)
			g[i] = (sandy_rgrant){
				.path = (char *)paths[NEXT() % N(paths)],
				.access = NEXT() % 2 ? SANDY_ACCESS_READ_WRITE
						     : SANDY_ACCESS_READ,
				.scope = NEXT() % 2 ? SANDY_SCOPE_EXACT
						    : SANDY_SCOPE_SUBTREE};
		for (size_t i = 0; i < r.n_execs; i++)
			x[i] = (sandy_rexec){
				.path = (char *)paths[NEXT() % N(paths)],
				.scope = NEXT() % 2 ? SANDY_SCOPE_EXACT
						    : SANDY_SCOPE_SUBTREE};
		for (size_t i = 0; i < r.n_deny_subtrees; i++)
			ds[i] = (sandy_rdeny){
				.canonical = (char *)paths[1 + NEXT() %
							       (N(paths) - 1)]};
		if (sandy_plan_view(&r, &v, &err) != 0) {
			snprintf(why, sizeof(why), "round %d: %.100s", round,
				 err.message);
			ok = false;
			break;
		}
		for (size_t k = 0; k < N(paths); k++) {
			bool named = false;

			for (size_t i = 0; i < r.n_grants; i++)
				named |= strcmp(g[i].path, paths[k]) == 0;
			for (size_t i = 0; i < r.n_execs; i++)
				named |= strcmp(x[i].path, paths[k]) == 0;
			distinct += named;
		}
		ok = v.n_items == distinct;
		for (size_t i = 0; ok && i < v.n_items; i++) {
			ok = item_as_rules(&r, &v.items[i]) &&
			     (i == 0 || strcmp(v.items[i - 1].path,
					       v.items[i].path) < 0);
			if (!ok)
				snprintf(why, sizeof(why), "round %d: %s",
					 round, v.items[i].path);
		}
		if (!ok && why[0] == '\0')
			snprintf(why, sizeof(why), "round %d: %zu items, %zu "
				 "paths", round, v.n_items, distinct);
		sandy_view_plan_free(&v);
	}
#undef NEXT
	report(ok, "view: every item of 200 generated policies is what its "
		   "rules say, sorted, one per path", why);
}

static void test_view_denies(void)
{
	pol p;
	sandy_view_plan v;
	sandy_error err = {0};

	pol_init(&p, SANDY_NETWORK_ALLOW_ALL, false);
	grant(&p, "/work", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	deny_subtree(&p, "/work/a", NULL);
	deny_subtree(&p, "/work/a/b", NULL);
	deny_subtree(&p, "/work/a", NULL);
	deny_subtree(&p, "/work/c", NULL);
	deny_write(&p, "/work/a/keep");
	deny_write(&p, "/work/d/keep");
	deny_write(&p, "/work/c");
	if (sandy_plan_view(&p.r, &v, &err) != 0) {
		report(false, "view: denies", err.message);
		return;
	}
	report(v.n_denies == 7 && v.n_deny_subtrees == 4 &&
		       !v.deny_hidden[0] && v.deny_hidden[1] &&
		       v.deny_hidden[2] && !v.deny_hidden[3] &&
		       v.deny_hidden[4] && !v.deny_hidden[5] &&
		       v.deny_hidden[6],
	       "view: a deny inside or equal to an earlier denied subtree "
	       "needs nothing more",
	       "hidden differs");
	report(v.anc_slots == 2 + 3 + 2 + 2 + 3 + 3 + 2 && !v.netns,
	       "view: room for every directory above each deny", "slots");
	sandy_view_plan_free(&v);
}

/* The hold of deny section[index], or NULL. */
static const sandy_hold *hold(const sandy_hold *h, size_t n,
			      const char *section, size_t index)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(h[i].section, section) == 0 && h[i].index == index)
			return &h[i];
	return NULL;
}

static bool held_from(const sandy_hold *h, size_t n, const char *section,
		      size_t index, const char *root)
{
	const sandy_hold *x = hold(h, n, section, index);

	return x != NULL && strcmp(x->root, root) == 0;
}

static void test_holds(void)
{
	pol p;
	sandy_hold *h, *ll;
	size_t n, n_ll;
	sandy_error err = {0};

	pol_init(&p, SANDY_NETWORK_ALLOW_ALL, false);
	grant(&p, "/home", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	grant(&p, "/home/u/ws", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_SUBTREE);
	grant(&p, "/srv/ro", SANDY_ACCESS_READ, SANDY_SCOPE_SUBTREE);
	grant(&p, "/opt/one", SANDY_ACCESS_READ_WRITE, SANDY_SCOPE_EXACT);
	grant(&p, "/", SANDY_ACCESS_READ, SANDY_SCOPE_EXACT);
	exec_grant(&p, "/usr", SANDY_SCOPE_SUBTREE);
	deny_subtree(&p, "/home/u/.ssh", NULL);        /* 0 */
	deny_subtree(&p, "/home/u/ws/secret", NULL);   /* 1 */
	deny_subtree(&p, "/home/u/ws/secret/x", NULL); /* 2: inside 1 */
	deny_subtree(&p, "/srv/ro", NULL);             /* 3: a grant root */
	deny_subtree(&p, "/etc/shadow", NULL);         /* 4: in no grant */
	deny_subtree(&p, "/usr/lib/k", NULL);          /* 5: an execute grant */
	deny_write(&p, "/home/u/ws/.git/config");      /* 0 */
	deny_write(&p, "/srv/ro/file");                /* 1: read-only */
	deny_write(&p, "/home/u");                     /* 2: holds a rw grant */
	deny_write(&p, "/opt/one");                    /* 3: exact rw grant */
	deny_write(&p, "/home/u/ws/secret/y");         /* 4: inside 1 */
	if (sandy_plan_holds(&p.r, true, &h, &n, &err) != 0 ||
	    sandy_plan_holds(&p.r, false, &ll, &n_ll, &err) != 0) {
		report(false, "holds", err.message);
		return;
	}
	report(held_from(h, n, "deny_subtrees", 0, "/home") &&
		       held_from(h, n, "deny_subtrees", 1, "/home") &&
		       held_from(h, n, "deny_write_exact", 0, "/home"),
	       "holds: a deny is watched from the outermost subtree grant "
	       "above it (a nested grant's place is a name of the outer one)",
	       "root differs");
	report(held_from(h, n, "deny_subtrees", 5, "/usr"),
	       "holds: an execute grant is a mount like a grant", "root");
	report(hold(h, n, "deny_subtrees", 2) == NULL &&
		       hold(h, n, "deny_write_exact", 4) == NULL,
	       "holds: nothing inside a denied subtree (its cover hides it)",
	       "held");
	report(hold(h, n, "deny_subtrees", 3) == NULL,
	       "holds: none for a deny at a grant's own root (mounted from "
	       "its descriptor)",
	       "held");
	report(hold(h, n, "deny_subtrees", 4) == NULL &&
		       hold(h, n, "deny_write_exact", 3) == NULL,
	       "holds: none for a deny no subtree grant shows", "held");
	report(hold(h, n, "deny_write_exact", 1) == NULL,
	       "holds: none for a write deny in a read-only grant (a new "
	       "object there is read-only too)",
	       "held");
	report(held_from(h, n, "deny_write_exact", 2, "/home"),
	       "holds: a write deny that holds a writable grant", "root");
	report(hold(h, n, "deny_subtrees", 0)->writable == NULL &&
		       strcmp(hold(h, n, "deny_subtrees", 1)->writable,
			      "/home/u/ws") == 0 &&
		       hold(h, n, "deny_write_exact", 2)->writable == NULL,
	       "holds: each knows from where down the command may write",
	       "writable differs");
	report(n == 5 && strcmp(hold(h, n, "deny_subtrees", 0)->path,
				"/home/u/.ssh") == 0,
	       "holds: five, each with its path", "count");
	report(n_ll == n && hold(ll, n_ll, "deny_subtrees", 1)->writable == NULL,
	       "holds: the same at the Landlock-only level, where the command "
	       "can make nothing on the way",
	       "differs");
	free(h);
	free(ll);
}

int main(void)
{
	test_seccomp();
	test_landlock_abi();
	test_landlock_rules();
	test_landlock_narrowing();
	test_level();
	test_view_grants();
	test_view_items_match_rules();
	test_holds();
	test_view_denies();
	return tap_done();
}

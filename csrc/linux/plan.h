/* The plan (apply.c's step 0): every decision about a resolved policy that
 * needs nothing but the policy and a few host facts passed in as values.
 * No system call is made here, no path is opened or examined: what needs
 * the filesystem (the type of an object, a directory's entries for sibling
 * expansion, which mount a path lies on) is decided by the steps that pin,
 * check and apply, from the plan and what they find. That split lets the
 * decisions be tested without root (csrc/test/plan_test.c).
 *
 * The plan has its own header rather than living in linux.h: it carries
 * the Landlock right sets and the view's attribute function, which the
 * tests include without the rest of the backend. Every string in a plan is
 * borrowed from the resolved policy, which must outlive it. */
#ifndef SANDY_PLAN_H
#define SANDY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"
#include "../core/resolve.h"
#include "../core/sys.h" /* constants only: the plan calls none of its wrappers */

/* Landlock rights. */
#define LL(x) LANDLOCK_ACCESS_FS_##x
#define FS_ABI1                                                             \
	(LL(EXECUTE) | LL(WRITE_FILE) | LL(READ_FILE) | LL(READ_DIR) |      \
	 LL(REMOVE_DIR) | LL(REMOVE_FILE) | LL(MAKE_CHAR) | LL(MAKE_DIR) |  \
	 LL(MAKE_REG) | LL(MAKE_SOCK) | LL(MAKE_FIFO) | LL(MAKE_BLOCK) |    \
	 LL(MAKE_SYM))
#define FS_READ_RIGHTS (LL(READ_FILE) | LL(READ_DIR))
#define FS_WRITE_RIGHTS                                                     \
	(LL(WRITE_FILE) | LL(REMOVE_DIR) | LL(REMOVE_FILE) | LL(MAKE_CHAR) | \
	 LL(MAKE_DIR) | LL(MAKE_REG) | LL(MAKE_SOCK) | LL(MAKE_FIFO) |      \
	 LL(MAKE_BLOCK) | LL(MAKE_SYM) | LL(REFER) | LL(TRUNCATE) |         \
	 LL(IOCTL_DEV))
/* The only rights landlock_add_rule accepts on a non-directory. */
#define FS_FILE_RIGHTS                                                      \
	(LL(EXECUTE) | LL(WRITE_FILE) | LL(READ_FILE) | LL(TRUNCATE) |      \
	 LL(IOCTL_DEV))
/* A private temp area is the launcher's own empty tmpfs: everything. */
#define TMPFS_RIGHTS (FS_READ_RIGHTS | FS_WRITE_RIGHTS | LL(EXECUTE))

/* What the plan needs to know about the host, measured by the caller. */
typedef struct sandy_host_facts {
	int landlock_abi; /* sandy_landlock_abi(): 0 when absent */
	bool with_view;   /* the full level: namespaces and the view */
} sandy_host_facts;

/* ---- Landlock --------------------------------------------------------- */

/* One rule path: a grant, a private temp area or an execute grant, in
 * that order. Entries at or beneath a denied subtree are left out (deny
 * beats grant). */
typedef struct sandy_ll_rule {
	const char *path;
	/* before the object's type narrows them (landlock.c); a subtree
	 * rule never carries IOCTL_DEV */
	uint64_t rights;
	sandy_scope scope;
	bool rw_device;        /* an exact read_write grant: a device node
				* keeps IOCTL_DEV */
	const char *section;   /* for messages, with index */
	size_t index;
	const sandy_identity *expect; /* what confine pinned, or NULL */
} sandy_ll_rule;

typedef struct sandy_ll_plan {
	int abi;
	bool with_view; /* the view enforces the denies (landlock.c) */
	uint64_t handled_fs, handled_net, scoped;
	sandy_ll_rule *rules;
	size_t n_rules;
	const sandy_resolved *r; /* the denies, for sandy_ll_classify */
} sandy_ll_plan;

/* How a node relates to the denies (both spellings of each). */
typedef struct sandy_node_class {
	bool hidden;      /* at or beneath a denied subtree */
	bool above_deny;  /* strict ancestor of a denied subtree */
	bool locked;      /* is a deny_write_exact object */
	bool above_lock;  /* strict ancestor of a deny_write_exact object */
	bool above_link;  /* strict ancestor of a deny's lexical spelling */
} sandy_node_class;

/* The filesystem rights a ruleset handles at this ABI. */
uint64_t sandy_ll_handled_fs(int abi);
sandy_node_class sandy_ll_classify(const sandy_resolved *r, const char *node);
/* Rights a node keeps given the denies around it (landlock.c's top
 * comment); whether a directory's entries need rules of their own. */
uint64_t sandy_ll_narrow(const sandy_ll_plan *p, uint64_t rights,
			 sandy_node_class c);
bool sandy_ll_needs_expansion(const sandy_ll_plan *p, uint64_t rights,
			      sandy_node_class c, bool is_dir);
/* An exact rule names one node: a directory only lists, a device of an
 * exact read_write grant keeps IOCTL_DEV, nothing else has it. */
uint64_t sandy_ll_exact_rights(uint64_t rights, bool is_dir, bool is_device,
			       bool rw_device);
/* Unsupported unless abi can enforce r (ABI >= 6; >= 4 to block TCP). */
int sandy_plan_landlock(const sandy_resolved *r, const sandy_host_facts *f,
			sandy_ll_plan *out, sandy_error *err);
void sandy_ll_plan_free(sandy_ll_plan *p);

/* ---- the view --------------------------------------------------------- */

/* One path of the view, merged from the grants and execute grants that
 * name it. What the rules give it; its attributes follow once its type is
 * known (sandy_view_attr). */
typedef struct sandy_view_item {
	const char *path;
	size_t grant, exec; /* the first grant / execute grant naming it
			     * (its pin), SIZE_MAX for none; grant first */
	bool all_exact;   /* every rule naming it is exact: a directory is
			   * then a placeholder of the skeleton only */
	bool skip;        /* "/" or beneath a denied subtree: never mounted */
	bool rw_subtree;  /* a read_write subtree grant covers it */
	bool rw_exact;    /* a read_write exact grant names it */
	bool ex_subtree;  /* a subtree execute grant covers it */
	bool ex_exact;    /* an exact execute grant names it */
	bool exact_grant; /* an exact grant names it (a device keeps dev) */
} sandy_view_item;

/* A deny that a host's change of a name on its way can lift. At the full
 * level the view holds it with a mount on its object, and the host's
 * rename or removal of any name between the outermost grant above it
 * (mounted from its descriptor on the view's own root, which nothing
 * outside renames) and the object detaches that mount in every namespace.
 * At the Landlock-only level sibling expansion keeps it: a new object at
 * such a name has no rule, but one that existed at launch keeps its own
 * wherever the host moves it. So the outer process watches those names
 * (watch.c) and ends the run when an object comes to one, or when one
 * goes where the command could then make its own (a directory it may
 * write; none at the Landlock-only level). */
typedef struct sandy_hold {
	const char *root;              /* that grant's path */
	const char *path;              /* the denied object's, beneath it */
	/* the outermost directory at or above the object from which every
	 * directory down is writable inside, or NULL */
	const char *writable;
	const sandy_identity *expect;  /* what confine pinned there */
	const char *section;           /* for messages, with index */
	size_t index;
} sandy_hold;

typedef struct sandy_view_plan {
	bool netns;                /* a network namespace of its own */
	sandy_view_item *items;    /* sorted by path */
	size_t n_items;
	/* one per pinned deny (deny_subtrees, then deny_write_exact): true
	 * when a wider or earlier equal denied subtree already hides it */
	bool *deny_hidden;
	size_t n_denies, n_deny_subtrees;
	size_t anc_slots; /* bound on the directories bound onto themselves */
	/* the counts of the policy planned, which the view's pins must have
	 * (sandy_view_build refuses another policy's pins) */
	size_t n_grants, n_execs;
	const char *const *tmpfs;  /* private temp areas, attached first */
	size_t n_tmpfs;
	/* paths whose directories above are bound onto themselves, last */
	const char *const *anchors;
	size_t n_anchors;
	const char *cwd;
} sandy_view_plan;

/* At or beneath /proc the view shows the PID namespace's own procfs, not
 * the host's objects that confine pinned there (mount_view.c). */
bool sandy_view_own_proc(const char *path);

/* MOUNT_ATTR_* of a mount of the item, given its object's type. */
unsigned int sandy_view_attr(const sandy_view_item *it, bool is_dir,
			     bool is_dev);
int sandy_plan_view(const sandy_resolved *r, sandy_view_plan *out,
		    sandy_error *err);
void sandy_view_plan_free(sandy_view_plan *p);

/* ---- seccomp ---------------------------------------------------------- */

/* seccomp_build.h's variant bits for r: without the view (and its PID
 * namespace) the filter also keeps host processes out of reach. */
unsigned sandy_plan_seccomp(const sandy_resolved *r,
			    const sandy_host_facts *f);

/* ---- the whole plan --------------------------------------------------- */

/* The denies of r a host's change of a name on their way can lift, at
 * the full level (with_view) or the Landlock-only one: those a subtree
 * grant shows, below its root, that no wider deny hides (a
 * deny_write_exact only where something around it is writable: a new
 * object elsewhere is read-only already). *out is malloc'd; 0, or -1
 * (PreparationFailed) when out of memory. */
int sandy_plan_holds(const sandy_resolved *r, bool with_view,
		     sandy_hold **out, size_t *n, sandy_error *err);

typedef struct sandy_plan {
	bool with_view;
	sandy_ll_plan landlock;
	sandy_view_plan view; /* empty at the Landlock-only level */
	sandy_hold *holds;    /* sandy_plan_holds */
	size_t n_holds;
	unsigned seccomp_variant;
} sandy_plan;

/* 0, or -1 with *err: Unsupported for what Linux cannot represent on
 * this host, PreparationFailed when out of memory. *out is then empty. */
int sandy_make_plan(const sandy_resolved *r, const sandy_host_facts *f,
		    sandy_plan *out, sandy_error *err);
/* The Landlock-only level refuses uid 0 (root: the caller's getresuid). */
int sandy_plan_admit_uid(const sandy_plan *p, bool root, sandy_error *err);
void sandy_plan_free(sandy_plan *p);

#endif

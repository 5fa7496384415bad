/* Resolution: the step apply performs before any enforcement. One working
 * directory snapshot; every path must exist; grants use the canonical
 * target; denies keep the safe lexical and the canonical spelling. */
#ifndef SANDY_RESOLVE_H
#define SANDY_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "policy.h"

/* The object confine saw at a path (the launcher's --pin), or none. */
typedef struct sandy_identity {
	bool known;
	unsigned long long dev, ino;
} sandy_identity;

typedef struct sandy_rgrant {
	char *path; /* canonical, absolute, UTF-8 */
	sandy_access access;
	sandy_scope scope;
	sandy_identity expect; /* set by the launcher from its pins */
} sandy_rgrant;

typedef struct sandy_rexec {
	char *path; /* canonical */
	sandy_scope scope;
	sandy_identity expect;
} sandy_rexec;

typedef struct sandy_rdeny {
	char *canonical; /* the object the path names after following links */
	char *lexical;   /* parent canonical + final component as written;
			  * NULL when it equals canonical */
	sandy_identity expect; /* of canonical */
} sandy_rdeny;

typedef struct sandy_resolved {
	char *cwd; /* canonical snapshot */
	sandy_network network;
	bool allow_subprocesses;
	sandy_rgrant *grants;
	size_t n_grants;
	sandy_rexec *execs;
	size_t n_execs;
	sandy_rdeny *deny_subtrees;
	size_t n_deny_subtrees;
	sandy_rdeny *deny_write_exact;
	size_t n_deny_write_exact;
	/* Private temp areas (empty writable tmpfs mounts of the view, the
	 * seam's workspace-write promise). Not policy: set by the launcher
	 * after resolution, borrowed, never freed here. */
	const char *const *tmpfs;
	size_t n_tmpfs;
	/* Paths whose directories above, inside a writable mount, are bound
	 * onto themselves so that none can be renamed (the watched names,
	 * linux/watch.c). Not policy: set by the launcher likewise. */
	const char *const *anchors;
	size_t n_anchors;
} sandy_resolved;

/* Resolves p against cwd (an absolute directory; NULL means getcwd()).
 * Returns 0 and fills *out, or -1 with err->kind SANDY_ERR_INVALID_POLICY
 * (or SANDY_ERR_PREPARATION_FAILED for resource failures); *out is then
 * empty. */
int sandy_resolve(const sandy_policy *p, const char *cwd, sandy_resolved *out,
		  sandy_error *err);
void sandy_resolved_free(sandy_resolved *r);

/* True when the resolved grants cover r->cwd and no deny hides it: the
 * Linux view contains only granted paths. */
bool sandy_resolved_covers_cwd(const sandy_resolved *r);

/* True when something the policy makes readable is not executable (the
 * seam's kernel trees, exact grants of directories and character devices
 * aside): then a descriptor the command inherits must
 * not let a loader map a file the view would have mounted noexec. */
bool sandy_resolved_restricts_exec(const sandy_resolved *r);

#endif

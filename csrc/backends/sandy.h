/* The seam's `sandy` and `landlock` backends: the launcher's policy for a
 * mode and its words (core/policy_argv.h) at the full level (namespaces,
 * the view, a private temp area) or the Landlock-only level, and the
 * dialect of each. */
#ifndef SANDY_BACKENDS_SANDY_H
#define SANDY_BACKENDS_SANDY_H

#include <stddef.h>

#include "../core/error.h"
#include "../core/policy.h"
#include "backend.h"

/* How the launcher runs for the seam: the full level (namespaces, view,
 * private temp area) or the Landlock-only level (no view, no temp area). */
typedef enum sandy_seam_level {
	SANDY_SEAM_FULL = 1,
	SANDY_SEAM_LANDLOCK_ONLY,
} sandy_seam_level;

/* The Sandy policy the launcher enforces for a seam mode: reads and
 * execution everywhere, writes only where the mode allows (for
 * workspace-write: each of roots[0..n_roots), the workspace first, then
 * the operator's writable roots; read-only ignores them), network as the
 * host has it, subprocesses allowed. Each root must be canonical. */
int sandy_seam_policy(sandy_mode mode, sandy_seam_level level,
		      const sandy_writable_root *roots, size_t n_roots,
		      sandy_policy *out, sandy_error *err);

/* Adds each canonical directory of `dirs` to p as a deny_write_exact (the
 * launcher copies' directories: read-only and unrenamable in the view). */
int sandy_seam_protect(sandy_policy *p, const char *const *dirs, size_t n,
		       sandy_error *err);

/* The launcher's words (policy_argv.h) for a seam policy: canonical
 * grants, no --cwd (the launcher snapshots the working directory it is
 * started in); for workspace-write, at the full level a private /tmp and
 * /dev/shm, and at both a pin of each writable root (roots, as for
 * sandy_seam_policy) on the object confine saw there, so a root replaced
 * since then fails closed; each protected read of s as a --deny-read, the
 * secret variables scrubbed but those s keeps, each name s watches as a
 * --watch (workspace-write at the full level only). NULL when out of
 * memory, a count of roots, reads, kept names or watches is above its
 * bound, or watches come at another mode or level. */
char **sandy_seam_launcher_argv(const sandy_policy *p, sandy_mode mode,
				sandy_seam_level level, const char *nonce,
				const sandy_writable_root *roots,
				size_t n_roots, const sandy_seam_shield *s,
				size_t *count);

#endif

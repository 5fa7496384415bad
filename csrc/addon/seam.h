/* The seam's backends as data: for a mode and workspace root, which argv to
 * run and which stderr dialect the backend speaks. JS picks the backend from
 * the probe; everything a backend promises is decided here, in one place. */
#ifndef SANDY_SEAM_H
#define SANDY_SEAM_H

#include <stddef.h>

#include "../core/error.h"
#include "../core/guard_argv.h"
#include "../core/policy.h"
#include "../core/policy_argv.h"
#include "../core/probe.h"

/* A RunnerFailureRule of the seam (NULL-terminated lists, exit codes
 * terminated by 0). */
typedef struct sandy_runner_rule {
	const int *allowed_exit_codes;
	const char *const *fatal_signatures;
	const char *const *informational_lines;
} sandy_runner_rule;

/* What keeps a seam call's protections (docs/protected-reads.md), by
 * mechanism word; NULL where the backend cannot keep it. */
typedef struct sandy_protections {
	const char *files;       /* protected files and directories unread */
	const char *sockets;     /* protected sockets unconnectable */
	const char *environment; /* secret variables scrubbed */
} sandy_protections;

typedef struct sandy_dialect {
	const char *const *denial_signatures; /* NULL-terminated */
	const sandy_runner_rule *rules;
	size_t n_rules;
	sandy_protections protections;
} sandy_dialect;

/* The dialect of a native backend (sandy, bwrap, landlock, seatbelt). */
const sandy_dialect *sandy_backend_dialect(sandy_backend_id id);

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

/* A seam call's protections beyond the mode (docs/protected-reads.md):
 * the protected reads (canonical paths of files, sockets or directories
 * that exist, each with the object confine saw, "dev:ino"), and the
 * secret variables kept by name. The secret variables are always
 * scrubbed. */
typedef struct sandy_seam_shield {
	const sandy_writable_root *reads; /* path and id, as a root's */
	size_t n_reads;
	const char *const *keep_env;
	size_t n_keep_env;
} sandy_seam_shield;

/* The launcher's words (policy_argv.h) for a seam policy: canonical
 * grants, no --cwd (the launcher snapshots the working directory it is
 * started in); for workspace-write, at the full level a private /tmp and
 * /dev/shm, and at both a pin of each writable root (roots, as for
 * sandy_seam_policy) on the object confine saw there, so a root replaced
 * since then fails closed; each protected read of s as a --deny-read, the
 * secret variables scrubbed but those s keeps. NULL when out of memory or a
 * count of roots, reads or kept names is above its bound. */
char **sandy_seam_launcher_argv(const sandy_policy *p, sandy_mode mode,
				sandy_seam_level level, const char *nonce,
				const sandy_writable_root *roots,
				size_t n_roots, const sandy_seam_shield *s,
				size_t *count);

/* One bubblewrap call: the launcher (as descriptor guard) and its nonce,
 * bubblewrap's path, the mode, the writable roots (as for
 * sandy_seam_policy) with the objects confine saw, and the canonical
 * directories that must stay read-only and unrenamable inside (the
 * launcher copies' directories), and the call's protections. */
typedef struct sandy_bwrap_call {
	const char *launcher;
	const char *nonce;
	const char *bwrap;
	sandy_mode mode;
	const sandy_writable_root *roots;
	size_t n_roots;
	const char *const *protect;
	size_t n_protect;
	sandy_seam_shield shield;
} sandy_bwrap_call;

/* The whole prefix, guard included, up to the command; NULL-terminated,
 * free with sandy_argv_free. */
char **sandy_bwrap_argv(const sandy_bwrap_call *c, size_t *count);

#endif

/* What every backend's words share: the dialect a backend speaks on stderr
 * and through its exit status, what keeps each protection on it, and a seam
 * call's protections beyond the mode. Each backend has its own file
 * (sandy.c for the launcher at both levels, bwrap.c, seatbelt.c) with its
 * argv words and its dialect; JS picks the backend from the probe, and
 * everything a backend promises is decided in its file. */
#ifndef SANDY_BACKEND_H
#define SANDY_BACKEND_H

#include <stddef.h>

#include "../core/guard_argv.h"
#include "../core/probe.h"

/* A RunnerFailureRule of the seam (NULL-terminated lists, exit codes
 * terminated by 0). */
typedef struct sandy_runner_rule {
	const int *allowed_exit_codes;
	const char *const *fatal_signatures;
	const char *const *informational_lines;
} sandy_runner_rule;

/* What keeps a seam call's protections (docs/protected-reads.md), by
 * mechanism word; NULL where the backend cannot keep it:
 * - view: the launcher's mount view covers each protected path with an
 *   empty read-only object of its kind, and Landlock gives it no right;
 * - guard: the bubblewrap guard covers them the same way in the tree it
 *   hands over, and scrubs its own environment, which bubblewrap passes on;
 * - landlock: without a view, Landlock's rules leave each protected path
 *   out (sibling expansion, linux/landlock.c); Landlock does not govern a
 *   connect to a path-named socket, so sockets stay reachable;
 * - seatbelt: file-read and network-outbound deny rules after the allows,
 *   and the shim unsets the secret variables (seatbelt.c);
 * - launcher: the launcher scrubs the secret variables before the exec.
 * The protected writes (docs/protected-writes.md) are kept read-only, and
 * the directories above them unrenamable, by the view's read-only binds,
 * the guard's, or Seatbelt's deny rules; the Landlock-only level cannot
 * keep them (taking the write rights from the directories above would
 * take git's lock files and the workspace's own entries with them).
 * What a host's replacement of a denied or protected path during a run
 * meets (docs/deny-durability.md), never NULL:
 * - watch: the mount on the object would be detached (at the
 *   Landlock-only level: an object that existed at launch, moved there,
 *   would keep its own rules), so the launcher's or the guard's outer
 *   process watches the names on the way to it and ends the run (a runner
 *   failure) when one changes;
 * - seatbelt: the deny rules name paths, whatever object is there. */
typedef struct sandy_protections {
	const char *files;       /* protected files and directories unread */
	const char *sockets;     /* protected sockets unconnectable */
	const char *environment; /* secret variables scrubbed */
	const char *writes;      /* protected writes kept read-only */
	const char *replaced;    /* a path the host replaces during a run */
} sandy_protections;

typedef struct sandy_dialect {
	const char *const *denial_signatures; /* NULL-terminated */
	const sandy_runner_rule *rules;
	size_t n_rules;
	sandy_protections protections;
} sandy_dialect;

/* Each backend's dialect, defined in its file. */
extern const sandy_dialect sandy_launcher_dialect; /* sandy.c */
extern const sandy_dialect sandy_landlock_dialect; /* sandy.c */
extern const sandy_dialect sandy_bwrap_dialect;    /* bwrap.c */
extern const sandy_dialect sandy_seatbelt_dialect; /* seatbelt.c */

/* The dialect of a native backend (sandy, bwrap, landlock, seatbelt). */
const sandy_dialect *sandy_backend_dialect(sandy_backend_id id);

/* A seam call's protections beyond the mode (docs/protected-reads.md):
 * the protected reads (canonical paths of files, sockets or directories
 * that exist, each with the object confine saw, "dev:ino"), the secret
 * variables kept by name, and the protected names that did not exist
 * (docs/protected-writes.md: watched, workspace-write only). The secret
 * variables are always scrubbed. */
typedef struct sandy_seam_shield {
	const sandy_writable_root *reads; /* path and id, as a root's */
	size_t n_reads;
	const char *const *keep_env;
	size_t n_keep_env;
	const struct sandy_launch_watch *watches;
	size_t n_watches;
} sandy_seam_shield;

#endif

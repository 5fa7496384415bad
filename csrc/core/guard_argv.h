/* The guard mode's words (linux/guard.h says what the guard does), in
 * the manner of policy_argv.h: fixed arity, no escaping.
 *
 *   LAUNCHER --sandy-guard-v1 [--nonce HEX]
 *            {--bind-root PATH DEV:INO} {--protect PATH}
 *            {--deny-read PATH DEV:INO} [--scrub-env] {--keep-env NAME}
 *            {--watch DIR DEV:INO NAME}
 *            -- /ABSOLUTE/RUNNER [ARGS...]
 *
 * --nonce: as policy_argv.h's (the guard's fatal line carries it);
 * --bind-root: a directory to make writable, canonical, and the object it
 *   named when confine saw it: the workspace root first, then the
 *   operator's writable roots (at most 1 + SANDY_WRITABLE_ROOTS_MAX in
 *   all); the guard makes exactly those directories writable;
 * --protect: at most SANDY_GUARD_PROTECT_MAX directories or files kept
 *   read-only and unrenamable beneath the roots (the launcher copies'
 *   directories, the protected writes), canonical, only after a
 *   --bind-root;
 * --deny-read: at most SANDY_DENY_READS_MAX protected paths (a file, a
 *   socket or a directory; canonical) with the object confine saw there,
 *   each covered in the guard's tree by an empty read-only object of its
 *   kind, so nothing beneath bubblewrap reads or connects to it;
 * --scrub-env, --keep-env: as policy_argv.h's, in the guard's own
 *   environment, which bubblewrap passes on to the command;
 * --watch: as policy_argv.h's, watched by the guard's outer process, only
 *   after a --bind-root.
 * Every PATH, DIR and the runner is canonical absolute text
 * (paths.h's sandy_path_canonical): the encoder refuses, and the decoder
 * stops at, any other, since the guard's checks compare paths as text.
 * The addon encodes them (backends/bwrap.c, bubblewrap's prefix), the launcher
 * decodes them (launcher/launcher.c) and the guard's steps act on them
 * (linux/guard.c, linux/guard_view.c). */
#ifndef SANDY_GUARD_ARGV_H
#define SANDY_GUARD_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "policy_argv.h"
#include "protocol.h"
#include "secret_env.h"

/* A directory to make writable: canonical path, "dev:ino" (borrowed). */
typedef struct sandy_writable_root {
	const char *path;
	const char *id;
} sandy_writable_root;

#define SANDY_GUARD_ROOTS_MAX (1 + SANDY_WRITABLE_ROOTS_MAX)

typedef struct sandy_guard_args {
	const char *nonce; /* NULL: none */
	/* none: read-only; else the workspace first */
	sandy_writable_root roots[SANDY_GUARD_ROOTS_MAX];
	size_t n_roots;
	const char *protect[SANDY_GUARD_PROTECT_MAX];
	size_t n_protect;
	sandy_writable_root deny_reads[SANDY_DENY_READS_MAX]; /* path, id */
	size_t n_deny_reads;
	bool scrub_env;
	const char *keep_env[SANDY_KEEP_ENV_MAX];
	size_t n_keep_env;
	struct sandy_launch_watch watches[SANDY_WATCHES_MAX];
	size_t n_watches;
	int runner; /* index of RUNNER in argv */
} sandy_guard_args;

/* The most words sandy_guard_words writes. */
#define SANDY_GUARD_WORDS_MAX                                                \
	(4 + 3 * SANDY_GUARD_ROOTS_MAX + 2 * SANDY_GUARD_PROTECT_MAX +        \
	 3 * SANDY_DENY_READS_MAX + 1 + 2 * SANDY_KEEP_ENV_MAX +             \
	 4 * SANDY_WATCHES_MAX + 1)

/* Writes the words up to and including "--" (the launcher's path first)
 * into words; g->runner is ignored. Returns the count, or 0 when a count
 * is above its bound, protect or a watch is given without a root, or a
 * keepEnv name or a watched name is not one. */
size_t sandy_guard_words(const char *launcher, const sandy_guard_args *g,
			 const char *words[SANDY_GUARD_WORDS_MAX]);

/* argv[0] is the launcher's path, argv[1] SANDY_GUARD_MAGIC. Fills *g
 * (pointers into argv). 0, or -1 (PreparationFailed, "malformed guard
 * arguments"). */
int sandy_guard_from_argv(int argc, char *const argv[], sandy_guard_args *g,
			  sandy_error *err);

#endif

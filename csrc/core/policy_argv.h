/* How a policy travels from the provider to the launcher: as plain argv
 * words with fixed arity, so no escaping exists to get wrong and any byte
 * string (even one starting with '-') is carried verbatim.
 *
 *   LAUNCHER --sandy-policy-v1 [--nonce HEX] --network allow_all|block_all
 *            [--subprocesses]
 *            {--grant read|read_write exact|subtree PATH}
 *            {--execute exact|subtree PATH}
 *            {--deny-subtree PATH} {--deny-write-exact PATH}
 *            {--tmpfs PATH} [--landlock-only] [--canonical] [--cwd DIR]
 *            {--pin KEY PATH DEV:INO} [--pinned]
 *            {--deny-read PATH DEV:INO} [--scrub-env] {--keep-env NAME}
 *            {--watch DIR DEV:INO NAME}
 *            -- TARGET [ARGS...]
 *
 * --nonce and the last ten are not policy vocabulary (a Sandy policy
 * changes no environment and requires every path it names; the seam's
 * protections do neither):
 * --nonce: the provider's per-call tag for the launcher's fatal line
 *   (protocol.h), 16 to 64 lowercase hex digits;
 * --tmpfs: the seam's private temp area, an empty writable tmpfs the
 *   launcher mounts at PATH in the view;
 * --landlock-only: the level for hosts without user namespaces (apply.h);
 *   the provider only emits it where the probe found that;
 * --canonical: every grant was canonical when the provider wrote it, so
 *   resolution must not change any (a path swapped for a symlink between
 *   confine and spawn fails closed);
 * --cwd: the working-directory snapshot; without it the launcher takes its
 *   own working directory;
 * --pin: an entry confine resolved, KEY naming it as the launcher's own
 *   resolution does ("grants[3]:read_write:subtree",
 *   "executable_grants[0]:exact", "deny_subtrees[1]",
 *   "deny_subtrees[1].lexical", "deny_write_exact[0]", "cwd"; the seam's
 *   "root"), its canonical PATH (or a deny's symlink
 *   spelling) and the object it named then, as decimal "device:inode";
 *   the launcher opens PATH without following any symlink and refuses
 *   when it names another object now;
 * --pinned: every entry the launcher's own resolution produces must match
 *   the pin of the same KEY, path and object, so an entry re-pointed since
 *   confine (even onto another pinned path) fails closed instead of
 *   granting what it names now;
 * --deny-read: a protected read of the seam (at most
 *   SANDY_DENY_READS_MAX), canonical, with the object confine saw there:
 *   added to the policy as a deny_subtree when the launcher reaches it
 *   (one it cannot reach, missing or behind a directory its uid may not
 *   search, is out of the command's reach as well), refused when it names
 *   another object now (linux/pins.c);
 * --scrub-env: the seam's secret variables (core/secret_env.h) are taken
 *   out of the environment before the command starts;
 * --keep-env: a variable --scrub-env leaves, named exactly (at most
 *   SANDY_KEEP_ENV_MAX, each a valid name);
 * --watch: a protected name that did not exist at confine (at most
 *   SANDY_WATCHES_MAX): NAME, one component, in the canonical directory
 *   DIR, which was the object DEV:INO then. The launcher's process outside
 *   the sandbox ends the run when NAME appears there, and removes it
 *   (linux/watch.c); full level only.
 */
#ifndef SANDY_POLICY_ARGV_H
#define SANDY_POLICY_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "policy.h"
#include "protocol.h"
#include "resolve.h"
#include "secret_env.h"

#define SANDY_ARGV_MAGIC "--sandy-policy-v1"

#define SANDY_TMPFS_MAX 4
/* every effective rule in both spellings, and the working directory */
#define SANDY_PINS_MAX (2 * SANDY_EFFECTIVE_RULES_MAX + 1)

/* What the launcher reads from its argv (and what the provider writes). */
typedef struct sandy_launch {
	sandy_policy policy;
	char *cwd; /* NULL: the launcher's own working directory */
	const char *tmpfs[SANDY_TMPFS_MAX + 1]; /* borrowed, NULL-terminated */
	size_t n_tmpfs;
	bool landlock_only;
	bool canonical;
	/* --pin words: borrowed strings; the array is malloc'd by the decoder
	 * (freed by sandy_launch_free), borrowed from the caller when
	 * encoding (set it back to NULL before sandy_launch_free) */
	struct sandy_launch_pin {
		const char *key;
		const char *path;
		const char *id;
	} *pins;
	size_t n_pins;
	bool pinned;
	const char *nonce; /* borrowed; NULL: none */
	struct sandy_launch_read {
		const char *path;
		const char *id;
	} deny_reads[SANDY_DENY_READS_MAX]; /* borrowed */
	size_t n_deny_reads;
	bool scrub_env;
	const char *keep_env[SANDY_KEEP_ENV_MAX]; /* borrowed */
	size_t n_keep_env;
	struct sandy_launch_watch {
		const char *dir;
		const char *id;
		const char *name;
	} watches[SANDY_WATCHES_MAX]; /* borrowed */
	size_t n_watches;
	int target; /* index of the first target word (may equal argc) */
} sandy_launch;

/* The words for *l, from SANDY_ARGV_MAGIC up to (not including) "--": a
 * NULL-terminated, malloc'd vector of malloc'd words; *count gets their
 * number. NULL when out of memory or a path holds a NUL byte. */
char **sandy_launch_to_argv(const sandy_launch *l, size_t *count);
void sandy_argv_free(char **words);

/* A malloc'd copy of a NULL-terminated word list; NULL when out of memory. */
char **sandy_words_dup(const char *const *words, size_t *count);

/* Parses argv[0..argc) as produced above, up to and including "--".
 * Returns 0 and fills *out, or -1 with *err set and *out empty. */
int sandy_launch_from_argv(int argc, char *const argv[], sandy_launch *out,
			   sandy_error *err);
void sandy_launch_free(sandy_launch *l);

/* The --nonce value among argv[0..argc) before "--", when it is well
 * formed; NULL otherwise. Read before anything else so that even a
 * malformed command line fails with the tagged line. */
const char *sandy_launch_nonce(int argc, char *const argv[]);
bool sandy_nonce_valid(const char *nonce);
/* A --watch NAME: one path component, not "." or "..". */
bool sandy_watch_name_valid(const char *name);

/* --pin keys, both halves: the addon names every entry of a resolved
 * policy with these (sandy_pins_each), the launcher finds each entry of
 * its own resolution by the same key (linux/pins.c). */
#define SANDY_PIN_KEY_BYTES 64
#define SANDY_PIN_ID_BYTES 48
/* "grants[I]:ACCESS:SCOPE" */
void sandy_grant_pin_key(char out[SANDY_PIN_KEY_BYTES], size_t i,
			 const sandy_rgrant *g);
/* "executable_grants[I]:SCOPE" */
void sandy_exec_pin_key(char out[SANDY_PIN_KEY_BYTES], size_t i,
			const sandy_rexec *x);
/* "deny_subtrees[I]" or "deny_write_exact[I]", ".lexical" after it for
 * the deny's spelling through a link */
void sandy_deny_pin_key(char out[SANDY_PIN_KEY_BYTES], sandy_section s,
			size_t i, bool lexical);
/* decimal "DEV:INO" */
void sandy_pin_id(char out[SANDY_PIN_ID_BYTES], unsigned long long dev,
		  unsigned long long ino);

/* Every pin of r in order ("cwd", the grants, the executable grants, then
 * each deny's canonical path and its lexical spelling where it has one):
 * fn(ctx, key, path) once each; a non-zero return stops the walk and is
 * returned. */
typedef int (*sandy_pin_fn)(void *ctx, const char *key, const char *path);
int sandy_pins_each(const sandy_resolved *r, sandy_pin_fn fn, void *ctx);

#endif

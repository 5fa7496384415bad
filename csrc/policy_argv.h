/* How a policy travels from the provider to the launcher: as plain argv
 * words with fixed arity, so no escaping exists to get wrong and any byte
 * string (even one starting with '-') is carried verbatim.
 *
 *   LAUNCHER --sandy-policy-v1 --network allow_all|block_all
 *            [--subprocesses]
 *            {--grant read|read_write exact|subtree PATH}
 *            {--execute exact|subtree PATH}
 *            {--deny-subtree PATH} {--deny-write-exact PATH}
 *            --cwd DIR -- TARGET [ARGS...]
 */
#ifndef SANDY_POLICY_ARGV_H
#define SANDY_POLICY_ARGV_H

#include <stddef.h>

#include "error.h"
#include "policy.h"

#define SANDY_ARGV_MAGIC "--sandy-policy-v1"

/* Returns a NULL-terminated, malloc'd vector of malloc'd words for the
 * policy and cwd (not the launcher path, not "--" nor the target); *count
 * gets the number of words. NULL when out of memory or a path holds a NUL. */
char **sandy_policy_to_argv(const sandy_policy *p, const char *cwd,
			    size_t *count);
void sandy_argv_free(char **words);

/* Parses argv[0..argc) as produced above, up to and including "--".
 * On success returns 0, fills *out and *cwd (malloc'd) and sets *target to
 * the index of the first target word (which may equal argc: no target). */
int sandy_policy_from_argv(int argc, char *const argv[], sandy_policy *out,
			   char **cwd, int *target, sandy_error *err);

#endif

/* confinePolicy's one crossing from JS (lib/confine.js): everything the
 * launcher needs, decided in one call. */
#ifndef SANDY_CONFINE_H
#define SANDY_CONFINE_H

#include <stddef.h>

#include "../core/error.h"
#include "../core/policy.h"
#include "../core/policy_argv.h"

/* The object path names now, not following a final symlink, as
 * policy_argv.h's "DEV:INO"; 0, or the errno. */
typedef int (*sandy_identify_fn)(const char *path,
				 char out[SANDY_PIN_ID_BYTES]);
int sandy_identify_nofollow(const char *path, char out[SANDY_PIN_ID_BYTES]);

/* p resolved against cwd (absolute; NULL: this process's), refused
 * (InvalidPolicy) unless a grant covers the working directory, when a
 * read_write grant names one of the n_refused objects refused ("DEV:INO":
 * the parents of the user's launcher copy directories, which the launcher
 * refuses too), or when a resolved path cannot be pinned; every pin of
 * the resolution (sandy_pins_each) with the object identify finds there,
 * and the launcher's words after its path with --pinned (policy_argv.h);
 * nonce may be NULL. NULL-terminated, free with sandy_argv_free; NULL
 * with *err. */
char **sandy_confine_argv(const sandy_policy *p, const char *cwd,
			  const char *nonce, sandy_identify_fn identify,
			  const char *const *refused, size_t n_refused,
			  size_t *count, sandy_error *err);

#endif

/* The variables that name secrets (vocabulary.h, SANDY_SECRET_ENV_MAP),
 * taken out of an environment before a seam mode's command starts: by the
 * launcher before its exec, by the guard before bubblewrap's (which passes
 * its environment on). Pure: no system call. */
#ifndef SANDY_SECRET_ENV_H
#define SANDY_SECRET_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* The names one call keeps at most (the provider's keepEnv). */
#define SANDY_KEEP_ENV_MAX 32

/* Whether the name of entry ("NAME=VALUE", or a bare "NAME") matches the
 * list. */
bool sandy_env_secret(const char *entry);

/* Removes from env (NULL-terminated, compacted in place) every entry whose
 * name matches the list and is none of keep[0..n_keep) exactly. Returns
 * how many it removed. */
size_t sandy_env_scrub(char **env, const char *const *keep, size_t n_keep);

/* A name keepEnv may carry: [A-Za-z_][A-Za-z0-9_]*, at most 255 bytes. */
bool sandy_env_name_valid(const char *name);

#endif

/* The environment variables that steer glibc's dynamic loader and library,
 * which glibc itself ignores in set-id programs (its unsecvars.h), split
 * off an environment before the exec of a program that must not honour
 * them (bubblewrap, in guard mode: docs/bwrap-guard.md). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "linux.h"

/* X(kind, text): kind NAME is a whole variable name, PREFIX the start of
 * every name it covers. */
#define SANDY_LOADER_VARS(X)                                                \
	X(PREFIX, "LD_")      /* the loader's own: PRELOAD, AUDIT, DEBUG... */ \
	X(PREFIX, "MALLOC_")  /* MALLOC_TRACE and the malloc tunables */       \
	X(NAME, "GLIBC_TUNABLES")                                              \
	X(NAME, "GCONV_PATH")                                                  \
	X(NAME, "GETCONF_DIR")                                                 \
	X(NAME, "HOSTALIASES")                                                 \
	X(NAME, "LOCALDOMAIN")                                                 \
	X(NAME, "LOCPATH")                                                     \
	X(PREFIX, "NIS_")                                                      \
	X(NAME, "NLSPATH")                                                     \
	X(NAME, "RESOLV_HOST_CONF")                                            \
	X(NAME, "RES_OPTIONS")                                                 \
	X(NAME, "TMPDIR")                                                      \
	X(NAME, "TZDIR")

enum { NAME, PREFIX };

static const struct loader_var {
	int kind;
	const char *text;
} loader_vars[] = {
#define SANDY_LOADER_VAR_ENTRY(kind, text) {kind, text},
	SANDY_LOADER_VARS(SANDY_LOADER_VAR_ENTRY)
#undef SANDY_LOADER_VAR_ENTRY
};

/* An entry "NAME=VALUE" whose name the table covers. Without '=' the
 * loader reads nothing from it. */
static bool is_loader_var(const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t len = eq == NULL ? 0 : (size_t)(eq - entry);

	for (size_t i = 0; eq != NULL && i < sizeof(loader_vars) /
						      sizeof(loader_vars[0]);
	     i++) {
		const struct loader_var *v = &loader_vars[i];
		size_t n = strlen(v->text);

		if (v->kind == PREFIX ? len > n && strncmp(entry, v->text, n) == 0
				      : len == n && strncmp(entry, v->text, n) == 0)
			return true;
	}
	return false;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* "--setenv\0NAME\0VALUE\0" */
static int write_setenv(int fd, const char *entry)
{
	const char *eq = strchr(entry, '=');

	return write_all(fd, "--setenv", sizeof("--setenv")) != 0 ||
			       write_all(fd, entry, (size_t)(eq - entry)) != 0 ||
			       write_all(fd, "", 1) != 0 ||
			       write_all(fd, eq + 1, strlen(eq + 1) + 1) != 0
		       ? -1
		       : 0;
}

int sandy_loader_vars_to_args(char **env, int fd, sandy_error *err)
{
	size_t n = 0, kept = 0;

	while (env[n] != NULL)
		n++;
	/* last to first: bubblewrap's --setenv overwrites, so the first
	 * occurrence of a name, the one getenv returns, is restored */
	for (size_t i = n; i-- > 0;)
		if (is_loader_var(env[i]) && write_setenv(fd, env[i]) != 0)
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "guard: writing the loader variables "
					  "failed (errno %d)",
					  errno);
	for (size_t i = 0; i < n; i++)
		if (!is_loader_var(env[i]))
			env[kept++] = env[i];
	env[kept] = NULL;
	return 0;
}

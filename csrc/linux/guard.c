#include "../guard.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../copy_dirs.h"
#include "../policy.h"
#include "linux.h"
#include "seccomp_build.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int sandy_guard_prepare(sandy_error *err)
{
	if (sandy_refuse_inherited_dirs(err) != 0 ||
	    sandy_refuse_reopenable_files(err) != 0)
		return -1;
	return 0;
}

static bool root_bind_at(char **runner, size_t i, const char *root)
{
	return strcmp(runner[i], "--bind-fd") == 0 && runner[i + 1] != NULL &&
	       strcmp(runner[i + 1], SANDY_GUARD_ROOT_FD_TEXT) == 0 &&
	       runner[i + 2] != NULL && strcmp(runner[i + 2], root) == 0;
}

/* The seam's modes, the only ones bubblewrap serves: network allowed,
 * subprocesses allowed. */
#define GUARD_FILTER FILTER_SUBPROCESSES

/* A memfd bubblewrap reads to its end and closes (--args, --seccomp), not
 * close-on-exec, filled by fill and rewound; its number as text in out.
 * (The guard runs before any filter of this package: memfds are open to
 * it.) */
static int data_fd(const char *name, int (*fill)(int fd, sandy_error *err),
		   char out[16], sandy_error *err)
{
	int fd = memfd_create(name, 0);

	if (fd < 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "guard: memfd for %s failed (errno %d)", name,
				  errno);
	if (fill(fd, err) != 0)
		return -1;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "guard: rewinding %s failed (errno %d)", name,
				  errno);
	snprintf(out, 16, "%d", fd);
	return 0;
}

static int fill_env(int fd, sandy_error *err)
{
	return sandy_loader_vars_to_args(environ, fd, err);
}

static int fill_filter(int fd, sandy_error *err)
{
	return sandy_seccomp_export(GUARD_FILTER, fd, err);
}

char **sandy_guard_runner_argv(char **runner, const char *root,
			       sandy_error *err)
{
	/* static: the words point into them and outlive this call (the
	 * process execs or dies) */
	static char copies[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES];
	static char args_fd[16], filter_fd[16];
	uid_t uid = getuid();
	size_t n_copies = root ? sandy_copy_dirs(uid, copies) : 0, at = 0;
	size_t len = 0, k = 0, n = 0, n_owned = 0;
	const char **words;
	char **owned;
	bool bound = false;

	while (runner[len] != NULL)
		len++;
	/* the words go last among bubblewrap's options (before its "--"),
	 * so no later bind of a shared ancestor covers them, and only where
	 * the root's bind came first */
	for (at = 1; at < len && strcmp(runner[at], "--") != 0; at++)
		bound |= root && at + 2 < len && root_bind_at(runner, at, root);
	if ((root && !bound) || at >= len) {
		sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			   "malformed guard arguments");
		return NULL;
	}
	if (data_fd("sandy-guard-args", fill_env, args_fd, err) != 0 ||
	    data_fd("sandy-guard-filter", fill_filter, filter_fd, err) != 0)
		return NULL;
	for (size_t i = 0; i < n_copies; i++)
		k += sandy_path_components(copies[i]) + 1;
	/* never freed: the process execs or dies */
	words = calloc(len + 3 * k + 5, sizeof(*words));
	owned = calloc(k + 1, sizeof(*owned));
	if (words == NULL || owned == NULL)
		goto oom;
	for (size_t i = 0; i < at; i++)
		words[n++] = runner[i];
	for (size_t i = 0; i < n_copies; i++) {
		int fd = sandy_open_copy_dir(copies[i], uid);

		if (fd < 0)
			continue;
		close(fd);
		if (sandy_refuse_writable_over(root, copies[i], uid, err) != 0)
			return NULL;
		if (sandy_bwrap_protect_words(root, copies[i], words, &n, owned,
					      &n_owned) != 0)
			goto oom;
	}
	words[n++] = "--args";
	words[n++] = args_fd;
	words[n++] = "--seccomp";
	words[n++] = filter_fd;
	for (size_t i = at; i < len; i++)
		words[n++] = runner[i];
	words[n] = NULL;
	return (char **)words;
oom:
	sandy_fail(err, SANDY_ERR_PREPARATION_FAILED, "guard: out of memory");
	return NULL;
}

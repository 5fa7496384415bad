#include "../guard.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../copy_dirs.h"
#include "linux.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* The root as confine saw it, on SANDY_GUARD_ROOT_FD (not close-on-exec:
 * the runner takes it over). */
static int place_root(const char *root, const char *root_id, sandy_error *err)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	char seen[48];
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, root, &how, sizeof(how));

	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the workspace root changed since confine");
	}
	snprintf(seen, sizeof(seen), "%" PRIu64 ":%" PRIu64,
		 (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	if (strcmp(seen, root_id) != 0 ||
	    fcntl(SANDY_GUARD_ROOT_FD, F_GETFD) >= 0 ||
	    dup2(fd, SANDY_GUARD_ROOT_FD) != SANDY_GUARD_ROOT_FD) {
		close(fd);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the workspace root changed since confine, "
				  "or its descriptor slot is taken");
	}
	close(fd);
	return 0;
}

int sandy_guard_prepare(const char *root, const char *root_id,
			sandy_error *err)
{
	if (sandy_refuse_inherited_dirs(err) != 0 ||
	    sandy_refuse_reopenable_files(err) != 0)
		return -1;
	return root == NULL ? 0 : place_root(root, root_id, err);
}

static bool root_bind_at(char **runner, size_t i, const char *root)
{
	return strcmp(runner[i], "--bind-fd") == 0 && runner[i + 1] != NULL &&
	       strcmp(runner[i + 1], SANDY_GUARD_ROOT_FD_TEXT) == 0 &&
	       runner[i + 2] != NULL && strcmp(runner[i + 2], root) == 0;
}

char **sandy_guard_runner_argv(char **runner, const char *root,
			       sandy_error *err)
{
	char copies[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES];
	uid_t uid = getuid();
	size_t n_copies = sandy_copy_dirs(uid, copies), at = 0, len = 0, k = 0;
	size_t n = 0, n_owned = 0;
	const char **words;
	char **owned;

	bool bound = false;

	if (root == NULL)
		return runner;
	while (runner[len] != NULL)
		len++;
	/* the words go last among bubblewrap's options (before its "--"),
	 * so no later bind of a shared ancestor covers them, and only where
	 * the root's bind came first */
	for (at = 1; at < len && strcmp(runner[at], "--") != 0; at++)
		bound |= at + 2 < len && root_bind_at(runner, at, root);
	if (!bound || at >= len) {
		sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			   "malformed guard arguments");
		return NULL;
	}
	for (size_t i = 0; i < n_copies; i++)
		k += sandy_path_components(copies[i]) + 1;
	/* never freed: the process execs or dies */
	words = calloc(len + 3 * k + 1, sizeof(*words));
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
	for (size_t i = at; i < len; i++)
		words[n++] = runner[i];
	words[n] = NULL;
	return (char **)words;
oom:
	sandy_fail(err, SANDY_ERR_PREPARATION_FAILED, "guard: out of memory");
	return NULL;
}

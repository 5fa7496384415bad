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

/* mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134
 * backslash) undone in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static bool listed(char **paths, size_t n, const char *p)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], p) == 0)
			return true;
	return false;
}

/* The mount point of one mountinfo line (its fifth field), unescaped in
 * place, or NULL. */
static char *mount_point(char *line)
{
	char *field = line, *end;

	for (int i = 0; i < 4 && field != NULL; i++) {
		field = strchr(field, ' ');
		field = field == NULL ? NULL : field + 1;
	}
	if (field == NULL || (end = strchr(field, ' ')) == NULL)
		return NULL;
	*end = '\0';
	unescape(field);
	return field;
}

/* Every mount point strictly beneath root in this process's mount table
 * (the namespace bubblewrap starts from), each once; NULL with *err when
 * the table cannot be read or holds a point no word can carry. */
static char **submounts_beneath(const char *root, size_t *n, sandy_error *err)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, **paths = NULL;
	size_t cap = 0, size = 0;
	bool bad = f == NULL;

	*n = 0;
	while (!bad && getline(&line, &size, f) >= 0) {
		char *mp = mount_point(line), **grown;

		bad = mp == NULL || mp[0] != '/' ||
		      strlen(mp) >= SANDY_PATH_MAX_BYTES;
		if (bad || !sandy_path_contains(root, mp) ||
		    strcmp(mp, root) == 0 || listed(paths, *n, mp))
			continue;
		if (*n == cap) {
			cap = cap == 0 ? 8 : 2 * cap;
			grown = realloc(paths, cap * sizeof(*paths));
			bad = grown == NULL;
			if (bad)
				break;
			paths = grown;
		}
		paths[*n] = strdup(mp);
		bad = paths[*n] == NULL;
		*n += !bad;
	}
	free(line);
	if (f != NULL)
		fclose(f);
	if (!bad)
		return paths != NULL ? paths : calloc(1, sizeof(*paths));
	for (size_t i = 0; i < *n; i++)
		free(paths[i]);
	free(paths);
	sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
		   "guard: cannot list the mounts beneath the workspace");
	return NULL;
}

char **sandy_guard_runner_argv(char **runner, const char *root,
			       sandy_error *err)
{
	char copies[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES];
	/* static: the words outlive this call (the process execs) */
	static char args_fd[16], filter_fd[16];
	uid_t uid = getuid();
	size_t n_copies = root ? sandy_copy_dirs(uid, copies) : 0, at = 0;
	size_t len = 0, k = 0, n = 0, n_owned = 0, n_sub = 0;
	const char **words;
	char **owned, **sub = NULL;
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
	if ((root && (sub = submounts_beneath(root, &n_sub, err)) == NULL) ||
	    data_fd("sandy-guard-args", fill_env, args_fd, err) != 0 ||
	    data_fd("sandy-guard-filter", fill_filter, filter_fd, err) != 0)
		return NULL;
	for (size_t i = 0; i < n_copies; i++)
		k += sandy_path_components(copies[i]) + 1;
	/* never freed: the process execs or dies */
	words = calloc(len + 3 * k + 2 * n_sub + 5, sizeof(*words));
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
	/* every mount beneath the writable root read-only, after the binds
	 * that could cover one (bubblewrap's remount takes the mounts
	 * beneath it along) */
	for (size_t i = 0; i < n_sub; i++) {
		words[n++] = "--remount-ro";
		words[n++] = sub[i];
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

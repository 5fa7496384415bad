/* The guard's steps before its namespace (guard.h): the inherited
 * descriptors, its own uid's launcher copies, and bubblewrap's argv with
 * the descriptors that carry the loader variables and the seccomp filter. */
#include "guard.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/copy_dirs.h"
#include "../core/policy.h"
#include "linux.h"
#include "seccomp_build.h"

int sandy_guard_prepare(const sandy_writable_root *roots, size_t n_roots,
			const char **protect, size_t *n, sandy_error *err)
{
	/* static: protect[] points into it until the process execs */
	static char copies[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES];
	uid_t uid = getuid();
	size_t n_copies;

	if (sandy_refuse_inherited_dirs(err) != 0 ||
	    sandy_refuse_reopenable_files(err) != 0)
		return -1;
	if (n_roots == 0)
		return 0;
	for (size_t r = 0; r < n_roots; r++)
		if (sandy_refuse_copy_parents(roots[r].path, uid, err) != 0)
			return -1;
	n_copies = sandy_copy_dirs(uid, copies);
	for (size_t i = 0; i < n_copies; i++) {
		int fd = sandy_open_copy_dir(copies[i], uid);

		if (fd < 0)
			continue;
		close(fd);
		for (size_t r = 0; r < n_roots; r++)
			if (sandy_refuse_writable_over(roots[r].path, copies[i],
						       uid, err) != 0)
				return -1;
		protect[(*n)++] = copies[i];
	}
	return 0;
}

int sandy_guard_reached_reads(sandy_guard_args *g, sandy_error *err)
{
	size_t kept = 0;

	for (size_t i = 0; i < g->n_deny_reads; i++) {
		int rc = sandy_deny_read_reached(g->deny_reads[i].path,
						 g->deny_reads[i].id, i, err);

		if (rc < 0)
			return -1;
		if (rc > 0)
			g->deny_reads[kept++] = g->deny_reads[i];
	}
	g->n_deny_reads = kept;
	return 0;
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

char **sandy_guard_runner_argv(char **runner, sandy_error *err)
{
	/* static: the words outlive this call (the process execs or dies) */
	static char args_fd[16], filter_fd[16], cwd[SANDY_PATH_MAX_BYTES + 1];
	size_t len = 0, at, n = 0;
	const char **words;

	while (runner[len] != NULL)
		len++;
	for (at = 1; at < len && strcmp(runner[at], "--") != 0; at++)
		;
	if (at >= len) {
		sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			   "malformed guard arguments");
		return NULL;
	}
	/* bubblewrap falls back to $HOME when the working directory is not
	 * in its tree; --chdir makes that a failure, as under sandy */
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			   "guard: no working directory (errno %d)", errno);
		return NULL;
	}
	if (data_fd("sandy-guard-args", fill_env, args_fd, err) != 0 ||
	    data_fd("sandy-guard-filter", fill_filter, filter_fd, err) != 0)
		return NULL;
	/* never freed: the process execs or dies */
	words = calloc(len + 7, sizeof(*words));
	if (words == NULL) {
		sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			   "guard: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < at; i++)
		words[n++] = runner[i];
	words[n++] = "--chdir";
	words[n++] = cwd;
	words[n++] = "--args";
	words[n++] = args_fd;
	words[n++] = "--seccomp";
	words[n++] = filter_fd;
	for (size_t i = at; i < len; i++)
		words[n++] = runner[i];
	words[n] = NULL;
	return (char **)words;
}

/* As the full level's launcher does (apply.c), with the runner as the
 * command: an outer process, an init, then the runner. */
int sandy_guard_fork_runner(char **words, size_t n, sandy_watch *watch,
			    const sandy_mounted *mounted, size_t n_mounted,
			    sandy_error *err)
{
	sandy_procs procs;
	pid_t init;

	if (sandy_procs_begin(&procs, words, n, watch, err) != 0)
		return -1;
	sandy_procs_hold(&procs, mounted, n_mounted);
	init = sandy_procs_fork_init(&procs, err);
	if (init > 0)
		return sandy_procs_outer(&procs, init, err);
	if (init < 0 || sandy_procs_init(&procs, err) != 0)
		return -1;
	return sandy_procs_command(&procs, err);
}

/* sandy-launcher: the in-child apply helper. It reads a policy from its
 * argv (policy_argv.h), resolves it against the cwd snapshot, applies it to
 * ITSELF and only then execs the target. Any failure before the exec ends
 * the process with the protocol of protocol.h: nothing runs unconfined. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exec.h"
#include "../core/copy_dirs.h"
#include "../core/guard_argv.h"
#include "../core/policy_argv.h"
#include "../core/probe.h"
#include "../core/protocol.h"
#include "../core/resolve.h"
#include "../core/secret_env.h"
#include "../linux/apply.h"
#include "../linux/guard.h"

extern char **environ;

/* nonce: the provider's per-call tag (protocol.h), or NULL. */
static void __attribute__((noreturn)) die(const sandy_error *err,
					  const char *nonce)
{
	char hint[128] = "";
	struct rlimit rl;

	/* the launcher holds a descriptor for every path it pins: a step
	 * that ran out of them says which limit to raise */
	if (err->errnum == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0)
		snprintf(hint, sizeof(hint),
			 " (out of file descriptors: RLIMIT_NOFILE is %llu, "
			 "raise its hard limit)",
			 (unsigned long long)rl.rlim_cur);
	/* One line, phase and reason only: err->message never holds paths. */
	if (nonce != NULL)
		dprintf(STDERR_FILENO,
			SANDY_LAUNCHER_FATAL_PREFIX "%s: %s%s [run %s]\n",
			sandy_error_kind_name(err->kind), err->message, hint,
			nonce);
	else
		dprintf(STDERR_FILENO, SANDY_LAUNCHER_FATAL_PREFIX "%s: %s%s\n",
			sandy_error_kind_name(err->kind), err->message, hint);
	_exit(SANDY_LAUNCHER_EXIT_FAILURE);
}

/* The launcher pins every path of the policy with a descriptor, so it
 * works with its soft descriptor limit raised to the hard one; the
 * command gets the caller's soft limit back (exec_target). False when
 * the limit cannot be read (nothing raised, nothing to give back). */
static bool raise_nofile(struct rlimit *caller)
{
	struct rlimit up;

	if (getrlimit(RLIMIT_NOFILE, caller) != 0)
		return false;
	up = (struct rlimit){caller->rlim_max, caller->rlim_max};
	(void)setrlimit(RLIMIT_NOFILE, &up);
	return true;
}

/* No empty, "." or ".." component, not the root: a private temp area is a
 * mount the view creates at exactly this place. */
static bool plain_absolute(const char *p)
{
	size_t len = strlen(p), n;

	if (p[0] != '/' || len < 2 || len > SANDY_PATH_MAX_BYTES)
		return false;
	for (const char *c = p; c != NULL; c = strchr(c + 1, '/')) {
		n = strcspn(c + 1, "/");
		if (n == 0 || (n <= 2 && strncmp(c + 1, "..", n) == 0))
			return false;
	}
	return true;
}

static int check_tmpfs_paths(const sandy_launch *l, sandy_error *err)
{
	for (size_t i = 0; i < l->n_tmpfs; i++) {
		if (l->landlock_only)
			return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
					  "a private temp area needs the full "
					  "level");
		if (!plain_absolute(l->tmpfs[i]))
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "tmpfs[%zu]: not a plain absolute "
					  "path", i);
	}
	return 0;
}

/* The temp areas' paths, out of the argv the launcher wipes before its
 * first fork (apply.h): the view mounts them after that. */
static int copy_tmpfs(const sandy_launch *l, char *out[], sandy_error *err)
{
	for (size_t i = 0; i < l->n_tmpfs; i++)
		if ((out[i] = strdup(l->tmpfs[i])) == NULL)
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "tmpfs[%zu]: out of memory", i);
	return 0;
}

static bool written_grant(const sandy_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_grants; i++)
		if (strcmp(p->grants[i].path.bytes, path) == 0)
			return true;
	return false;
}

static bool written_exec(const sandy_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_exec_grants; i++)
		if (strcmp(p->exec_grants[i].path.bytes, path) == 0)
			return true;
	return false;
}

/* --canonical: the provider wrote canonical paths, so each resolved grant
 * must be one it wrote in the same section; a path turned into a symlink
 * since then would otherwise grant whatever it now points at. */
static int check_canonical(const sandy_launch *l, const sandy_resolved *r,
			   sandy_error *err)
{
	if (!l->canonical)
		return 0;
	for (size_t i = 0; i < r->n_grants; i++)
		if (!written_grant(&l->policy, r->grants[i].path))
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "%s[%zu] changed since confine",
					  SANDY_SECTION_KEY(GRANTS), i);
	for (size_t i = 0; i < r->n_execs; i++)
		if (!written_exec(&l->policy, r->execs[i].path))
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "%s[%zu] changed since confine",
					  SANDY_SECTION_KEY(EXECUTABLE_GRANTS),
					  i);
	return 0;
}

static void __attribute__((noreturn)) exec_target(char *const argv[],
						  const struct rlimit *nofile)
{
	int e;

	/* lowering a soft limit is always allowed */
	if (nofile != NULL)
		(void)setrlimit(RLIMIT_NOFILE, nofile);
	sandy_execvp(argv);
	e = errno; /* before dprintf, which may fail (stderr closed) */
	dprintf(STDERR_FILENO, "%s: %s\n", argv[0], strerror(e));
	_exit(e == ENOENT ? SANDY_LAUNCHER_EXIT_NOTFOUND
			  : SANDY_LAUNCHER_EXIT_NOEXEC);
}

/* Guard mode (guard.h): argv[1] is SANDY_GUARD_MAGIC (guard_argv.h). */
static void __attribute__((noreturn)) guard(int argc, char *argv[],
					    const char *nonce)
{
	sandy_error err = {0};
	sandy_guard_args g;
	const char *protect[SANDY_GUARD_PROTECT_MAX + SANDY_COPY_DIRS_MAX];
	size_t n_protect;
	static sandy_watch watch;
	static sandy_mounted mounted[SANDY_GUARD_PROTECT_MAX +
				     SANDY_COPY_DIRS_MAX + SANDY_DENY_READS_MAX];
	size_t n_mounted = 0;
	char **runner;

	if (sandy_guard_from_argv(argc, argv, &g, &err) != 0)
		die(&err, nonce);
	if (g.scrub_env)
		sandy_env_scrub(environ, g.keep_env, g.n_keep_env);
	n_protect = g.n_protect;
	memcpy(protect, g.protect, n_protect * sizeof(*protect));
	if (sandy_guard_reached_reads(&g, &err) != 0 ||
	    sandy_guard_prepare(g.roots, g.n_roots, protect, &n_protect,
				&err) != 0 ||
	    (runner = sandy_guard_runner_argv(argv + g.runner, &err)) == NULL ||
	    sandy_watch_open(g.watches, g.n_watches, &watch, &err) != 0 ||
	    sandy_guard_hold(&g, protect, n_protect, &watch, &err) != 0 ||
	    sandy_guard_enter(&g, protect, n_protect, &watch, mounted,
			      &n_mounted, &err) != 0 ||
	    sandy_guard_fork_runner(argv + 1, (size_t)(g.runner - 1), &watch,
				    mounted, n_mounted, &err) != 0)
		die(&err, nonce);
	execv(runner[0], runner);
	sandy_fail(&err, SANDY_ERR_PREPARATION_FAILED,
		   "the guarded runner cannot be executed (errno %d)", errno);
	die(&err, nonce);
}

/* Probe mode (probe.h): the host measured by the code that enforces, the
 * report on stdout. */
static void __attribute__((noreturn)) probe(void)
{
	static sandy_probe_report r;
	static char text[4096];
	sandy_error err = {0};
	int n;

	sandy_probe_run(&r);
	n = sandy_probe_encode(&r, text, sizeof(text));
	if (n < 0 || write(STDOUT_FILENO, text, (size_t)n) != n) {
		sandy_fail(&err, SANDY_ERR_PREPARATION_FAILED,
			   "the probe report cannot be written");
		die(&err, NULL);
	}
	_exit(0);
}

int main(int argc, char *argv[])
{
	sandy_launch launch;
	sandy_resolved resolved;
	sandy_error err = {0};
	sandy_apply_level level;
	sandy_own_words own;
	static sandy_watch watch;
	char tag[SANDY_NONCE_MAX + 1] = "";
	char *tmpfs[SANDY_TMPFS_MAX + 1] = {NULL};
	struct rlimit nofile;
	bool raised;
	int target;

	/* read before anything can fail, so every fatal line carries it; a
	 * copy, since the argv it is in is wiped (apply.h) */
	const char *nonce = sandy_launch_nonce(argc - 1, argv + 1);

	if (nonce != NULL)
		nonce = strcpy(tag, nonce);

	if (argc < 2) {
		sandy_fail(&err, SANDY_ERR_PREPARATION_FAILED,
			   "usage: " SANDY_LAUNCHER_NAME " " SANDY_ARGV_MAGIC
			   " WORD... -- COMMAND [ARG...] | " SANDY_PROBE_MAGIC
			   " (it is run by sandy-native, not by hand)");
		die(&err, NULL);
	}
	if (strcmp(argv[1], SANDY_GUARD_MAGIC) == 0)
		guard(argc, argv, nonce);
	if (argc == 2 && strcmp(argv[1], SANDY_PROBE_MAGIC) == 0)
		probe();

	raised = raise_nofile(&nofile);
	if (sandy_launch_from_argv(argc - 1, argv + 1, &launch, &err) != 0)
		die(&err, nonce);
	/* the keep list points into the argv wiped below (apply.h) */
	if (launch.scrub_env)
		sandy_env_scrub(environ, launch.keep_env, launch.n_keep_env);
	target = launch.target + 1; /* argv has the launcher path first */
	if (target >= argc) {
		sandy_fail(&err, SANDY_ERR_PREPARATION_FAILED, "no command given");
		die(&err, nonce);
	}
	if (check_tmpfs_paths(&launch, &err) != 0 ||
	    copy_tmpfs(&launch, tmpfs, &err) != 0)
		die(&err, nonce);
	if (sandy_add_deny_reads(&launch, &err) != 0 ||
	    sandy_resolve(&launch.policy, launch.cwd, &resolved, &err) != 0 ||
	    check_canonical(&launch, &resolved, &err) != 0 ||
	    sandy_check_pins(&launch, &resolved, &err) != 0)
		die(&err, nonce);
	resolved.tmpfs = (const char *const *)tmpfs;
	resolved.n_tmpfs = launch.n_tmpfs;
	if (!sandy_resolved_covers_cwd(&resolved)) {
		sandy_fail(&err, SANDY_ERR_INVALID_POLICY,
			   "the working directory is not covered by a grant");
		die(&err, nonce);
	}
	level = launch.landlock_only ? SANDY_APPLY_LANDLOCK_ONLY
				     : SANDY_APPLY_FULL;
	own = (sandy_own_words){argv + 1, (size_t)(target - 1)};
	if (sandy_watch_open(launch.watches, launch.n_watches, &watch,
			     &err) != 0)
		die(&err, nonce);
	resolved.anchors = (const char *const *)watch.paths;
	resolved.n_anchors = watch.n;
	if (sandy_protect_self(&resolved, level, &err) != 0 ||
	    sandy_apply(&resolved, level, &own, &watch, &err) != 0)
		die(&err, nonce);
	sandy_resolved_free(&resolved);
	sandy_launch_free(&launch);
	for (size_t i = 0; i < SANDY_TMPFS_MAX; i++)
		free(tmpfs[i]);
	exec_target(argv + target, raised ? &nofile : NULL);
}

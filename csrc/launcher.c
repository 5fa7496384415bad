/* sandy-launcher: the in-child apply helper. It reads a policy from its
 * argv (policy_argv.h), resolves it against the cwd snapshot, applies it to
 * ITSELF and only then execs the target. Any failure before the exec ends
 * the process with the protocol of launcher.h: nothing runs unconfined. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "launcher.h"
#include "policy_argv.h"
#include "resolve.h"

static void __attribute__((noreturn)) die(const sandy_error *err)
{
	/* One line, phase and reason only: err->message never holds paths. */
	dprintf(STDERR_FILENO, SANDY_LAUNCHER_FATAL_PREFIX "%s: %s\n",
		sandy_error_kind_name(err->kind), err->message);
	_exit(SANDY_LAUNCHER_EXIT_FAILURE);
}

static sandy_apply_level level_from_env(void)
{
	/* The provider selects the Landlock-only level explicitly; the
	 * default is the full contract. */
	const char *level = getenv("SANDY_LAUNCHER_LEVEL");

	if (level != NULL && strcmp(level, "landlock") == 0)
		return SANDY_APPLY_LANDLOCK_ONLY;
	return SANDY_APPLY_FULL;
}

static void __attribute__((noreturn)) exec_target(char *const argv[])
{
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "%s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? SANDY_LAUNCHER_EXIT_NOTFOUND
			      : SANDY_LAUNCHER_EXIT_NOEXEC);
}

int main(int argc, char *argv[])
{
	sandy_policy policy;
	sandy_resolved resolved;
	sandy_error err = {0};
	char *cwd = NULL;
	int target;

	if (sandy_policy_from_argv(argc - 1, argv + 1, &policy, &cwd, &target,
				   &err) != 0)
		die(&err);
	target += 1; /* index into argv, which has the launcher path first */
	if (target >= argc) {
		sandy_fail(&err, SANDY_ERR_PREPARATION_FAILED, "no command given");
		die(&err);
	}
	if (sandy_resolve(&policy, cwd, &resolved, &err) != 0)
		die(&err);
	sandy_policy_free(&policy);
	free(cwd);
	if (!sandy_resolved_covers_cwd(&resolved)) {
		sandy_fail(&err, SANDY_ERR_INVALID_POLICY,
			   "the working directory is not covered by a grant");
		die(&err);
	}
	if (sandy_apply(&resolved, level_from_env(), &err) != 0)
		die(&err);
	sandy_resolved_free(&resolved);
	exec_target(argv + target);
}

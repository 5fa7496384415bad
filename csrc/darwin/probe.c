/* The macOS probe: sandbox-exec at its absolute path, and whether it can
 * apply the seam's two profiles here (it cannot inside another sandbox:
 * sandbox_apply is refused), each within a deadline. Compiled on Linux only for syntax and
 * warnings (test/native.test.js); never run on a Mac (README.md, "macOS"). */
#include "../core/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"
#include "../core/policy_argv.h"

extern char **environ;

/* Each run's deadline, in steps of 10 ms. */
#define DEADLINE_STEPS 300

/* Whether words (sandbox-exec, a profile, the shim) run /usr/bin/true and
 * exit 0 before the deadline (killed after it); its output to /dev/null
 * (inside another sandbox sandbox-exec prints its refusal). */
static bool runs_true(char **words)
{
	const struct timespec step = {0, 10 * 1000 * 1000};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return false;
	rc = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
					      O_WRONLY, 0) ||
	     posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					      O_WRONLY, 0) ||
	     posix_spawn(&pid, words[0], &fa, NULL, words, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return false;
	for (int i = 0; i < DEADLINE_STEPS; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (r < 0 && errno != EINTR)
			return false;
		nanosleep(&step, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return false;
}

/* Both of the seam's profiles, as confine would write them, applied here
 * (a macOS that cannot parse one would fail every call). */
static bool applies_the_profiles(void)
{
	static const sandy_mode modes[] = {SANDY_MODE_READ_ONLY,
					   SANDY_MODE_WORKSPACE_WRITE};
	bool ok = true;

	for (size_t m = 0; ok && m < 2; m++) {
		size_t n = 0;
		char **w = sandy_seatbelt_argv(modes[m], "/private/var/empty",
					       "/private/var/empty", &n);
		char **full = w == NULL ? NULL : calloc(n + 2, sizeof(*full));

		ok = full != NULL;
		if (ok) {
			memcpy(full, w, n * sizeof(*full));
			full[n] = "/usr/bin/true";
			ok = runs_true(full);
		}
		free(full);
		sandy_argv_free(w);
	}
	return ok;
}

void sandy_probe_run(sandy_probe_report *r)
{
	struct utsname u;

	memset(r, 0, sizeof(*r));
	strcpy(r->platform, "darwin");
	if (uname(&u) == 0)
		strncpy(r->kernel_release, u.release,
			sizeof(r->kernel_release) - 1);
	r->sandbox_exec = access(SANDY_SANDBOX_EXEC, X_OK) == 0 &&
			  applies_the_profiles();
	sandy_probe_judge(r);
}

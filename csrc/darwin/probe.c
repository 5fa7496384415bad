/* The macOS probe: sandbox-exec at its absolute path, and whether it can
 * apply a profile here (it cannot inside another sandbox: sandbox_apply is
 * refused), within a deadline. Compiled on Linux only for syntax and
 * warnings (test/native.test.js); never run on a Mac (README.md, "macOS"). */
#include "../core/probe.h"

#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"

extern char **environ;

/* The probe's deadline, in steps of 10 ms. */
#define DEADLINE_STEPS 300

/* Whether sandbox-exec runs /usr/bin/true under a trivial profile and
 * exits 0 before the deadline (killed after it). */
static bool applies_a_profile(void)
{
	char *const argv[] = {SANDY_SANDBOX_EXEC, "-p",
			      "(version 1)(allow default)", "/usr/bin/true",
			      NULL};
	const struct timespec step = {0, 10 * 1000 * 1000};
	pid_t pid;
	int status;

	if (posix_spawn(&pid, SANDY_SANDBOX_EXEC, NULL, NULL, argv, environ) !=
	    0)
		return false;
	for (int i = 0; i < DEADLINE_STEPS; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (r < 0)
			return false;
		nanosleep(&step, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return false;
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
			  applies_a_profile();
	sandy_probe_judge(r);
}

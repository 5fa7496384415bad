#include "end.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol.h"

void sandy_raise_without_core(int sig)
{
	struct rlimit core;
	sigset_t one;

	if (getrlimit(RLIMIT_CORE, &core) == 0) {
		core.rlim_cur = 0;
		setrlimit(RLIMIT_CORE, &core);
	}
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	kill(getpid(), sig);
}

void sandy_end_like(int status)
{
	if (WIFSIGNALED(status)) {
		sandy_raise_without_core(WTERMSIG(status));
		_exit(128 + WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status)
				: SANDY_LAUNCHER_EXIT_FAILURE);
}

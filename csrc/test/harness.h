/* Tiny test harness for the C tests of the Linux backend: every check runs
 * in a forked child (restrictions are irreversible), which reports one
 * long through a pipe; results are TAP (tap.h). Built by csrc/Makefile
 * (c-tests), not by binding.gyp. */
#ifndef SANDY_TEST_HARNESS_H
#define SANDY_TEST_HARNESS_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

typedef struct child_result {
	bool reported; /* the child wrote a value */
	long value;    /* >= 0 a result, < 0 a negated errno */
	int signal;    /* the signal that ended it, or 0 */
} child_result;

/* A child body returns its value; it may die instead. */
typedef long (*child_fn)(void *arg);

static inline void child_report(int fd, long v)
{
	if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		_exit(99);
}

static inline child_result run_child(child_fn fn, void *arg)
{
	child_result res = {0};
	int p[2], status;
	pid_t pid;

	if (pipe(p) != 0) {
		perror("pipe");
		exit(2);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		close(p[0]);
		child_report(p[1], fn(arg));
		_exit(0);
	}
	close(p[1]);
	res.reported = read(p[0], &res.value, sizeof(res.value)) ==
		       (ssize_t)sizeof(res.value);
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		exit(2);
	}
	if (WIFSIGNALED(status))
		res.signal = WTERMSIG(status);
	return res;
}

/* The value syscall() style code returns, as >= 0 or -errno. */
static inline long sysret(long rc)
{
	return rc < 0 ? -errno : rc;
}

static inline void describe(char *buf, size_t n, child_result r)
{
	if (r.signal != 0)
		snprintf(buf, n, "killed by signal %d", r.signal);
	else if (!r.reported)
		snprintf(buf, n, "no report");
	else if (r.value < 0)
		snprintf(buf, n, "errno %s", strerrorname_np((int)-r.value));
	else
		snprintf(buf, n, "result %ld", r.value);
}

/* One result, with what the child did: "ok n - WHAT (result 0)". */
static inline void check(bool ok, const char *what, child_result r)
{
	char buf[96];

	describe(buf, sizeof(buf), r);
	tap_ok(ok, "%s (%s)", what, buf);
}

static inline bool is_errno(child_result r, int e)
{
	return r.signal == 0 && r.reported && r.value == -e;
}

static inline bool is_ok(child_result r)
{
	return r.signal == 0 && r.reported && r.value >= 0;
}

#endif

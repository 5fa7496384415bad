#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include "sys.h"
#endif

static int64_t now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int remaining_ms(int64_t deadline)
{
	int64_t left = deadline - now_ms();

	return left < 0 ? 0 : (int)left;
}

/* Blocks until pid is exitable or the deadline passes. A pidfd makes this
 * a single poll; other kernels get a short polling loop. */
static bool exits_before(pid_t pid, int64_t deadline)
{
	siginfo_t info;
#ifdef __linux__
	int pidfd = sys_pidfd_open(pid, 0);

	if (pidfd >= 0) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		int n;

		do
			n = poll(&p, 1, remaining_ms(deadline));
		while (n < 0 && errno == EINTR);
		close(pidfd);
		return n > 0;
	}
#endif
	for (;;) {
		struct timespec tick = {0, 2 * 1000 * 1000};

		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info,
			   WEXITED | WNOHANG | WNOWAIT) != 0) {
			if (errno == EINTR)
				continue;
			return true; /* gone already: waitpid will say */
		}
		if (info.si_pid == pid || now_ms() >= deadline)
			return info.si_pid == pid;
		nanosleep(&tick, NULL);
	}
}

/* Reaps pid, killing it (and its process group when asked) first if it
 * has not exited by the deadline: no child ever outlives the probe. */
static sandy_wait reap(pid_t pid, bool group, int64_t deadline, int *status)
{
	bool timed_out = !exits_before(pid, deadline);
	pid_t got;

	if (timed_out) {
		if (!group || kill(-pid, SIGKILL) != 0)
			kill(pid, SIGKILL);
	}
	do
		got = waitpid(pid, status, 0);
	while (got < 0 && errno == EINTR);
	if (timed_out)
		return SANDY_WAIT_TIMED_OUT;
	return got == pid ? SANDY_WAIT_EXITED : SANDY_WAIT_LOST;
}

/* Reads up to len bytes from fd until EOF or the deadline; returns the
 * count. Excess input is drained and dropped so the writer never blocks. */
static size_t read_until(int fd, char *buf, size_t len, int64_t deadline)
{
	size_t got = 0;
	char sink[256];

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int n = poll(&p, 1, remaining_ms(deadline));
		ssize_t r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got;
		if (got < len)
			r = read(fd, buf + got, len - got);
		else
			r = read(fd, sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got;
		if (got < len)
			got += (size_t)r;
	}
}

void sandy_describe_end(sandy_wait w, int status, int timeout_ms, char *out,
			size_t len)
{
	if (w == SANDY_WAIT_TIMED_OUT)
		snprintf(out, len, "timed out after %d ms", timeout_ms);
	else if (w == SANDY_WAIT_LOST)
		snprintf(out, len, "exit status unavailable (SIGCHLD ignored)");
	else if (WIFSIGNALED(status))
		snprintf(out, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(out, len, "exit status %d", WEXITSTATUS(status));
}

/* pipe2 is not POSIX: macOS lacks it, and there the descriptors are
 * marked close-on-exec one call later. */
static int cloexec_pipe(int fds[2])
{
#ifdef __linux__
	return pipe2(fds, O_CLOEXEC);
#else
	if (pipe(fds) != 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
		close(fds[0]);
		close(fds[1]);
		fds[0] = fds[1] = -1;
		return -1;
	}
	return 0;
#endif
}

static void describe_errno(const char *step, int err, char *out, size_t len)
{
	char buf[128];
	/* glibc with _GNU_SOURCE has the GNU strerror_r (returns the text);
	 * musl and macOS have only the POSIX one (fills buf, returns 0). */
#ifdef __GLIBC__
	const char *text = strerror_r(err, buf, sizeof(buf));
#else
	const char *text =
		strerror_r(err, buf, sizeof(buf)) == 0 ? buf : "unknown error";
#endif

	snprintf(out, len, "%s: %s", step, text);
}

bool sandy_run_child(sandy_child_fn fn, void *arg, int timeout_ms,
		     char answer[SANDY_RUN_ANSWER], char *why, size_t why_len)
{
	int64_t deadline = now_ms() + timeout_ms;
	int fds[2], status = 0;
	size_t got;
	pid_t pid;
	sandy_wait w;

	if (cloexec_pipe(fds) != 0) {
		describe_errno("pipe", errno, why, why_len);
		return false;
	}
	pid = fork();
	if (pid < 0) {
		describe_errno("fork", errno, why, why_len);
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		char a[SANDY_RUN_ANSWER] = {0};

		close(fds[0]);
		fn(a, arg);
		_exit(write(fds[1], a, sizeof(a)) == (ssize_t)sizeof(a) ? 0 : 1);
	}
	close(fds[1]);
	got = read_until(fds[0], answer, SANDY_RUN_ANSWER, deadline);
	close(fds[0]);
	w = reap(pid, false, deadline, &status);
	if (got == SANDY_RUN_ANSWER) {
		answer[SANDY_RUN_ANSWER - 1] = '\0';
		return true;
	}
	snprintf(why, why_len, "probe child gave no answer: ");
	sandy_describe_end(w, status, timeout_ms, why + strlen(why),
			   why_len - strlen(why));
	return false;
}

static bool spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *sa,
			int out_fd, int err_fd)
{
	sigset_t none, all;

	sigemptyset(&none);
	sigfillset(&all);
	/* Own process group: a timeout kills the program and its children. */
	return posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY,
						0) == 0 &&
	       posix_spawn_file_actions_adddup2(fa, out_fd, 1) == 0 &&
	       posix_spawn_file_actions_adddup2(fa, err_fd, 2) == 0 &&
	       posix_spawnattr_setsigmask(sa, &none) == 0 &&
	       posix_spawnattr_setsigdefault(sa, &all) == 0 &&
	       posix_spawnattr_setpgroup(sa, 0) == 0 &&
	       posix_spawnattr_setflags(sa, POSIX_SPAWN_SETSIGMASK |
						    POSIX_SPAWN_SETSIGDEF |
						    POSIX_SPAWN_SETPGROUP) == 0;
}

/* Collects stdout and stderr together until both close or the deadline. */
static void capture(int out_fd, int err_fd, sandy_run_result *res,
		    int64_t deadline)
{
	struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN},
			      {.fd = err_fd, .events = POLLIN}};
	char *dst[2] = {res->out, res->err};
	size_t used[2] = {0, 0};
	char sink[256];
	int open_fds = 2, i, n;

	while (open_fds > 0 && (n = poll(p, 2, remaining_ms(deadline))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (i = 0; i < 2; i++) {
			size_t room = SANDY_RUN_CAPTURE - 1 - used[i];
			ssize_t got;

			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			got = room ? read(p[i].fd, dst[i] + used[i], room)
				   : read(p[i].fd, sink, sizeof(sink));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				p[i].fd = -1;
				open_fds--;
			} else if (room) {
				used[i] += (size_t)got;
			}
		}
	}
	res->out[used[0]] = '\0';
	res->err[used[1]] = '\0';
}

bool sandy_run_program(char *const argv[], int timeout_ms,
		       sandy_run_result *res, char *why, size_t why_len)
{
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	int64_t deadline = now_ms() + timeout_ms;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	int out[2] = {-1, -1}, err[2] = {-1, -1}, rc = -1;
	pid_t pid = -1;

	memset(res, 0, sizeof(*res));
	if (cloexec_pipe(out) != 0 || cloexec_pipe(err) != 0) {
		describe_errno("pipe", errno, why, why_len);
		goto close_pipes;
	}
	if (posix_spawn_file_actions_init(&fa) != 0) {
		snprintf(why, why_len, "spawn: out of memory");
		goto close_pipes;
	}
	if (posix_spawnattr_init(&sa) != 0) {
		snprintf(why, why_len, "spawn: out of memory");
		goto destroy_fa;
	}
	rc = spawn_setup(&fa, &sa, out[1], err[1])
		     ? posix_spawn(&pid, argv[0], &fa, &sa, argv, envp)
		     : EINVAL;
	if (rc != 0)
		describe_errno("spawn", rc, why, why_len);
	posix_spawnattr_destroy(&sa);
destroy_fa:
	posix_spawn_file_actions_destroy(&fa);
close_pipes:
	if (out[1] >= 0)
		close(out[1]);
	if (err[1] >= 0)
		close(err[1]);
	if (rc == 0) {
		capture(out[0], err[0], res, deadline);
		res->wait = reap(pid, true, deadline, &res->status);
	}
	if (out[0] >= 0)
		close(out[0]);
	if (err[0] >= 0)
		close(err[0]);
	return rc == 0;
}

void sandy_first_line(const char *text, char *out, size_t len)
{
	size_t n = 0;

	while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
		text++;
	for (; *text && *text != '\n' && n + 1 < len; text++)
		if ((unsigned char)*text >= 0x20 && *text != 0x7f)
			out[n++] = *text;
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		n--;
	out[n] = '\0';
}

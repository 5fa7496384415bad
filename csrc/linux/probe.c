/* Linux host probe: every fact is measured, never inferred from versions.
 * Checks that could change the calling process (namespaces, no_new_privs,
 * seccomp) run in short-lived forked children; programs (bwrap) run through
 * posix_spawn. Every child has a deadline and is always reaped. */
#include "../core/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Syscall numbers from 424 on are shared by every architecture but alpha;
 * Debian 12's headers lack some of them. */
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_CREATE_RULESET_ERRATA
#define LANDLOCK_CREATE_RULESET_ERRATA (1U << 1)
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSCONFIG_CMD_CREATE
#define FSCONFIG_CMD_CREATE 6
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001
#endif
#ifndef RESOLVE_NO_MAGICLINKS
#define RESOLVE_NO_MAGICLINKS 0x02
#endif

/* Kernel ABI structs, spelled out so no header version matters. */
struct probe_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

struct probe_open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

#define CHILD_TIMEOUT_MS 2000
#define BWRAP_TIMEOUT_MS 3000
#define CAPTURE_BYTES 1024

/* Fixed, root-owned directories only: a PATH entry could be writable by
 * the code we are about to confine. */
static const char *const bwrap_dirs[] = {"/usr/bin", "/bin", "/usr/local/bin"};

/* ---- time and waiting ------------------------------------------------ */

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

typedef enum wait_outcome {
	WAIT_EXITED,    /* *status is valid */
	WAIT_TIMED_OUT, /* killed and reaped */
	WAIT_LOST       /* reaped by someone else (SIGCHLD ignored) */
} wait_outcome;

/* Blocks until pid is exitable or the deadline passes. A pidfd makes this
 * a single poll; kernels without pidfd_open get a short polling loop. */
static bool exits_before(pid_t pid, int64_t deadline)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	siginfo_t info;

	if (pidfd >= 0) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		int n;

		do
			n = poll(&p, 1, remaining_ms(deadline));
		while (n < 0 && errno == EINTR);
		close(pidfd);
		return n > 0;
	}
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
static wait_outcome reap(pid_t pid, bool group, int64_t deadline, int *status)
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
		return WAIT_TIMED_OUT;
	return got == pid ? WAIT_EXITED : WAIT_LOST;
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

/* Describes why a child gave no answer, e.g. "killed by signal 9". */
static void describe_end(wait_outcome w, int status, int timeout_ms,
			 char *out, size_t len)
{
	if (w == WAIT_TIMED_OUT)
		snprintf(out, len, "timed out after %d ms", timeout_ms);
	else if (w == WAIT_LOST)
		snprintf(out, len, "exit status unavailable (SIGCHLD ignored)");
	else if (WIFSIGNALED(status))
		snprintf(out, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(out, len, "exit status %d", WEXITSTATUS(status));
}

static void describe_errno(const char *step, int err, char *out, size_t len)
{
	char buf[128];

	snprintf(out, len, "%s: %s", step,
		 strerror_r(err, buf, sizeof(buf)));
}

/* ---- forked children ------------------------------------------------- */

/* A child's answer: up to four bytes written in one write(2). */
#define ANSWER_BYTES 4

typedef void (*child_fn)(unsigned char answer[ANSWER_BYTES], const void *arg);

/* Runs fn in a forked child and copies its answer. The child of a
 * multi-threaded process may only use async-signal-safe calls, so fn uses
 * raw syscalls and the answer travels as bytes. Returns false with why. */
static bool run_child(child_fn fn, const void *arg,
		      unsigned char answer[ANSWER_BYTES], char *why,
		      size_t why_len)
{
	int64_t deadline = now_ms() + CHILD_TIMEOUT_MS;
	int fds[2], status = 0;
	size_t got;
	pid_t pid;
	wait_outcome w;

	if (pipe2(fds, O_CLOEXEC) != 0) {
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
		unsigned char a[ANSWER_BYTES] = {0};

		close(fds[0]);
		fn(a, arg);
		_exit(write(fds[1], a, sizeof(a)) == (ssize_t)sizeof(a) ? 0 : 1);
	}
	close(fds[1]);
	got = read_until(fds[0], (char *)answer, ANSWER_BYTES, deadline);
	close(fds[0]);
	w = reap(pid, false, deadline, &status);
	if (got == ANSWER_BYTES)
		return true;
	snprintf(why, why_len, "probe child gave no answer: ");
	describe_end(w, status, CHILD_TIMEOUT_MS, why + strlen(why),
		     why_len - strlen(why));
	return false;
}

static unsigned char errno_byte(void)
{
	return errno > 0 && errno < 256 ? (unsigned char)errno : 255;
}

/* Steps of the namespace child, in order; 0 means success. */
enum ns_step {
	NS_OK = 0,
	NS_UNSHARE,
	NS_SETGROUPS,
	NS_UID_MAP,
	NS_GID_MAP,
	NS_PRIVATE,
	MNT_OPEN_TREE,
	MNT_SETATTR,
	MNT_FSOPEN,
	MNT_FSCONFIG,
	MNT_FSMOUNT,
	MNT_MOVE,
	NS_STEP_COUNT
};

static const char *ns_step_name(unsigned step)
{
	static const char *const names[NS_STEP_COUNT] = {
		"ok", "unshare", "write /proc/self/setgroups",
		"write /proc/self/uid_map", "write /proc/self/gid_map",
		"make / private", "open_tree", "mount_setattr", "fsopen",
		"fsconfig", "fsmount", "move_mount"};

	return step < NS_STEP_COUNT ? names[step] : "unknown step";
}

typedef struct ns_args {
	char uid_map[32];
	char gid_map[32];
} ns_args;

/* Async-signal-safe: writes text to a /proc file in one write(2). On
 * failure errno is the failing call's. */
static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), saved;
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return false;
	n = write(fd, text, len);
	saved = n < 0 ? errno : EIO;
	if (close(fd) != 0)
		return false;
	errno = saved;
	return n == (ssize_t)len;
}

/* Child: enters user+mount+IPC namespaces with identity maps. */
static unsigned char ns_enter(const ns_args *a)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC) != 0)
		return NS_UNSHARE;
	if (!write_file("/proc/self/setgroups", "deny") && errno != ENOENT)
		return NS_SETGROUPS;
	if (!write_file("/proc/self/uid_map", a->uid_map))
		return NS_UID_MAP;
	if (!write_file("/proc/self/gid_map", a->gid_map))
		return NS_GID_MAP;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return NS_PRIVATE;
	return NS_OK;
}

/* Child, inside the namespaces: clones / read-only, builds a tmpfs and
 * attaches it, the calls the launcher's descriptor-built view relies on. */
static unsigned char mount_api_check(void)
{
	struct probe_mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
	int tree, fs, mnt;

	tree = (int)syscall(SYS_open_tree, AT_FDCWD, "/",
			    OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return MNT_OPEN_TREE;
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE,
		    &attr, sizeof(attr)) != 0)
		return MNT_SETATTR;
	fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return MNT_FSOPEN;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0)
		return MNT_FSCONFIG;
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		return MNT_FSMOUNT;
	/* Only this child's private namespace sees the new mount. */
	if (syscall(SYS_move_mount, mnt, "", AT_FDCWD, "/",
		    MOVE_MOUNT_F_EMPTY_PATH) != 0)
		return MNT_MOVE;
	return NS_OK;
}

/* Answer: {namespace step, errno, mount-API step, errno}. */
static void ns_child(unsigned char answer[ANSWER_BYTES], const void *arg)
{
	answer[0] = ns_enter(arg);
	if (answer[0] != NS_OK) {
		answer[1] = errno_byte();
		return;
	}
	answer[2] = mount_api_check();
	if (answer[2] != NS_OK)
		answer[3] = errno_byte();
}

static void probe_namespaces(sandy_probe_report *r)
{
	unsigned char a[ANSWER_BYTES];
	ns_args args;
	char *why = r->user_namespaces_detail;
	size_t len = sizeof(r->user_namespaces_detail);

	/* Formatting is not async-signal-safe: do it before forking. */
	snprintf(args.uid_map, sizeof(args.uid_map), "%lu %lu 1\n",
		 (unsigned long)getuid(), (unsigned long)getuid());
	snprintf(args.gid_map, sizeof(args.gid_map), "%lu %lu 1\n",
		 (unsigned long)getgid(), (unsigned long)getgid());
	if (!run_child(ns_child, &args, a, why, len))
		return;
	if (a[0] != NS_OK) {
		describe_errno(ns_step_name(a[0]), a[1], why, len);
		return;
	}
	r->user_namespaces = true;
	r->mount_api = a[2] == NS_OK;
}

/* Answer: {no_new_privs errno, seccomp errno}; 0 means it worked. */
static void seccomp_child(unsigned char answer[ANSWER_BYTES], const void *arg)
{
	struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {.len = 1, .filter = allow};

	(void)arg;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		answer[0] = errno_byte();
		answer[1] = answer[0];
		return;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
		return;
	/* Kernels before 3.17 only have the prctl spelling. */
	if (errno == ENOSYS &&
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0)
		return;
	answer[1] = errno_byte();
}

static void probe_seccomp(sandy_probe_report *r)
{
	unsigned char a[ANSWER_BYTES];
	char why[SANDY_PROBE_TEXT];

	if (!run_child(seccomp_child, NULL, a, why, sizeof(why)))
		return;
	r->no_new_privs = a[0] == 0;
	r->seccomp_filter = a[0] == 0 && a[1] == 0;
}

/* ---- direct checks --------------------------------------------------- */

static void probe_kernel(sandy_probe_report *r)
{
	struct utsname u;

	snprintf(r->platform, sizeof(r->platform), "linux");
	if (uname(&u) == 0)
		snprintf(r->kernel_release, sizeof(r->kernel_release), "%s",
			 u.release);
	else
		snprintf(r->kernel_release, sizeof(r->kernel_release),
			 "unknown");
}

static void probe_landlock(sandy_probe_report *r)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	long errata;

	if (abi <= 0)
		return;
	r->landlock_abi = (int)abi;
	/* Kernels predating the errata flag reject it with EINVAL. */
	errata = syscall(SYS_landlock_create_ruleset, NULL, 0,
			 LANDLOCK_CREATE_RULESET_ERRATA);
	r->landlock_errata = errata > 0 ? (int)errata : 0;
}

static void probe_openat2(sandy_probe_report *r)
{
	struct probe_open_how how = {.flags = O_PATH | O_CLOEXEC,
				     .resolve = RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd < 0)
		return;
	r->openat2 = true;
	close(fd);
}

/* ---- bubblewrap ------------------------------------------------------ */

typedef struct spawn_result {
	wait_outcome wait;
	int status;
	char out[CAPTURE_BYTES];
	char err[CAPTURE_BYTES];
} spawn_result;

static bool spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *sa,
			int out_fd, int err_fd)
{
	sigset_t none, all;

	sigemptyset(&none);
	sigfillset(&all);
	/* Own process group: a timeout kills bwrap and its sandboxed child. */
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
static void capture(int out_fd, int err_fd, spawn_result *res, int64_t deadline)
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
			size_t room = CAPTURE_BYTES - 1 - used[i];
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

/* Runs argv (argv[0] an absolute path) with stdin on /dev/null and both
 * outputs captured, killing its process group at the deadline. */
static bool run_program(char *const argv[], int timeout_ms, spawn_result *res,
			char *why, size_t why_len)
{
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	int64_t deadline = now_ms() + timeout_ms;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	int out[2] = {-1, -1}, err[2] = {-1, -1}, rc = -1;
	pid_t pid = -1;

	memset(res, 0, sizeof(*res));
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
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

/* Copies the first line of text, trimmed and with control bytes dropped
 * (it ends up in a terminal table). */
static void first_line(const char *text, char *out, size_t len)
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

static bool find_bwrap(sandy_probe_report *r)
{
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(bwrap_dirs) / sizeof(bwrap_dirs[0]); i++) {
		snprintf(r->bwrap_path, sizeof(r->bwrap_path), "%s/bwrap",
			 bwrap_dirs[i]);
		if (stat(r->bwrap_path, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(r->bwrap_path, X_OK) == 0)
			return true;
	}
	r->bwrap_path[0] = '\0';
	return false;
}

/* Returns false when `bwrap --version` hangs: such a bwrap is broken and
 * a second run would only double the wait. */
static bool bwrap_version(sandy_probe_report *r, spawn_result *res)
{
	static const char prefix[] = "bubblewrap ";
	char *argv[] = {r->bwrap_path, "--version", NULL};
	char why[SANDY_PROBE_TEXT], line[sizeof(r->bwrap_version)];

	if (!run_program(argv, BWRAP_TIMEOUT_MS, res, why, sizeof(why)))
		return true;
	if (res->wait == WAIT_TIMED_OUT) {
		snprintf(r->bwrap_detail, sizeof(r->bwrap_detail),
			 "bwrap --version timed out after %d ms",
			 BWRAP_TIMEOUT_MS);
		return false;
	}
	if (res->wait != WAIT_EXITED || res->status != 0)
		return true;
	first_line(res->out, line, sizeof(line));
	snprintf(r->bwrap_version, sizeof(r->bwrap_version), "%s",
		 strncmp(line, prefix, sizeof(prefix) - 1) == 0
			 ? line + sizeof(prefix) - 1
			 : line);
	return true;
}

/* bwrap_detail: "exit status 1: bwrap: <first stderr line>" and so on. */
static void bwrap_try(sandy_probe_report *r, spawn_result *res)
{
	char *argv[] = {r->bwrap_path, "--ro-bind", "/", "/", "true", NULL};
	char *d = r->bwrap_detail;
	size_t len = sizeof(r->bwrap_detail), used;

	if (!run_program(argv, BWRAP_TIMEOUT_MS, res, d, len))
		return;
	if (res->wait == WAIT_EXITED && WIFEXITED(res->status) &&
	    WEXITSTATUS(res->status) == 0) {
		r->bwrap_works = true;
		return;
	}
	describe_end(res->wait, res->status, BWRAP_TIMEOUT_MS, d, len);
	used = strlen(d);
	if (res->err[0] != '\0' && used + 3 < len) {
		snprintf(d + used, len - used, ": ");
		first_line(res->err, d + used + 2, len - used - 2);
	}
}

static void probe_bwrap(sandy_probe_report *r)
{
	spawn_result res;

	r->bwrap_found = find_bwrap(r);
	if (!r->bwrap_found)
		return;
	if (bwrap_version(r, &res))
		bwrap_try(r, &res);
}

void sandy_probe_run(sandy_probe_report *r)
{
	memset(r, 0, sizeof(*r));
	probe_kernel(r);
	probe_landlock(r);
	probe_openat2(r);
	probe_namespaces(r);
	probe_seccomp(r);
	probe_bwrap(r);
	r->root_user = geteuid() == 0;
	sandy_probe_judge(r);
}

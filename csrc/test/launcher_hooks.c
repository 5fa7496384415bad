/* Test builds of the launcher only (csrc/Makefile's coverage links this
 * file and wraps the launcher's own calls with ld --wrap): coverage that
 * survives the namespaces, and fault injection. The shipped launcher
 * contains none of it (test/meta/c-coverage.test.js checks its strings).
 *
 * Coverage. The launcher ends in execve, _exit or a signal it raises on
 * itself, after pivot_root, with Landlock and seccomp on: no .gcda file
 * can be written there by path.
 * When SANDY_COVERAGE_DIR is set, a constructor opens one stream file in
 * it before main runs (close-on-exec, so the command never has it); the
 * wrapped exec and _exit calls write every object's counters into it
 * through __gcov_info_to_gcda, then reset them, so a failed exec followed
 * by _exit does not count twice (so does kill of its own pid). Each
 * object's records go out in one write. Stream format, per object:
 *   "F" u32 LEN NAME  (the .gcda path the object would have written)
 *   "D" u32 LEN BYTES (its contents, in one or more pieces)
 * scripts/coverage-report.js turns the streams into .gcda files and
 * merges them.
 *
 * Faults. When SANDY_FAULT_AT=N is set (N >= 1), the Nth call the
 * launcher's code makes to one of the wrapped functions fails as the
 * real one can (-1 or NULL with errno EIO; allocators with ENOMEM) without
 * being made. SANDY_FAULT_AT=0 fails nothing. Allocators are counted only
 * when SANDY_FAULT_ALLOC=1 (they are most of the calls, and their failure
 * branches few). Either way, before an exec
 * or _exit the count of wrapped calls so far is written to stderr as
 * "sandy-fault: calls N", so a test can walk N from 1 to the count.
 *
 * Two more states no single failing call produces: SANDY_TEST_THREAD=1
 * starts a second thread before main (the launcher must refuse to run
 * with one), SANDY_TEST_LANDLOCK_ABI=N makes the Landlock version query
 * answer N (an older kernel). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gcov.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* The real calls, for this file's own use: its writes and allocations
 * must neither be counted nor fail. */
ssize_t __real_write(int fd, const void *b, size_t n);
void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
int __real_open(const char *p, int f, ...);

/* ---- coverage ---------------------------------------------------------- */

extern const struct gcov_info *const __start_sandy_gcov_info[];
extern const struct gcov_info *const __stop_sandy_gcov_info[];
void __gcov_reset(void);

static int cov_fd = -1;

/* One object's records, gathered and written with one write(): the
 * processes a launcher forks share the stream's file offset, and two of
 * them dumping at once must not interleave inside an object's records.
 * (An object that does not fit is left out whole.) */
static struct {
	char *data;
	size_t len, cap;
	bool lost;
} out;

static void put(const void *data, size_t len)
{
	if (out.len + len > out.cap && !out.lost) {
		size_t cap = 2 * (out.len + len);
		char *more = __real_realloc(out.data, cap);

		out.lost = more == NULL;
		if (more != NULL) {
			out.data = more;
			out.cap = cap;
		}
	}
	if (out.lost)
		return;
	memcpy(out.data + out.len, data, len);
	out.len += len;
}

static void flush(void)
{
	const char *p = out.data;
	size_t len = out.lost ? 0 : out.len;

	while (len > 0) {
		ssize_t n = __real_write(cov_fd, p, len);

		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	out.len = 0;
	out.lost = false;
}

static void record(char tag, const void *data, uint32_t len)
{
	put(&tag, 1);
	put(&len, sizeof(len));
	put(data, len);
}

static void on_filename(const char *name, void *arg)
{
	(void)arg;
	record('F', name, (uint32_t)strlen(name));
}

static void on_data(const void *data, unsigned len, void *arg)
{
	(void)arg;
	record('D', data, len);
}

static void *on_allocate(unsigned len, void *arg)
{
	(void)arg;
	return __real_malloc(len);
}

static void coverage_dump(void)
{
	if (cov_fd < 0)
		return;
	/* the linker's bounds of one section, compared as addresses */
	uintptr_t at = (uintptr_t)__start_sandy_gcov_info;
	uintptr_t end = (uintptr_t)__stop_sandy_gcov_info;

	for (; at < end; at += sizeof(const struct gcov_info *)) {
		__gcov_info_to_gcda(*(const struct gcov_info *const *)at,
				    on_filename, on_data, on_allocate, NULL);
		flush();
	}
	__gcov_reset();
}

__attribute__((constructor)) static void coverage_open(void)
{
	const char *dir = getenv("SANDY_COVERAGE_DIR");
	char path[4096];
	struct timespec ts;

	if (dir == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(path, sizeof(path), "%s/launcher-%d-%ld.%09ld.stream", dir,
		 (int)getpid(), (long)ts.tv_sec, ts.tv_nsec);
	cov_fd = __real_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0666);
	if (cov_fd >= 0)
		fchmod(cov_fd, 0666);
}

/* ---- faults ------------------------------------------------------------ */

static long fault_at = -1; /* -1: not counting */
static long calls;
static bool count_alloc;

__attribute__((constructor)) static void fault_open(void)
{
	const char *at = getenv("SANDY_FAULT_AT");
	const char *alloc = getenv("SANDY_FAULT_ALLOC");

	if (at != NULL)
		fault_at = strtol(at, NULL, 10);
	count_alloc = alloc != NULL && strcmp(alloc, "1") == 0;
}

static long fake_abi = -1;

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor)) static void states_open(void)
{
	const char *thread = getenv("SANDY_TEST_THREAD");
	const char *abi = getenv("SANDY_TEST_LANDLOCK_ABI");
	pthread_t t;

	if (thread != NULL && strcmp(thread, "1") == 0)
		pthread_create(&t, NULL, sleeper, NULL);
	if (abi != NULL)
		fake_abi = strtol(abi, NULL, 10);
}

/* True when this call is the one to fail. */
static bool fault(int e)
{
	if (fault_at < 0 || (e == ENOMEM && !count_alloc))
		return false;
	if (++calls != fault_at)
		return false;
	errno = e;
	return true;
}

static void report(void)
{
	if (fault_at >= 0)
		dprintf(STDERR_FILENO, "sandy-fault: calls %ld\n", calls);
}

/* ---- the wrapped calls --------------------------------------------------- */

#define WRAP(ret, name, params, args, bad, e)                                  \
	ret __real_##name params;                                              \
	ret __wrap_##name params;                                              \
	ret __wrap_##name params                                               \
	{                                                                      \
		if (fault(e))                                                  \
			return bad;                                            \
		return __real_##name args;                                     \
	}

WRAP(void *, malloc, (size_t n), (n), NULL, ENOMEM)
WRAP(void *, calloc, (size_t n, size_t m), (n, m), NULL, ENOMEM)
WRAP(void *, realloc, (void *p, size_t n), (p, n), NULL, ENOMEM)
WRAP(char *, strdup, (const char *s), (s), NULL, ENOMEM)
WRAP(char *, strndup, (const char *s, size_t n), (s, n), NULL, ENOMEM)
WRAP(int, chdir, (const char *p), (p), -1, EIO)
WRAP(int, fchdir, (int fd), (fd), -1, EIO)
WRAP(int, fstatvfs, (int fd, struct statvfs *s), (fd, s), -1, EIO)
WRAP(int, statvfs, (const char *p, struct statvfs *s), (p, s), -1, EIO)
WRAP(char *, getcwd, (char *b, size_t n), (b, n), NULL, EIO)
WRAP(ssize_t, getline, (char **l, size_t *n, FILE *f), (l, n, f), -1, EIO)
WRAP(int, getresuid, (uid_t * r, uid_t *e, uid_t *s), (r, e, s), -1, EIO)
WRAP(off_t, lseek, (int fd, off_t o, int w), (fd, o, w), -1, EIO)
WRAP(int, memfd_create, (const char *n, unsigned f), (n, f), -1, EIO)
WRAP(int, mkdir, (const char *p, mode_t m), (p, m), -1, EIO)
WRAP(int, mkdirat, (int d, const char *p, mode_t m), (d, p, m), -1, EIO)
WRAP(int, mount, (const char *s, const char *t, const char *f,
		  unsigned long fl, const void *d),
     (s, t, f, fl, d), -1, EIO)
WRAP(int, umount2, (const char *t, int f), (t, f), -1, EIO)
WRAP(int, unshare, (int f), (f), -1, EIO)
WRAP(ssize_t, readlink, (const char *p, char *b, size_t n), (p, b, n), -1,
     EIO)
WRAP(ssize_t, readlinkat, (int d, const char *p, char *b, size_t n),
     (d, p, b, n), -1, EIO)
WRAP(char *, realpath, (const char *p, char *r), (p, r), NULL, EIO)
WRAP(int, symlinkat, (const char *t, int d, const char *p), (t, d, p), -1,
     EIO)
WRAP(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n), -1, EIO)
WRAP(int, dup2, (int a, int b), (a, b), -1, EIO)
WRAP(int, socket, (int d, int t, int p), (d, t, p), -1, EIO)
WRAP(FILE *, fopen, (const char *p, const char *m), (p, m), NULL, EIO)
WRAP(pid_t, fork, (void), (), -1, EAGAIN)
WRAP(int, socketpair, (int d, int t, int p, int sv[2]), (d, t, p, sv), -1,
     EMFILE)
WRAP(int, pipe2, (int fds[2], int f), (fds, f), -1, EMFILE)
WRAP(int, sigprocmask, (int how, const sigset_t *s, sigset_t *o),
     (how, s, o), -1, EINVAL)
WRAP(int, sigaction, (int sig, const struct sigaction *a,
		      struct sigaction *o),
     (sig, a, o), -1, EINVAL)
WRAP(DIR *, opendir, (const char *p), (p), NULL, EIO)
WRAP(int, inotify_init1, (int f), (f), -1, EMFILE)
WRAP(int, inotify_add_watch, (int fd, const char *p, uint32_t m), (fd, p, m),
     -1, ENOSPC)
/* (NULL with errno set: a listing that fails, not one that ends) */
WRAP(struct dirent *, readdir, (DIR *d), (d), NULL, EIO)
WRAP(DIR *, fdopendir, (int fd), (fd), NULL, EIO)

/* The variadic ones forward their optional argument. syscall() is how the
 * launcher makes its stat, openat2, mount API, statx and Landlock calls
 * (csrc/core/sys.h, csrc/core/stat.c), so failing it fails each of those
 * where it is made. */
int __wrap_open(const char *p, int f, ...);
int __wrap_open(const char *p, int f, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, f);
	m = (mode_t)va_arg(ap, int);
	va_end(ap);
	return fault(EIO) ? -1 : __real_open(p, f, m);
}

int __real_openat(int d, const char *p, int f, ...);
int __wrap_openat(int d, const char *p, int f, ...);
int __wrap_openat(int d, const char *p, int f, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, f);
	m = (mode_t)va_arg(ap, int);
	va_end(ap);
	return fault(EIO) ? -1 : __real_openat(d, p, f, m);
}

int __real_fcntl(int fd, int c, ...);
int __wrap_fcntl(int fd, int c, ...);
int __wrap_fcntl(int fd, int c, ...)
{
	va_list ap;
	long a;

	va_start(ap, c);
	a = va_arg(ap, long);
	va_end(ap);
	return fault(EIO) ? -1 : __real_fcntl(fd, c, a);
}

int __real_ioctl(int fd, unsigned long r, ...);
int __wrap_ioctl(int fd, unsigned long r, ...);
int __wrap_ioctl(int fd, unsigned long r, ...)
{
	va_list ap;
	void *a;

	va_start(ap, r);
	a = va_arg(ap, void *);
	va_end(ap);
	return fault(EIO) ? -1 : __real_ioctl(fd, r, a);
}

int __real_prctl(int o, ...);
int __wrap_prctl(int o, ...);
int __wrap_prctl(int o, ...)
{
	va_list ap;
	unsigned long a[4];

	va_start(ap, o);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	return fault(EIO) ? -1 : __real_prctl(o, a[0], a[1], a[2], a[3]);
}

long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);
long __wrap_syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (fault(EIO))
		return -1;
	if (fake_abi >= 0 && nr == SYS_landlock_create_ruleset &&
	    a[2] == LANDLOCK_CREATE_RULESET_VERSION)
		return fake_abi;
	return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- the ends: exec and _exit ---------------------------------------- */

/* Just before the process becomes another program or ends (a failed exec
 * that then exits counts once: the dump resets the counters). */
static void at_end(void)
{
	report();
	coverage_dump();
}

int __real_execv(const char *p, char *const argv[]);
int __wrap_execv(const char *p, char *const argv[]);
int __wrap_execv(const char *p, char *const argv[])
{
	at_end();
	return __real_execv(p, argv);
}

/* (the target's exec, csrc/launcher/exec.c: once per $PATH directory
 * tried; each dump holds what ran since the last) */
int __real_execve(const char *p, char *const argv[], char *const envp[]);
int __wrap_execve(const char *p, char *const argv[], char *const envp[]);
int __wrap_execve(const char *p, char *const argv[], char *const envp[])
{
	at_end();
	return __real_execve(p, argv, envp);
}

/* A signal raised on itself ends the process too (core/end.c) */
int __real_kill(pid_t pid, int sig);
int __wrap_kill(pid_t pid, int sig);
int __wrap_kill(pid_t pid, int sig)
{
	if (pid == getpid())
		at_end();
	return __real_kill(pid, sig);
}

void __real__exit(int status);
void __wrap__exit(int status);
void __wrap__exit(int status)
{
	at_end();
	__real__exit(status);
}

/* A minimal stand-in for the macOS SDK: the few types, constants and
 * functions the files a Mac builds into the addon (csrc/Makefile's
 * CORE_SOURCES, ADDON_SOURCES and ADDON_DARWIN_SOURCES) use, each under the header macOS
 * declares it in. test/unit/native.test.js compiles those files on Linux with
 * -nostdinc and __linux__ undefined against this alone (plus the
 * compiler's own freestanding headers and Node-API's): every section
 * below becomes a header of that name holding only its section and the
 * base types, so a Linux-only header, function, constant or struct member
 * in a macOS branch fails the build here, where no Mac is, and so does a
 * function used without the header that declares it. Only declarations:
 * nothing here is ever linked or run, and a value matters only where it
 * must be a constant. Included whole, it declares everything (cppcheck).
 *
 * Each section starts with a line "---- NAME ----" in a comment of its
 * own; the first, sys/types.h, is the base every generated header
 * includes: the types macOS's headers share through <sys/_types/...>.
 */
#ifndef SANDY_DARWIN_SDK_H
#define SANDY_DARWIN_SDK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- sys/types.h ---- */
typedef long ssize_t;
typedef int64_t off_t;
typedef int32_t pid_t;
typedef uint32_t uid_t;
typedef uint32_t gid_t;
typedef uint32_t id_t;
typedef uint16_t mode_t;
typedef int32_t dev_t;
typedef uint64_t ino_t;
typedef uint16_t nlink_t;
typedef long time_t;
typedef int64_t blkcnt_t;
typedef int32_t blksize_t;
typedef uint32_t sigset_t;
typedef enum { P_ALL, P_PID, P_PGID } idtype_t;
struct timespec {
	time_t tv_sec;
	long tv_nsec;
};
typedef struct {
	int si_signo;
	int si_errno;
	int si_code;
	pid_t si_pid;
	uid_t si_uid;
	int si_status;
} siginfo_t;

/* ---- limits.h ---- */
#define CHAR_BIT 8
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX 4294967295U
#define LONG_MAX 9223372036854775807L
#define SSIZE_MAX LONG_MAX
#define PATH_MAX 1024
#define NAME_MAX 255

/* ---- errno.h ---- */
int *__error(void);
#define errno (*__error())
#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define EBADF 9
#define ECHILD 10
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EXDEV 18
#define ENODEV 19
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENFILE 23
#define EMFILE 24
#define ETXTBSY 26
#define ENOSPC 28
#define EROFS 30
#define EMLINK 31
#define ERANGE 34
#define EAGAIN 35
#define ENOTSUP 45
#define ENOBUFS 55
#define ELOOP 62
#define ENAMETOOLONG 63
#define ENOTEMPTY 66
#define ESTALE 70
#define ENOSYS 78
#define EOVERFLOW 84

/* ---- time.h ---- */
typedef enum {
	CLOCK_REALTIME = 0,
	CLOCK_MONOTONIC = 6
} clockid_t;
int clock_gettime(clockid_t clock, struct timespec *ts);
int nanosleep(const struct timespec *req, struct timespec *rem);

/* ---- sys/stat.h ---- */
/* macOS names its times st_*timespec */
struct stat {
	dev_t st_dev;
	mode_t st_mode;
	nlink_t st_nlink;
	ino_t st_ino;
	uid_t st_uid;
	gid_t st_gid;
	dev_t st_rdev;
	struct timespec st_atimespec;
	struct timespec st_mtimespec;
	struct timespec st_ctimespec;
	struct timespec st_birthtimespec;
	off_t st_size;
	blkcnt_t st_blocks;
	blksize_t st_blksize;
	uint32_t st_flags;
	uint32_t st_gen;
};
#define S_IFMT 0170000
#define S_IFIFO 0010000
#define S_IFCHR 0020000
#define S_IFDIR 0040000
#define S_IFBLK 0060000
#define S_IFREG 0100000
#define S_IFLNK 0120000
#define S_IFSOCK 0140000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)
#define S_ISUID 0004000
#define S_ISGID 0002000
#define S_IWGRP 0000020
#define S_IWOTH 0000002
int fstat(int fd, struct stat *st);
int fstatat(int dirfd, const char *path, struct stat *st, int flags);
int mkdir(const char *path, mode_t mode);
int mkdirat(int dirfd, const char *path, mode_t mode);

/* ---- fcntl.h ---- */
#define O_RDONLY 0x0000
#define O_WRONLY 0x0001
#define O_RDWR 0x0002
#define O_NONBLOCK 0x0004
#define O_APPEND 0x0008
#define O_NOFOLLOW 0x0100
#define O_CREAT 0x0200
#define O_TRUNC 0x0400
#define O_EXCL 0x0800
#define O_NOCTTY 0x20000
#define O_DIRECTORY 0x100000
#define O_CLOEXEC 0x1000000
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define FD_CLOEXEC 1
#define AT_FDCWD -2
#define AT_SYMLINK_NOFOLLOW 0x0020
#define AT_REMOVEDIR 0x0080
int open(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int fcntl(int fd, int cmd, ...);

/* ---- unistd.h ---- */
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2
#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4
int access(const char *path, int mode);
int close(int fd);
int dup(int fd);
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
ssize_t readlink(const char *path, char *buf, size_t n);
char *getcwd(char *buf, size_t n);
int pipe(int fds[2]);
pid_t fork(void);
void _exit(int status) __attribute__((noreturn));
int unlink(const char *path);
int rmdir(const char *path);
int unlinkat(int dirfd, const char *path, int flags);
uid_t getuid(void);
uid_t geteuid(void);
pid_t getpid(void);

/* ---- stdlib.h ---- */
void *malloc(size_t n);
void *calloc(size_t count, size_t n);
void *realloc(void *p, size_t n);
void free(void *p);
char *realpath(const char *path, char *resolved);
char *mkdtemp(char *template);
char *getenv(const char *name);
void abort(void) __attribute__((noreturn));
unsigned long strtoul(const char *s, char **end, int base);
long strtol(const char *s, char **end, int base);

/* ---- string.h ---- */
/* strerror_r is POSIX's, returning int */
void *memchr(const void *s, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *s, int c, size_t n);
char *strcat(char *dst, const char *src);
char *strchr(const char *s, int c);
int strcmp(const char *a, const char *b);
char *strcpy(char *dst, const char *src);
size_t strcspn(const char *s, const char *reject);
char *strdup(const char *s);
int strerror_r(int errnum, char *buf, size_t n);
size_t strlen(const char *s);
int strncmp(const char *a, const char *b, size_t n);
char *strncpy(char *dst, const char *src, size_t n);
char *strndup(const char *s, size_t n);
size_t strnlen(const char *s, size_t n);
char *strrchr(const char *s, int c);
size_t strspn(const char *s, const char *accept);
char *strstr(const char *s, const char *find);

/* ---- stdio.h ---- */
int snprintf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* ---- dirent.h ---- */
typedef struct sandy_darwin_dir DIR;
struct dirent {
	ino_t d_ino;
	uint64_t d_seekoff;
	uint16_t d_reclen;
	uint16_t d_namlen;
	uint8_t d_type;
	char d_name[1024];
};
#define DT_UNKNOWN 0
#define DT_FIFO 1
#define DT_CHR 2
#define DT_DIR 4
#define DT_BLK 6
#define DT_REG 8
#define DT_LNK 10
#define DT_SOCK 12
DIR *opendir(const char *path);
DIR *fdopendir(int fd);
struct dirent *readdir(DIR *d);
int closedir(DIR *d);

/* ---- poll.h ---- */
typedef unsigned int nfds_t;
struct pollfd {
	int fd;
	short events;
	short revents;
};
#define POLLIN 0x0001
#define POLLERR 0x0008
#define POLLHUP 0x0010
int poll(struct pollfd *fds, nfds_t n, int timeout);

/* ---- signal.h ---- */
#define SIGKILL 9
#define SIGTERM 15
#define SIGCHLD 20
#define SIG_UNBLOCK 2
#define SIG_SETMASK 3
#define SIG_DFL ((void (*)(int))0)
int kill(pid_t pid, int sig);
int sigemptyset(sigset_t *set);
int sigfillset(sigset_t *set);
int sigaddset(sigset_t *set, int sig);
int sigprocmask(int how, const sigset_t *set, sigset_t *old);
void (*signal(int sig, void (*handler)(int)))(int);

/* ---- sys/resource.h ---- */
typedef uint64_t rlim_t;
struct rlimit {
	rlim_t rlim_cur;
	rlim_t rlim_max;
};
#define RLIMIT_CORE 4
int getrlimit(int resource, struct rlimit *rl);
int setrlimit(int resource, const struct rlimit *rl);

/* ---- sys/wait.h ---- */
#define WNOHANG 0x00000001
#define WEXITED 0x00000004
#define WNOWAIT 0x00000020
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_DUMPED 3
#define WIFEXITED(s) (((s) & 0177) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0177) != 0177 && ((s) & 0177) != 0)
#define WTERMSIG(s) ((s) & 0177)
pid_t waitpid(pid_t pid, int *status, int options);
int waitid(idtype_t type, id_t id, siginfo_t *info, int options);

/* ---- spawn.h ---- */
/* opaque pointers on macOS */
typedef void *posix_spawn_file_actions_t;
typedef void *posix_spawnattr_t;
#define POSIX_SPAWN_SETPGROUP 0x0002
#define POSIX_SPAWN_SETSIGDEF 0x0004
#define POSIX_SPAWN_SETSIGMASK 0x0008
int posix_spawn(pid_t *pid, const char *path,
		const posix_spawn_file_actions_t *actions,
		const posix_spawnattr_t *attr, char *const argv[],
		char *const envp[]);
int posix_spawn_file_actions_init(posix_spawn_file_actions_t *a);
int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *a);
int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *a, int fd,
				     const char *path, int flags, mode_t mode);
int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *a, int fd,
				     int to);
int posix_spawnattr_init(posix_spawnattr_t *a);
int posix_spawnattr_destroy(posix_spawnattr_t *a);
int posix_spawnattr_setflags(posix_spawnattr_t *a, short flags);
int posix_spawnattr_setpgroup(posix_spawnattr_t *a, pid_t pgroup);
int posix_spawnattr_setsigdefault(posix_spawnattr_t *a, const sigset_t *set);
int posix_spawnattr_setsigmask(posix_spawnattr_t *a, const sigset_t *set);

/* ---- sys/utsname.h ---- */
struct utsname {
	char sysname[256];
	char nodename[256];
	char release[256];
	char version[256];
	char machine[256];
};
int uname(struct utsname *u);

#endif

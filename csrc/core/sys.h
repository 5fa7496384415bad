/* The Linux system calls the backend makes by number, one thin wrapper
 * each, written once: every file in csrc/linux/ includes this one instead
 * of calling syscall() itself or spelling its own fallbacks.
 *
 * Why by number: glibc wraps some of these only from 2.36 (open_tree,
 * move_mount, mount_setattr, fsopen, fsconfig, fsmount) and some not at
 * all (openat2, Landlock), and a glibc wrapper in
 * the addon raises the glibc it needs. Each wrapper does one job: it
 * returns what the system call returns, with errno as the kernel set it.
 * (Test builds wrap syscall() with ld --wrap, so every call below can be
 * made to fail: csrc/Makefile's coverage, csrc/test/launcher_hooks.c.)
 *
 * Debian 12's headers (Linux 6.1) lack the newer Landlock ABIs: their
 * numbers, constants and structure layouts are defined here, once. */
#ifndef SANDY_SYS_H
#define SANDY_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef __GLIBC__
/* musl (the shipped launcher, csrc/Makefile's launcher) has neither
 * struct mount_attr (glibc's <sys/mount.h> from 2.36) nor struct statx
 * (glibc's <sys/stat.h> from 2.28): take the kernel's own, from the UAPI
 * headers that build supplies. */
#include <linux/mount.h>
#include <linux/stat.h>
#endif

/* ---- numbers (the same on every architecture from 424 on) ---------- */

#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen 430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig 431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount 432
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_register
#define __NR_io_uring_register 427
#endif
#ifndef __NR_faccessat2
#define __NR_faccessat2 439
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_seccomp
#define __NR_seccomp 317 /* x86_64; every other header has its own */
#endif

/* ---- constants ------------------------------------------------------ */

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_CREATE_RULESET_ERRATA
#define LANDLOCK_CREATE_RULESET_ERRATA (1U << 1)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
#ifndef LANDLOCK_RULE_NET_PORT
#define LANDLOCK_RULE_NET_PORT 2 /* ABI 4 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* Our own names: the installed struct landlock_ruleset_attr is the ABI 1
 * layout and cannot be redefined. The kernel accepts any prefix size. */
struct sandy_ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct sandy_ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct sandy_ll_net_port {
	uint64_t allowed_access;
	uint64_t port;
};

/* ---- the wrappers ---------------------------------------------------- */

static inline int sys_openat2(int dirfd, const char *path,
			      const struct open_how *how, size_t size)
{
	return (int)syscall(__NR_openat2, dirfd, path, how, size);
}

/* openat2 with only flags and resolve set, the one form the backend
 * uses. */
static inline int sandy_open_how(int dirfd, const char *path,
				 unsigned long long flags,
				 unsigned long long resolve)
{
	struct open_how how = {.flags = flags, .resolve = resolve};

	return sys_openat2(dirfd, path, &how, sizeof(how));
}

static inline int sys_faccessat2(int dirfd, const char *path, int mode,
				 int flags)
{
	return (int)syscall(__NR_faccessat2, dirfd, path, mode, flags);
}

struct io_uring_params;
static inline int sys_io_uring_setup(unsigned entries,
				     struct io_uring_params *params)
{
	return (int)syscall(__NR_io_uring_setup, entries, params);
}

static inline int sys_io_uring_register(int ring, unsigned opcode,
					const void *arg, unsigned n)
{
	return (int)syscall(__NR_io_uring_register, ring, opcode, arg, n);
}

static inline int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return (int)syscall(__NR_pidfd_open, pid, flags);
}

static inline int sys_open_tree(int dirfd, const char *path,
				unsigned int flags)
{
	return (int)syscall(__NR_open_tree, dirfd, path, flags);
}

/* renameat2's flag that refuses to replace an existing name */
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
static inline int sys_renameat2(int olddirfd, const char *oldpath,
				int newdirfd, const char *newpath,
				unsigned int flags)
{
	return (int)syscall(__NR_renameat2, olddirfd, oldpath, newdirfd,
			    newpath, flags);
}

static inline int sys_move_mount(int from_dirfd, const char *from_path,
				 int to_dirfd, const char *to_path,
				 unsigned int flags)
{
	return (int)syscall(__NR_move_mount, from_dirfd, from_path, to_dirfd,
			    to_path, flags);
}

static inline int sys_mount_setattr(int dirfd, const char *path,
				    unsigned int flags,
				    const struct mount_attr *attr, size_t size)
{
	return (int)syscall(__NR_mount_setattr, dirfd, path, flags, attr,
			    size);
}

static inline int sys_fsopen(const char *fs_name, unsigned int flags)
{
	return (int)syscall(__NR_fsopen, fs_name, flags);
}

static inline int sys_fsconfig(int fd, unsigned int cmd, const char *key,
			       const void *value, int aux)
{
	return (int)syscall(__NR_fsconfig, fd, cmd, key, value, aux);
}

static inline int sys_fsmount(int fd, unsigned int flags,
			      unsigned int attr_flags)
{
	return (int)syscall(__NR_fsmount, fd, flags, attr_flags);
}

static inline int sys_pivot_root(const char *new_root, const char *put_old)
{
	return (int)syscall(__NR_pivot_root, new_root, put_old);
}

static inline int sys_statx(int dirfd, const char *path, int flags,
			    unsigned int mask, struct statx *out)
{
	return (int)syscall(__NR_statx, dirfd, path, flags, mask, out);
}

static inline long sys_landlock_create_ruleset(const void *attr, size_t size,
					       uint32_t flags)
{
	return syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static inline int sys_landlock_add_rule(int ruleset_fd, int rule_type,
					const void *rule_attr, uint32_t flags)
{
	return (int)syscall(__NR_landlock_add_rule, ruleset_fd, rule_type,
			    rule_attr, flags);
}

static inline int sys_landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
	return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

static inline int sys_seccomp(unsigned int op, unsigned int flags,
			      void *args)
{
	return (int)syscall(__NR_seccomp, op, flags, args);
}

static inline long sys_keyctl(int op, unsigned long arg2)
{
	return syscall(__NR_keyctl, op, arg2);
}

static inline int sys_capget(struct __user_cap_header_struct *hdr,
			     struct __user_cap_data_struct *data)
{
	return (int)syscall(__NR_capget, hdr, data);
}

static inline int sys_capset(struct __user_cap_header_struct *hdr,
			     const struct __user_cap_data_struct *data)
{
	return (int)syscall(__NR_capset, hdr, data);
}

/* Writes all of text to a /proc file (uid_map, gid_map, setgroups) in one
 * write(2), as those files require: 0, or -1 with errno (a short write
 * leaves errno as the write left it). */
static inline int sandy_write_proc(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)len ? 0 : -1;
}

#endif

/* seccomp filter tests: each rule is refused with the filter loaded and not
 * refused by seccomp without it (arguments are chosen so the unfiltered
 * kernel answers with something other than the filter's errno: EFAULT,
 * EINVAL, EBADF or success). Children enter a user + mount namespace first
 * so that privilege checks pass without the filter, as root or not. */
#include <fcntl.h>
#include <linux/keyctl.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "../linux/linux.h"
#include "harness.h"

#define V_DEFAULT 0u      /* network allowed, no subprocesses */
#define V_NET_BLOCKED 1u
#define V_SUBPROC 2u
#define NO_USERNS (-100000L)
#define LOAD_FAILED (-100001L)

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

typedef struct sc_case {
	const char *name;
	unsigned variant;
	long (*call)(void);
	int denied;      /* errno with the filter; 0: must not be refused */
	int sig;         /* signal with the filter (foreign ABIs) */
	bool need_userns; /* the unfiltered answer needs privilege */
} sc_case;

typedef struct sc_run {
	const sc_case *c;
	bool filtered;
} sc_run;

static long raw(long nr, long a, long b, long c, long d, long e)
{
	return sysret(syscall(nr, a, b, c, d, e));
}

#define BAD ((long)1) /* an unmapped user pointer */

static long c_add_key(void) { return raw(SYS_add_key, BAD, 0, 0, 0, 0); }
static long c_request_key(void) { return raw(SYS_request_key, BAD, 0, 0, 0, 0); }
static long c_keyctl(void) { return raw(SYS_keyctl, 9999, 0, 0, 0, 0); }
static long c_mount(void) { return raw(SYS_mount, 0, BAD, 0, 0, 0); }
static long c_umount2(void) { return raw(SYS_umount2, (long)"/", 0x7fff0000, 0, 0, 0); }
static long c_pivot_root(void) { return raw(SYS_pivot_root, BAD, BAD, 0, 0, 0); }
static long c_chroot(void) { return raw(SYS_chroot, BAD, 0, 0, 0, 0); }
static long c_open_tree(void) { return raw(428, -1, BAD, 0xffffffffL, 0, 0); }
static long c_move_mount(void) { return raw(429, -1, BAD, -1, BAD, 0xffffffffL); }
static long c_fsopen(void) { return raw(430, BAD, 0xffffffffL, 0, 0, 0); }
static long c_fsconfig(void) { return raw(431, -1, 99, 0, 0, 0); }
static long c_fsmount(void) { return raw(432, -1, 0xffffffffL, 0, 0, 0); }
static long c_fspick(void) { return raw(433, -1, BAD, 0xffffffffL, 0, 0); }
static long c_mount_setattr(void) { return raw(442, -1, BAD, 0xffffffffL, 0, 0); }
static long c_open_tree_attr(void) { return raw(467, -1, BAD, 0xffffffffL, 0, 0); }
static long c_unshare(void) { return raw(SYS_unshare, 0x1, 0, 0, 0, 0); }
static long c_setns(void) { return raw(SYS_setns, -1, 0, 0, 0, 0); }
static long c_ptrace(void) { return raw(SYS_ptrace, 9999, getppid(), 0, 0, 0); }
static long c_vm_readv(void) { return raw(SYS_process_vm_readv, getpid(), 0, 0, 0, 0); }
static long c_vm_writev(void) { return raw(SYS_process_vm_writev, getpid(), 0, 0, 0, 0); }
static long c_kcmp(void) { return raw(SYS_kcmp, getpid(), getpid(), 99, 0, 0); }
static long c_pidfd_getfd(void) { return raw(438, -1, 0, 0, 0, 0); }
static long c_uring_setup(void) { return raw(425, 1, BAD, 0, 0, 0); }
static long c_uring_enter(void) { return raw(426, -1, 0, 0, 0, 0); }
static long c_uring_register(void) { return raw(427, -1, 0, 0, 0, 0); }
static long c_userfaultfd(void) { return raw(SYS_userfaultfd, 0xffffffffL, 0, 0, 0, 0); }
static long c_bpf(void) { return raw(SYS_bpf, 9999, 0, 0, 0, 0); }
static long c_perf(void) { return raw(SYS_perf_event_open, BAD, 0, -1, -1, 0); }
static long c_uselib(void) { return raw(SYS_uselib, BAD, 0, 0, 0, 0); }

/* ioctl on fd -1: seccomp answers before the descriptor is looked up. */
static long c_tiocsti(void) { return raw(SYS_ioctl, -1, TIOCSTI, BAD, 0, 0); }
static long c_tiocsti_high(void)
{
	return raw(SYS_ioctl, -1, (long)(0xdead000000000000UL | TIOCSTI), BAD,
		   0, 0);
}
static long c_tioclinux(void) { return raw(SYS_ioctl, -1, TIOCLINUX, BAD, 0, 0); }
static long c_tioclinux_high(void)
{
	return raw(SYS_ioctl, -1, (long)(0x100000000UL | TIOCLINUX), BAD, 0,
		   0);
}
static long c_tiocgwinsz(void) { return raw(SYS_ioctl, -1, TIOCGWINSZ, BAD, 0, 0); }
static long c_tiocsetd(void) { return raw(SYS_ioctl, -1, TIOCSETD, BAD, 0, 0); }
/* the console ranges, by their first and last numbers and with bits
 * above 32 (the kernel ignores them); V4L2's 'V' requests carry size
 * bits and stay allowed */
static long c_kd_first(void) { return raw(SYS_ioctl, -1, 0x4b00, BAD, 0, 0); }
static long c_kd_last_high(void)
{
	return raw(SYS_ioctl, -1, (long)(0x700000000UL | 0x4bff), BAD, 0, 0);
}
static long c_vt_activate(void) { return raw(SYS_ioctl, -1, 0x5606, BAD, 0, 0); }
static long c_vt_last(void) { return raw(SYS_ioctl, -1, 0x56ff, BAD, 0, 0); }
static long c_v4l2_querycap(void)
{
	return raw(SYS_ioctl, -1, 0x80685600L, BAD, 0, 0);
}
static long c_execveat_empty(void)
{
	return raw(SYS_execveat, -1, (long)"", 0, 0, AT_EMPTY_PATH);
}
static long c_execveat_path(void)
{
	return raw(SYS_execveat, -1, (long)"x", 0, 0, 0);
}

/* clone flag checks fail with EINVAL (CLONE_SIGHAND without CLONE_VM)
 * before any namespace work, so no process is created unfiltered. */
#define CLONE_CASE(fn, flag)                                                \
	static long fn(void)                                                \
	{                                                                   \
		return raw(SYS_clone, (flag) | CLONE_SIGHAND, 0, 0, 0, 0);  \
	}
CLONE_CASE(c_clone_newns, CLONE_NEWNS)
CLONE_CASE(c_clone_newcgroup, CLONE_NEWCGROUP)
CLONE_CASE(c_clone_newuts, CLONE_NEWUTS)
CLONE_CASE(c_clone_newipc, CLONE_NEWIPC)
CLONE_CASE(c_clone_newuser, CLONE_NEWUSER)
CLONE_CASE(c_clone_newpid, CLONE_NEWPID)
CLONE_CASE(c_clone_newnet, CLONE_NEWNET)
CLONE_CASE(c_clone_newuser_high, (long)0x100000000L | CLONE_NEWUSER)
CLONE_CASE(c_clone_thread_flags, CLONE_THREAD)
static long c_clone3(void) { return raw(435, 0, 0, 0, 0, 0); }

static long reap(pid_t pid)
{
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(0);
	return waitpid(pid, &st, 0) == pid ? 0 : -errno;
}

static long c_fork(void) { return reap((pid_t)syscall(SYS_fork)); }
static long c_vfork(void) { return reap(vfork()); }
static long c_clone_process(void)
{
	return reap((pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
}
static long c_glibc_fork(void) { return reap(fork()); }

static long c_posix_spawn(void)
{
	char *argv[] = {"true", NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, NULL);
	int st;

	if (rc != 0)
		return -rc;
	return waitpid(pid, &st, 0) == pid ? 0 : -errno;
}

static void *thread_body(void *arg)
{
	return arg;
}

static long c_pthread(void)
{
	pthread_t t;
	void *out = NULL;
	int rc = pthread_create(&t, NULL, thread_body, (void *)42);

	if (rc != 0)
		return -rc;
	rc = pthread_join(t, &out);
	if (rc != 0)
		return -rc;
	return (long)out;
}

static long sock(int domain, int type)
{
	long fd = sysret(socket(domain, type, 0));

	if (fd >= 0)
		close((int)fd);
	return fd >= 0 ? 0 : fd;
}

static long c_socket_inet(void) { return sock(AF_INET, SOCK_STREAM); }
static long c_socket_udp(void) { return sock(AF_INET, SOCK_DGRAM); }
static long c_socket_inet6(void) { return sock(AF_INET6, SOCK_STREAM); }
static long c_socket_netlink(void) { return sock(AF_NETLINK, SOCK_RAW); }
static long c_socket_unix(void) { return sock(AF_UNIX, SOCK_STREAM); }
static long c_socket_unix_high(void)
{
	long fd = raw(SYS_socket, (long)0x100000000L | AF_UNIX, SOCK_STREAM, 0,
		      0, 0);

	if (fd >= 0)
		close((int)fd);
	return fd >= 0 ? 0 : fd;
}

static long c_socketpair(void)
{
	int sv[2];
	char b = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -errno;
	if (write(sv[0], "x", 1) != 1 || read(sv[1], &b, 1) != 1)
		return -EIO;
	close(sv[0]);
	close(sv[1]);
	return b == 'x' ? 0 : -EIO;
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

static long memfd(unsigned flags)
{
	long fd = raw(SYS_memfd_create, (long)"t", flags, 0, 0, 0);

	if (fd >= 0)
		close((int)fd);
	return fd >= 0 ? 0 : fd;
}

static long c_memfd_exec(void) { return memfd(MFD_CLOEXEC); }
static long c_memfd_noexec(void) { return memfd(MFD_CLOEXEC | MFD_NOEXEC_SEAL); }

/* The escape memfd_create's rule closes: an executable memfd run through
 * /proc/self/fd. Unfiltered it runs (this very binary, exit 0). */
static long c_memfd_run(void)
{
	char buf[65536], path[64];
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	long fd = raw(SYS_memfd_create, (long)"t", 0, 0, 0, 0);
	ssize_t n;
	pid_t pid;
	int st;

	if (fd < 0 || in < 0)
		return fd < 0 ? fd : -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write((int)fd, buf, (size_t)n) != n)
			return -EIO;
	snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
	pid = fork();
	if (pid == 0) {
		execl(path, "seccomp_test", "--exit0", (char *)NULL);
		_exit(126);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EACCES;
}

/* Foreign ABIs: x32 numbering and the i386 gate, both getpid. */
static long c_x32(void) { return raw(0x40000000L + SYS_getpid, 0, 0, 0, 0, 0); }
static long c_i386(void)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	return ret;
}

static const sc_case cases[] = {
	{"add_key", V_DEFAULT, c_add_key, EPERM, 0, false},
	{"request_key", V_DEFAULT, c_request_key, EPERM, 0, false},
	{"keyctl", V_DEFAULT, c_keyctl, EPERM, 0, false},
	{"mount", V_DEFAULT, c_mount, EPERM, 0, true},
	{"umount2", V_DEFAULT, c_umount2, EPERM, 0, true},
	{"pivot_root", V_DEFAULT, c_pivot_root, EPERM, 0, true},
	{"chroot", V_DEFAULT, c_chroot, EPERM, 0, false},
	{"open_tree", V_DEFAULT, c_open_tree, EPERM, 0, true},
	{"move_mount", V_DEFAULT, c_move_mount, EPERM, 0, true},
	{"fsopen", V_DEFAULT, c_fsopen, EPERM, 0, true},
	{"fsconfig", V_DEFAULT, c_fsconfig, EPERM, 0, true},
	{"fsmount", V_DEFAULT, c_fsmount, EPERM, 0, true},
	{"fspick", V_DEFAULT, c_fspick, EPERM, 0, true},
	{"mount_setattr", V_DEFAULT, c_mount_setattr, EPERM, 0, true},
	{"open_tree_attr", V_DEFAULT, c_open_tree_attr, EPERM, 0, true},
	{"unshare", V_SUBPROC, c_unshare, EPERM, 0, false},
	{"setns", V_SUBPROC, c_setns, EPERM, 0, false},
	{"ptrace", V_SUBPROC, c_ptrace, EPERM, 0, false},
	{"process_vm_readv", V_DEFAULT, c_vm_readv, EPERM, 0, false},
	{"process_vm_writev", V_DEFAULT, c_vm_writev, EPERM, 0, false},
	{"kcmp", V_DEFAULT, c_kcmp, EPERM, 0, false},
	{"pidfd_getfd", V_DEFAULT, c_pidfd_getfd, EPERM, 0, false},
	{"io_uring_setup", V_DEFAULT, c_uring_setup, EPERM, 0, false},
	{"io_uring_enter", V_DEFAULT, c_uring_enter, EPERM, 0, false},
	{"io_uring_register", V_DEFAULT, c_uring_register, EPERM, 0, false},
	{"userfaultfd", V_DEFAULT, c_userfaultfd, EPERM, 0, false},
	{"bpf", V_DEFAULT, c_bpf, EPERM, 0, false},
	{"perf_event_open", V_DEFAULT, c_perf, EPERM, 0, false},
	{"uselib", V_DEFAULT, c_uselib, EPERM, 0, false},
	{"ioctl TIOCSTI", V_DEFAULT, c_tiocsti, EPERM, 0, false},
	{"ioctl TIOCSTI, high bits set", V_DEFAULT, c_tiocsti_high, EPERM, 0,
	 false},
	{"ioctl TIOCLINUX", V_DEFAULT, c_tioclinux, EPERM, 0, false},
	{"ioctl TIOCLINUX, high bits set", V_DEFAULT, c_tioclinux_high, EPERM,
	 0, false},
	{"ioctl TIOCGWINSZ allowed", V_DEFAULT, c_tiocgwinsz, 0, 0, false},
	{"ioctl TIOCSETD", V_DEFAULT, c_tiocsetd, EPERM, 0, false},
	{"ioctl KD*, first", V_DEFAULT, c_kd_first, EPERM, 0, false},
	{"ioctl KD*, last, high bits set", V_DEFAULT, c_kd_last_high, EPERM, 0,
	 false},
	{"ioctl VT_ACTIVATE", V_DEFAULT, c_vt_activate, EPERM, 0, false},
	{"ioctl VT*, last", V_DEFAULT, c_vt_last, EPERM, 0, false},
	{"ioctl VIDIOC_QUERYCAP allowed", V_DEFAULT, c_v4l2_querycap, 0, 0,
	 false},
	{"execveat AT_EMPTY_PATH", V_SUBPROC, c_execveat_empty, EPERM, 0,
	 false},
	{"execveat with a path allowed", V_SUBPROC, c_execveat_path, 0, 0,
	 false},
	{"clone CLONE_NEWNS", V_SUBPROC, c_clone_newns, EPERM, 0, false},
	{"clone CLONE_NEWCGROUP", V_SUBPROC, c_clone_newcgroup, EPERM, 0,
	 false},
	{"clone CLONE_NEWUTS", V_SUBPROC, c_clone_newuts, EPERM, 0, false},
	{"clone CLONE_NEWIPC", V_SUBPROC, c_clone_newipc, EPERM, 0, false},
	{"clone CLONE_NEWUSER", V_SUBPROC, c_clone_newuser, EPERM, 0, false},
	{"clone CLONE_NEWPID", V_SUBPROC, c_clone_newpid, EPERM, 0, false},
	{"clone CLONE_NEWNET", V_SUBPROC, c_clone_newnet, EPERM, 0, false},
	{"clone CLONE_NEWUSER, high bits set", V_SUBPROC, c_clone_newuser_high,
	 EPERM, 0, false},
	{"clone3 is ENOSYS (subprocesses allowed)", V_SUBPROC, c_clone3,
	 ENOSYS, 0, false},
	{"clone3 is ENOSYS (no subprocesses)", V_DEFAULT, c_clone3, ENOSYS, 0,
	 false},
	{"fork without subprocesses", V_DEFAULT, c_fork, EPERM, 0, false},
	{"glibc fork() without subprocesses", V_DEFAULT, c_glibc_fork, EPERM,
	 0, false},
	{"vfork without subprocesses", V_DEFAULT, c_vfork, EPERM, 0, false},
	{"clone(SIGCHLD) without subprocesses", V_DEFAULT, c_clone_process,
	 EPERM, 0, false},
	{"posix_spawn without subprocesses", V_DEFAULT, c_posix_spawn, EPERM,
	 0, false},
	{"clone CLONE_THREAD not refused", V_DEFAULT, c_clone_thread_flags, 0,
	 0, false},
	{"threads without subprocesses", V_DEFAULT, c_pthread, 0, 0, false},
	{"fork with subprocesses", V_SUBPROC, c_fork, 0, 0, false},
	{"vfork with subprocesses", V_SUBPROC, c_vfork, 0, 0, false},
	{"posix_spawn with subprocesses", V_SUBPROC, c_posix_spawn, 0, 0,
	 false},
	{"threads with subprocesses", V_SUBPROC, c_pthread, 0, 0, false},
	{"socket AF_INET blocked", V_NET_BLOCKED, c_socket_inet, EACCES, 0,
	 false},
	{"socket AF_INET UDP blocked", V_NET_BLOCKED, c_socket_udp, EACCES, 0,
	 false},
	{"socket AF_INET6 blocked", V_NET_BLOCKED, c_socket_inet6, EACCES, 0,
	 false},
	{"socket AF_NETLINK blocked", V_NET_BLOCKED, c_socket_netlink, EACCES,
	 0, false},
	{"socket AF_UNIX with high bits blocked", V_NET_BLOCKED,
	 c_socket_unix_high, EACCES, 0, false},
	{"socket AF_UNIX allowed when blocked", V_NET_BLOCKED, c_socket_unix, 0,
	 0, false},
	{"socketpair AF_UNIX works when blocked", V_NET_BLOCKED, c_socketpair,
	 0, 0, false},
	{"socket AF_INET allowed when not blocked", V_DEFAULT, c_socket_inet,
	 0, 0, false},
	{"memfd_create without MFD_NOEXEC_SEAL is ENOSYS", V_DEFAULT,
	 c_memfd_exec, ENOSYS, 0, false},
	{"memfd_create with MFD_NOEXEC_SEAL is ENOSYS too", V_DEFAULT,
	 c_memfd_noexec, ENOSYS, 0, false},
	{"executing a memfd through /proc/self/fd refused", V_SUBPROC,
	 c_memfd_run, ENOSYS, 0, false},
	{"x32 system call kills", V_DEFAULT, c_x32, 0, SIGSYS, false},
	{"i386 int 0x80 kills", V_DEFAULT, c_i386, 0, SIGSYS, false},
};

static long run_case(void *arg)
{
	const sc_run *run = arg;
	const sandy_host_facts full = {.with_view = true};
	sandy_resolved r = {0};
	sandy_error err = {0};

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 && run->c->need_userns)
		return NO_USERNS;
	if (run->filtered) {
		r.network = (run->c->variant & V_NET_BLOCKED)
				    ? SANDY_NETWORK_BLOCK_ALL
				    : SANDY_NETWORK_ALLOW_ALL;
		r.allow_subprocesses = (run->c->variant & V_SUBPROC) != 0;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    sandy_seccomp_load(sandy_plan_seccomp(&r, &full), &err) !=
			    0) {
			fprintf(stderr, "load: %s\n", err.message);
			return LOAD_FAILED;
		}
	}
	return run->c->call();
}

static bool same_outcome(child_result a, child_result b)
{
	return a.signal == b.signal && a.reported == b.reported &&
	       (a.value == b.value || (a.value >= 0 && b.value >= 0));
}

static void run_one(const sc_case *c)
{
	sc_run plain = {c, false}, filt = {c, true};
	child_result u = run_child(run_case, &plain);
	child_result f = run_child(run_case, &filt);
	char what[160], ubuf[64];
	bool ok;

	if (u.reported && u.value == NO_USERNS) {
		tap_skip("no user namespace for the unfiltered run", "%s", c->name);
		return;
	}
	describe(ubuf, sizeof(ubuf), u);
	if (c->sig != 0 && u.signal != 0) {
		/* Some kernels (paravirtualised guests) kill the call before any
		 * filter could: the filter's answer cannot be seen here, and the
		 * BPF cases check the filter itself. */
		snprintf(what, sizeof(what),
			 "not covered: a call the kernel refuses unfiltered "
			 "[unfiltered: %s]",
			 ubuf);
		tap_skip(what, "%s", c->name);
		return;
	}
	snprintf(what, sizeof(what), "%s [unfiltered: %s]", c->name, ubuf);
	if (c->sig != 0)
		ok = f.signal == c->sig && u.signal != c->sig;
	else if (c->denied != 0)
		ok = is_errno(f, c->denied) && u.signal == 0 && u.reported &&
		     u.value != -c->denied;
	else
		ok = same_outcome(u, f) && !is_errno(f, EPERM) &&
		     !is_errno(f, EACCES);
	check(ok, what, f);
}

int main(int argc, char **argv)
{

	if (argc > 1 && strcmp(argv[1], "--exit0") == 0)
		return 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_one(&cases[i]);
	return tap_done();
}

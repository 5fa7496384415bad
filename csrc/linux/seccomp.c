/* seccomp: the last step before execve. Closes what Landlock and the view
 * leave open (docs/backends.md, "How the Linux launcher works").
 *
 * The rules are written once, with libseccomp, in sandy_seccomp_build().
 * Only eight filters exist (network blocked or not x subprocesses allowed
 * or not x a PID namespace of its own or not), so they are compiled to BPF
 * ahead of time for every architecture
 * the package ships (x86_64, aarch64) by csrc/gen/seccomp_gen.c into
 * seccomp_filters.h, and loaded directly: the launcher never links
 * libseccomp (building with it at run time would cost ~250 us plus probing
 * calls where loading ready BPF costs ~140 us). csrc/Makefile (seccomp-filters)
 * regenerates the header, the aarch64 half under qemu-user, and fails when
 * it is stale; an architecture the header lacks does not compile. Only
 * test builds (SANDY_SECCOMP_RUNTIME_BUILD: the per-layer meta-test, the
 * run-time half of seccomp_test) build the rules at run time.
 *
 * Foreign system call ABIs are killed, not filtered: the filter names only
 * the native architecture and its bad-architecture action is
 * KILL_PROCESS, so i386 entry points (int 0x80, including from a 64-bit
 * process) and x32 (__X32_SYSCALL_BIT numbers) end the process before any
 * call runs. That is stricter and simpler than repeating every rule for
 * numbering schemes with their own multiplexers (i386 socketcall, whose
 * arguments live in memory seccomp cannot read). */
#include "linux.h"
#include "../core/sys.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if !defined(SANDY_SECCOMP_GENERATOR) && !defined(SANDY_SECCOMP_RUNTIME_BUILD)
#define SANDY_SECCOMP_PRECOMPILED 1
#include "seccomp_filters.h"
#else
#define SANDY_SECCOMP_PRECOMPILED 0
#endif

#if !SANDY_SECCOMP_PRECOMPILED
#define SANDY_SECCOMP_WITH_LIBSECCOMP 1
#endif
#include "seccomp_build.h"

/* ------------------------------------------------------------------ */
/* The rules (libseccomp).                                             */
/* ------------------------------------------------------------------ */
#if !SANDY_SECCOMP_PRECOMPILED

#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

/* <linux/ioprio.h>'s "which" values */
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP 2

/* A system call by name, with its number for names libseccomp 2.5.4 does
 * not know. Numbers from 424 on are shared by every architecture. */
typedef struct sandy_sys {
	const char *name;
	int nr; /* 0: libseccomp must know the name */
} sandy_sys;

/* Denied with EPERM whatever the policy. */
static const sandy_sys always_denied[] = {
	/* key management: the session keyring is replaced, keep it so */
	{"add_key", 0}, {"request_key", 0}, {"keyctl", 0},
	/* mount API and root changes: the view must stay as built */
	{"mount", 0}, {"umount2", 0}, {"pivot_root", 0}, {"chroot", 0},
	{"open_tree", 428}, {"move_mount", 429}, {"fsopen", 430},
	{"fsconfig", 431}, {"fsmount", 432}, {"fspick", 433},
	{"mount_setattr", 442}, {"open_tree_attr", 467},
	/* namespaces (clone with CLONE_NEW* is below) */
	{"unshare", 0}, {"setns", 0},
	/* process inspection */
	{"ptrace", 0}, {"process_vm_readv", 0}, {"process_vm_writev", 0},
	{"kcmp", 0}, {"pidfd_getfd", 438},
	/* io_uring bypasses seccomp for the operations it submits */
	{"io_uring_setup", 425}, {"io_uring_enter", 426},
	{"io_uring_register", 427},
	/* kernel attack surface with no place in a confined target */
	{"userfaultfd", 0}, {"bpf", 0}, {"perf_event_open", 0},
	/* maps a library executable without the ordinary exec path */
	{"uselib", 0},
};

static const uint64_t clone_new_flags[] = {
	CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET,
};

static int sys_number(const sandy_sys *s)
{
	int nr = seccomp_syscall_resolve_name(s->name);

	if (nr == __NR_SCMP_ERROR && s->nr > 0)
		return s->nr;
	return nr;
}

/* Calls this architecture never had (aarch64 has no fork, vfork or
 * uselib: clone, filtered below, is its one way to a new process).
 * libseccomp names them with a negative pseudo-number; there is nothing to
 * filter. Any other unknown call is an error. */
static bool absent_is_fine(const char *name)
{
	return strcmp(name, "fork") == 0 || strcmp(name, "vfork") == 0 ||
	       strcmp(name, "uselib") == 0;
}

static int add_rule(scmp_filter_ctx ctx, uint32_t action, const sandy_sys *s,
		    unsigned n_args, const struct scmp_arg_cmp *args,
		    sandy_error *err)
{
	int nr = sys_number(s);
	int rc;

	if (nr < 0 && nr != __NR_SCMP_ERROR && absent_is_fine(s->name))
		return 0;
	if (nr < 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "seccomp: unknown system call %s", s->name);
	rc = seccomp_rule_add_exact_array(ctx, action, nr, n_args, args);
	if (rc != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "seccomp: rule for %s: %s", s->name,
				  strerror(-rc));
	return 0;
}

static int add_simple(scmp_filter_ctx ctx, uint32_t action, const char *name,
		      sandy_error *err)
{
	sandy_sys s = {name, 0};

	return add_rule(ctx, action, &s, 0, NULL, err);
}

/* One argument compared under a mask: (arg & mask) == value. */
static int add_masked(scmp_filter_ctx ctx, uint32_t action, const char *name,
		      unsigned arg, uint64_t mask, uint64_t value,
		      sandy_error *err)
{
	sandy_sys s = {name, 0};
	struct scmp_arg_cmp cmp = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value);

	return add_rule(ctx, action, &s, 1, &cmp, err);
}

/* Test builds only (test/meta/layers.test.js's meta-test, with
 * SANDY_SECCOMP_RUNTIME_BUILD): one always-denied call left out, to show
 * that the per-layer comparison notices a rule gone. A release build
 * never defines it, so the name matches nothing. */
#ifdef SANDY_TEST_DROP_RULE
#define DROPPED_RULE SANDY_TEST_DROP_RULE
#else
#define DROPPED_RULE ""
#endif

static int add_always_denied(scmp_filter_ctx ctx, sandy_error *err)
{
	size_t n = sizeof(always_denied) / sizeof(always_denied[0]);

	for (size_t i = 0; i < n; i++)
		if (strcmp(always_denied[i].name, DROPPED_RULE) != 0 &&
		    add_rule(ctx, SCMP_ACT_ERRNO(EPERM), &always_denied[i], 0,
			     NULL, err) != 0)
			return -1;
	return 0;
}

/* The first request of each console range (linux/kd.h, linux/vt.h). */
#define KD_REQUESTS 0x4b00u
#define VT_REQUESTS 0x5600u

static int add_arg_rules(scmp_filter_ctx ctx, sandy_error *err)
{
	size_t n = sizeof(clone_new_flags) / sizeof(clone_new_flags[0]);
	uint32_t eperm = SCMP_ACT_ERRNO(EPERM);

	for (size_t i = 0; i < n; i++)
		if (add_masked(ctx, eperm, "clone", 0, clone_new_flags[i],
			       clone_new_flags[i], err) != 0)
			return -1;
	/* The kernel takes the request as an unsigned int: compare the low
	 * 32 bits only, so high garbage cannot slip past. */
	if (add_masked(ctx, eperm, "ioctl", 1, 0xffffffffu, TIOCSTI, err) ||
	    add_masked(ctx, eperm, "ioctl", 1, 0xffffffffu, TIOCLINUX, err))
		return -1;
	/* A terminal's line discipline outlives the command: N_NULL would
	 * swallow all the user's later input and output. */
	if (add_masked(ctx, eperm, "ioctl", 1, 0xffffffffu, TIOCSETD, err))
		return -1;
	/* So do a virtual console's keyboard mode, font and the console
	 * shown: every request of the console's two ranges (KD* 0x4Bxx, VT*
	 * 0x56xx, plain numbers without size bits, unlike V4L2's 'V'). */
	if (add_masked(ctx, eperm, "ioctl", 1, 0xffffff00u, KD_REQUESTS, err) ||
	    add_masked(ctx, eperm, "ioctl", 1, 0xffffff00u, VT_REQUESTS, err))
		return -1;
	/* fexecve and memfd execution: the file was never checked by path. */
	if (add_masked(ctx, eperm, "execveat", 4, AT_EMPTY_PATH, AT_EMPTY_PATH,
		       err) != 0)
		return -1;
	/* A memfd lives on an internal mount no Landlock rule or view
	 * attribute governs: measured, execve("/proc/self/fd/N") of one runs
	 * under Landlock with no execute grant, and even one sealed with
	 * MFD_NOEXEC_SEAL is mapped executable by a granted dynamic loader
	 * reading /proc/self/fd/N. So none may be created: ENOSYS makes
	 * callers take their fallback (shm_open, O_TMPFILE), which the view
	 * and Landlock do govern. */
	if (add_simple(ctx, SCMP_ACT_ERRNO(ENOSYS), "memfd_create", err) != 0)
		return -1;
	/* clone3's flags live in memory the filter cannot read; glibc falls
	 * back to clone, whose flags it can. */
	return add_simple(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", err);
}

/* (arg & 0xffffffff) == value: the kernel takes these as int. */
#define LOW32(arg, value) SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, value)

/* A PID namespace bounds every call that names processes by number but
 * two: "who" 0 of the process-group scope is the caller's own group,
 * which is the host's (the Node process that spawned the launcher is in
 * it), so a command could renice it or set its I/O priority. */
static int add_own_group_rules(scmp_filter_ctx ctx, sandy_error *err)
{
	const sandy_sys setpriority = {"setpriority", 0};
	const sandy_sys ioprio_set = {"ioprio_set", 0};
	const struct scmp_arg_cmp pgrp[] = {LOW32(0, PRIO_PGRP), LOW32(1, 0)};
	const struct scmp_arg_cmp io_pgrp[] = {LOW32(0, IOPRIO_WHO_PGRP),
					       LOW32(1, 0)};
	uint32_t eperm = SCMP_ACT_ERRNO(EPERM);

	return add_rule(ctx, eperm, &setpriority, 2, pgrp, err) != 0 ||
			       add_rule(ctx, eperm, &ioprio_set, 2, io_pgrp,
					err) != 0
		       ? -1
		       : 0;
}

/* Without a PID namespace (the Landlock-only level) a process number
 * names a host process, and these calls change one of the user's (its
 * limits, priority, affinity, memory): each may aim at the caller itself
 * (0) only, the priority calls at the process scope only (the group and
 * user scopes reach the Node process and every process of the uid).
 * process_madvise names its target by a pidfd, which a filter cannot
 * inspect. Signals are Landlock's (scoping). */
static const sandy_sys own_pid_only[] = {
	{"prlimit64", 0},       {"sched_setaffinity", 0},
	{"sched_setscheduler", 0}, {"sched_setparam", 0},
	{"sched_setattr", 0},   {"migrate_pages", 0},
	{"move_pages", 0},
};

static int add_host_pid_rules(scmp_filter_ctx ctx, sandy_error *err)
{
	const sandy_sys setpriority = {"setpriority", 0};
	const sandy_sys ioprio_set = {"ioprio_set", 0};
	const sandy_sys madvise = {"process_madvise", 440};
	const struct scmp_arg_cmp not_self = SCMP_A0(SCMP_CMP_NE, 0);
	const struct scmp_arg_cmp who_not_self = SCMP_A1(SCMP_CMP_NE, 0);
	const struct scmp_arg_cmp not_process = SCMP_A0(SCMP_CMP_NE,
							 PRIO_PROCESS);
	const struct scmp_arg_cmp io_not_process =
		SCMP_A0(SCMP_CMP_NE, IOPRIO_WHO_PROCESS);
	size_t n = sizeof(own_pid_only) / sizeof(own_pid_only[0]);
	uint32_t eperm = SCMP_ACT_ERRNO(EPERM);

	for (size_t i = 0; i < n; i++)
		if (add_rule(ctx, eperm, &own_pid_only[i], 1, &not_self,
			     err) != 0)
			return -1;
	if (add_rule(ctx, eperm, &setpriority, 1, &not_process, err) != 0 ||
	    add_rule(ctx, eperm, &setpriority, 1, &who_not_self, err) != 0 ||
	    add_rule(ctx, eperm, &ioprio_set, 1, &io_not_process, err) != 0 ||
	    add_rule(ctx, eperm, &ioprio_set, 1, &who_not_self, err) != 0)
		return -1;
	return add_rule(ctx, eperm, &madvise, 0, NULL, err);
}

/* Without an IPC namespace of its own (the Landlock-only level) System V
 * keys and POSIX message queue names are the host's: a command could read
 * or change the user's shared memory, semaphores and queues (a key is
 * guessable, and IPC_PRIVATE segments are listed in /proc/sysvipc). Every
 * call that makes, attaches, operates or controls one fails; shmdt acts
 * on the caller's own mappings only. */
static const sandy_sys host_ipc[] = {
	{"shmget", 0},      {"shmat", 0},          {"shmctl", 0},
	{"semget", 0},      {"semop", 0},          {"semtimedop", 0},
	{"semctl", 0},      {"msgget", 0},         {"msgsnd", 0},
	{"msgrcv", 0},      {"msgctl", 0},         {"mq_open", 0},
	{"mq_unlink", 0},   {"mq_timedsend", 0},   {"mq_timedreceive", 0},
	{"mq_notify", 0},   {"mq_getsetattr", 0},
};

static int add_host_ipc_rules(scmp_filter_ctx ctx, sandy_error *err)
{
	size_t n = sizeof(host_ipc) / sizeof(host_ipc[0]);

	for (size_t i = 0; i < n; i++)
		if (add_rule(ctx, SCMP_ACT_ERRNO(EPERM), &host_ipc[i], 0, NULL,
			     err) != 0)
			return -1;
	return 0;
}

static int add_network_rules(scmp_filter_ctx ctx, sandy_error *err)
{
	sandy_sys s = {"socket", 0};
	/* The whole 64-bit argument: anything but exactly AF_UNIX fails,
	 * which is stricter than the kernel's int truncation. */
	struct scmp_arg_cmp cmp = SCMP_CMP(0, SCMP_CMP_NE, AF_UNIX);

	return add_rule(ctx, SCMP_ACT_ERRNO(EACCES), &s, 1, &cmp, err);
}

static int add_subprocess_rules(scmp_filter_ctx ctx, sandy_error *err)
{
	uint32_t eperm = SCMP_ACT_ERRNO(EPERM);

	if (add_simple(ctx, eperm, "fork", err) != 0 ||
	    add_simple(ctx, eperm, "vfork", err) != 0)
		return -1;
	/* Threads share the process; anything else is a new process. */
	return add_masked(ctx, eperm, "clone", 0, CLONE_THREAD, 0, err);
}

static int configure(scmp_filter_ctx ctx, unsigned variant, sandy_error *err)
{
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				  SCMP_ACT_KILL_PROCESS);

	/* The launcher sets no_new_privs itself, before Landlock. */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "seccomp: attributes: %s", strerror(-rc));
	if (add_always_denied(ctx, err) != 0 || add_arg_rules(ctx, err) != 0 ||
	    add_own_group_rules(ctx, err) != 0)
		return -1;
	if ((variant & FILTER_HOST_PIDS) &&
	    (add_host_pid_rules(ctx, err) != 0 ||
	     add_host_ipc_rules(ctx, err) != 0))
		return -1;
	if ((variant & FILTER_NET_BLOCKED) && add_network_rules(ctx, err) != 0)
		return -1;
	if (!(variant & FILTER_SUBPROCESSES) &&
	    add_subprocess_rules(ctx, err) != 0)
		return -1;
	return 0;
}

/* Builds one of the filters for the native architecture. Not static:
 * the generator calls it. */
scmp_filter_ctx sandy_seccomp_build(unsigned variant, sandy_error *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (ctx == NULL) {
		sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
			   "seccomp_init failed");
		return NULL;
	}
	if (configure(ctx, variant, err) != 0) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

#endif /* !SANDY_SECCOMP_PRECOMPILED */

/* ------------------------------------------------------------------ */
/* Loading.                                                            */
/* ------------------------------------------------------------------ */
#ifndef SANDY_SECCOMP_GENERATOR

static int check_available(sandy_error *err)
{
	/* EINVAL: a kernel built without seccomp. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
				  "seccomp is not available: %s",
				  strerror(errno));
	return 0;
}

static int load_failed(int e, sandy_error *err)
{
	sandy_error_kind kind = e == ENOSYS ? SANDY_ERR_UNSUPPORTED
					     : SANDY_ERR_ENFORCEMENT_FAILED;

	return sandy_fail(err, kind, "seccomp: loading the filter: %s",
			  strerror(e));
}

#if SANDY_SECCOMP_PRECOMPILED

int sandy_seccomp_load(unsigned v, sandy_error *err)
{
	struct sock_fprog prog = {
		.len = sandy_seccomp_filter_lens[v],
		.filter = (struct sock_filter *)sandy_seccomp_filters[v],
	};

	if (check_available(err) != 0)
		return -1;
	/* Single-threaded by contract: no TSYNC. */
	if (sys_seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return load_failed(errno, err);
	return 0;
}

int sandy_seccomp_export(unsigned variant, int fd, sandy_error *err)
{
	size_t len = sandy_seccomp_filter_lens[variant] *
		     sizeof(struct sock_filter);
	const char *p = (const char *)sandy_seccomp_filters[variant];

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "seccomp: writing the filter failed "
					  "(errno %d)",
					  errno);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

#else

int sandy_seccomp_load(unsigned variant, sandy_error *err)
{
	scmp_filter_ctx ctx;
	int rc;

	if (check_available(err) != 0)
		return -1;
	ctx = sandy_seccomp_build(variant, err);
	if (ctx == NULL)
		return -1;
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0)
		return load_failed(-rc, err);
	return 0;
}

int sandy_seccomp_export(unsigned variant, int fd, sandy_error *err)
{
	scmp_filter_ctx ctx = sandy_seccomp_build(variant, err);
	int rc;

	if (ctx == NULL)
		return -1;
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc != 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "seccomp: writing the filter failed: %s",
				  strerror(-rc));
	return 0;
}

#endif /* SANDY_SECCOMP_PRECOMPILED */
#endif /* !SANDY_SECCOMP_GENERATOR */

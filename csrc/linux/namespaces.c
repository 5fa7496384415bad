/* Entering the private namespaces: one unshare() for user, mount, IPC and
 * PID (and network when the policy blocks it), then identity id maps so
 * files keep their owners, then private propagation so nothing mounted on
 * the host reaches the view and nothing of ours leaks out. The PID
 * namespace is the one of this process's next child (processes.c). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux.h"
#include "../core/sys.h"

/* The host refusing the namespaces is a missing mechanism, not a broken
 * one: EPERM (policy, e.g. a seccomp or LSM rule), EINVAL/ENOSYS (not
 * built in), ENOSPC/EUSERS (user namespaces limited to zero). */
static sandy_error_kind unshare_failure_kind(int e)
{
	switch (e) {
	case EPERM:
	case EINVAL:
	case ENOSYS:
	case ENOSPC:
	case EUSERS:
		return SANDY_ERR_UNSUPPORTED;
	default:
		return SANDY_ERR_PREPARATION_FAILED;
	}
}

/* Inside = outside, one id each: the only map an unprivileged process may
 * write, and the one that keeps file owners meaningful. setgroups must be
 * denied before an unprivileged gid_map write is accepted. */
static int write_id_maps(unsigned int uid, unsigned int gid, sandy_error *err)
{
	char line[64];

	if (sandy_write_proc("/proc/self/setgroups", "deny") != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "namespaces: setgroups deny failed (errno %d)",
				  errno);
	snprintf(line, sizeof(line), "%u %u 1\n", uid, uid);
	if (sandy_write_proc("/proc/self/uid_map", line) != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "namespaces: uid map failed (errno %d)", errno);
	snprintf(line, sizeof(line), "%u %u 1\n", gid, gid);
	if (sandy_write_proc("/proc/self/gid_map", line) != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "namespaces: gid map failed (errno %d)", errno);
	return 0;
}

/* A new network namespace starts with lo down; local loopback servers of
 * the target itself should still work. Any socket family reaches the
 * interface ioctls; AF_UNIX avoids touching the inet stack. */
static int loopback_up(sandy_error *err)
{
	struct ifreq ifr;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "namespaces: loopback socket failed (errno %d)",
				  errno);
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (rc == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (rc != 0) {
		int saved = errno;

		close(fd);
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "namespaces: loopback up failed (errno %d)",
				  saved);
	}
	close(fd);
	return 0;
}

/* unshare(flags), identity maps, private propagation. */
static int enter(int flags, sandy_error *err)
{
	unsigned int uid = (unsigned int)geteuid();
	unsigned int gid = (unsigned int)getegid();

	if (unshare(flags) != 0)
		return sandy_fail(err, unshare_failure_kind(errno),
				  "namespaces: unshare failed (errno %d)",
				  errno);
	/* From here on the process has changed: failures are enforcement
	 * failures and the caller must not run anything. */
	if (write_id_maps(uid, gid, err) != 0)
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return sandy_fail(err, SANDY_ERR_ENFORCEMENT_FAILED,
				  "namespaces: private propagation failed (errno %d)",
				  errno);
	return 0;
}

int sandy_namespaces_enter(const sandy_view_plan *p, sandy_error *err)
{
	bool netns = p->netns;

	if (enter(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID |
			  (netns ? CLONE_NEWNET : 0),
		  err) != 0)
		return -1;
	return netns ? loopback_up(err) : 0;
}

int sandy_namespaces_enter_mounts(sandy_error *err)
{
	return enter(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID, err);
}

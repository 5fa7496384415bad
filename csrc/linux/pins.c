/* --pin and --pinned (policy_argv.h): what confine resolved is what runs.
 * Each pinned path is opened without following any symlink (a deny's
 * symlink spelling is opened as the link itself) and must still be the
 * object confine saw; with --pinned, every path the launcher's own
 * resolution produced must carry a pin, so a grant reached through a
 * symlink that a confined run re-pointed since confine fails closed
 * instead of granting its new target. Runs before anything changes; a
 * mismatch is PreparationFailed, a runner failure. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../apply.h"
#include "linux.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* 1 when p still names its object, 0 when not, -1 when openat2 is
 * missing (the host cannot keep the contract: Unsupported). */
static int pin_holds(const struct sandy_launch_pin *p)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS |
					  RESOLVE_NO_MAGICLINKS};
	struct stat st;
	char id[48];
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, p->path, &how, sizeof(how));
	bool ok;

	if (fd < 0)
		return errno == ENOSYS ? -1 : 0;
	ok = fstat(fd, &st) == 0;
	close(fd);
	snprintf(id, sizeof(id), "%" PRIu64 ":%" PRIu64, (uint64_t)st.st_dev,
		 (uint64_t)st.st_ino);
	return ok && strcmp(id, p->id) == 0;
}

static bool pinned(const sandy_launch *l, const char *path)
{
	for (size_t i = 0; i < l->n_pins; i++)
		if (strcmp(l->pins[i].path, path) == 0)
			return true;
	return false;
}

static int unpinned(sandy_error *err, const char *section, size_t i)
{
	return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
			  "%s[%zu] is not what confine resolved", section, i);
}

static int check_denies(const sandy_launch *l, const sandy_rdeny *d, size_t n,
			const char *section, sandy_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (!pinned(l, d[i].canonical) ||
		    (d[i].lexical != NULL && !pinned(l, d[i].lexical)))
			return unpinned(err, section, i);
	return 0;
}

int sandy_check_pins(const sandy_launch *l, const sandy_resolved *r,
		     sandy_error *err)
{
	for (size_t i = 0; i < l->n_pins; i++) {
		int holds = pin_holds(&l->pins[i]);

		if (holds < 0)
			return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
					  "pins: openat2 is missing");
		if (holds == 0)
			return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
					  "pin[%zu] changed since confine", i);
	}
	if (!l->pinned)
		return 0;
	for (size_t i = 0; i < r->n_grants; i++)
		if (!pinned(l, r->grants[i].path))
			return unpinned(err, "grants", i);
	for (size_t i = 0; i < r->n_execs; i++)
		if (!pinned(l, r->execs[i].path))
			return unpinned(err, "executable_grants", i);
	if (check_denies(l, r->deny_subtrees, r->n_deny_subtrees,
			 "deny_subtrees", err) != 0 ||
	    check_denies(l, r->deny_write_exact, r->n_deny_write_exact,
			 "deny_write_exact", err) != 0)
		return -1;
	if (!pinned(l, r->cwd))
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the working directory is not what confine "
				  "resolved");
	return 0;
}

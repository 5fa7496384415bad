/* Checks of the descriptors a process inherited, made before it is
 * confined: a view or a runner cannot contain what they already reach. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "linux.h"
#include "../core/stat.h"

/* Close-on-exec descriptors are this process's own: every inherited one
 * survived an exec, so none of them is marked, and the command receives
 * only unmarked ones. (Test builds open such a file before main.) */
static bool inherited(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags < 0 || !(flags & FD_CLOEXEC);
}

/* The first open inherited descriptor (stdio included) that matches, or
 * -1; -2 when they cannot be listed. */
static int first_fd_where(bool (*match)(int fd))
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;

	if (d == NULL)
		return -2;
	/* a listing cut short by an error would leave descriptors unchecked */
	for (errno = 0; found < 0 && (e = readdir(d)) != NULL; errno = 0) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd != dirfd(d) && inherited(fd) &&
		    match(fd))
			found = fd;
	}
	if (found < 0 && errno != 0)
		found = -2;
	closedir(d);
	return found;
}

/* The matches below answer "refuse" when the descriptor cannot be
 * looked at: a check that cannot run must not let it through. */
static bool is_directory(int fd)
{
	struct stat st;

	return sandy_stat(fd, NULL, 0, &st) != 0 || S_ISDIR(st.st_mode);
}

/* Character devices whose writing reaches nothing of the host's: the
 * memory devices null, zero, full, random, urandom (major 1) and
 * terminals (majors 4, 5 and the pseudo-terminal slaves 136-143), judged
 * by device number. */
static bool harmless_device(dev_t rdev)
{
	unsigned int ma = major(rdev), mi = minor(rdev);

	return (ma == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 ||
			    mi == 9)) ||
	       ma == 4 || ma == 5 || (ma >= 136 && ma <= 143);
}

/* A regular file or a block or character device open for reading only
 * (or O_PATH) could be reopened for writing through /proc/self/fd on the
 * host's node (uid 0 owns most devices: /dev/kmsg, a watchdog...). */
static bool reopenable_for_write(int fd)
{
	struct stat st;
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || sandy_stat(fd, NULL, 0, &st) != 0)
		return true;
	if (S_ISCHR(st.st_mode) && harmless_device(st.st_rdev))
		return false;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) &&
	    !S_ISCHR(st.st_mode))
		return false;
	return (flags & O_PATH) != 0 || (flags & O_ACCMODE) == O_RDONLY;
}

static int refuse_fds(bool (*match)(int fd), const char *what,
		      const char *because, sandy_error *err)
{
	int fd = first_fd_where(match);

	if (fd == -2)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "descriptors: cannot list them (errno %d)",
				  errno);
	if (fd >= 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "descriptors: inherited %s descriptor %d %s",
				  what, fd, because);
	return 0;
}

/* An O_PATH descriptor carries no data access, but chmod, chown and the
 * like through /proc/self/fd/N reach the object on the host's mount. */
static bool is_path_only(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags < 0 || (flags & O_PATH) != 0;
}

int sandy_refuse_inherited_dirs(sandy_error *err)
{
	if (refuse_fds(is_path_only, "O_PATH",
		       "would reach the host's file beneath the view", err) != 0)
		return -1;
	return refuse_fds(is_directory, "directory",
			  "would reach beneath the view", err);
}

int sandy_refuse_reopenable_files(sandy_error *err)
{
	return refuse_fds(reopenable_for_write, "read-only file",
			  "could be reopened for writing", err);
}

/* A file on a mount that allows execution can be mapped executable, by
 * the descriptor itself or by a granted loader through /proc/self/fd/N,
 * whatever the view would have mounted noexec; a write-only one can be
 * filled first and reopened for reading. */
static bool mappable_executable(int fd)
{
	struct stat st;
	struct statvfs vfs;

	if (sandy_stat(fd, NULL, 0, &st) != 0)
		return true;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return false;
	return fstatvfs(fd, &vfs) != 0 || !(vfs.f_flag & ST_NOEXEC);
}

int sandy_refuse_executable_files(const sandy_resolved *r, sandy_error *err)
{
	if (!sandy_resolved_restricts_exec(r))
		return 0;
	return refuse_fds(mappable_executable, "file",
			  "could be mapped executable under a policy that "
			  "restricts execution",
			  err);
}

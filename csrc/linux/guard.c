#include "../guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../apply.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* A descriptor bubblewrap's view cannot contain: a regular file or block
 * device open for reading only (or O_PATH) could be reopened for writing
 * through /proc/self/fd, on the host's mount, with no Landlock to stop it. */
static bool reopenable_for_write(int fd)
{
	struct stat st;
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fstat(fd, &st) != 0)
		return false;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return false;
	return (flags & O_PATH) != 0 || (flags & O_ACCMODE) == O_RDONLY;
}

static int refuse_readonly_files(sandy_error *err)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;

	if (d == NULL)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "descriptors: cannot list them (errno %d)",
				  errno);
	while (found < 0 && (e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd != dirfd(d) &&
		    reopenable_for_write(fd))
			found = fd;
	}
	closedir(d);
	if (found >= 0)
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "descriptors: inherited read-only file "
				  "descriptor %d could be reopened for writing",
				  found);
	return 0;
}

/* The root as confine saw it, on SANDY_GUARD_ROOT_FD (not close-on-exec:
 * the runner takes it over). */
static int place_root(const char *root, const char *root_id, sandy_error *err)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	char seen[48];
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, root, &how, sizeof(how));

	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the workspace root changed since confine");
	}
	snprintf(seen, sizeof(seen), "%" PRIu64 ":%" PRIu64,
		 (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	if (strcmp(seen, root_id) != 0 ||
	    fcntl(SANDY_GUARD_ROOT_FD, F_GETFD) >= 0 ||
	    dup2(fd, SANDY_GUARD_ROOT_FD) != SANDY_GUARD_ROOT_FD) {
		close(fd);
		return sandy_fail(err, SANDY_ERR_PREPARATION_FAILED,
				  "the workspace root changed since confine, "
				  "or its descriptor slot is taken");
	}
	close(fd);
	return 0;
}

int sandy_guard_prepare(const char *root, const char *root_id,
			sandy_error *err)
{
	if (sandy_refuse_inherited_dirs(err) != 0 ||
	    refuse_readonly_files(err) != 0)
		return -1;
	return root == NULL ? 0 : place_root(root, root_id, err);
}

#include "../guard.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

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
	    sandy_refuse_reopenable_files(err) != 0)
		return -1;
	return root == NULL ? 0 : place_root(root, root_id, err);
}

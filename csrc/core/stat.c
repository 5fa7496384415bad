/* sandy_stat (stat.h): statx on Linux, fstatat elsewhere. */
#include "stat.h"

#include <string.h>

#ifdef __linux__
#include <sys/sysmacros.h>

#include "sys.h"

int sandy_stat(int dirfd, const char *path, int flags, struct stat *out)
{
	struct statx stx;

	if (path == NULL) {
		path = "";
		flags |= AT_EMPTY_PATH;
	}
	if (sys_statx(dirfd, path, flags, STATX_BASIC_STATS, &stx) != 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->st_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	out->st_ino = (ino_t)stx.stx_ino;
	out->st_mode = (mode_t)stx.stx_mode;
	out->st_nlink = (nlink_t)stx.stx_nlink;
	out->st_uid = (uid_t)stx.stx_uid;
	out->st_gid = (gid_t)stx.stx_gid;
	out->st_rdev = makedev(stx.stx_rdev_major, stx.stx_rdev_minor);
	out->st_size = (off_t)stx.stx_size;
	return 0;
}

#else

int sandy_stat(int dirfd, const char *path, int flags, struct stat *out)
{
	if (path == NULL)
		return fstat(dirfd, out);
	return fstatat(dirfd, path, out, flags);
}

#endif

/* The one way the C code asks about a file's type, owner and identity, so
 * that no file calls stat, lstat, fstat or fstatat itself.
 *
 * Why: glibc 2.33 made stat, lstat and fstat real symbols (stat64@
 * GLIBC_2.33 and so on), so one direct call raised the glibc the addon
 * needs to 2.33. On Linux this is statx(2) by number (csrc/core/sys.h),
 * which needs no glibc symbol at all, and its answer is copied into a
 * struct stat so callers keep reading st_dev, st_ino, st_mode and st_uid
 * (st_dev is made with makedev() from statx's major and minor, the same
 * number stat(2) gives and the one Node's fs.stat reports, which confine
 * sends in its pins). Elsewhere (the core also builds on macOS) it is
 * fstatat(2), which has no such versioning.
 *
 * Only the fields a caller here reads are filled: st_dev, st_ino,
 * st_mode, st_nlink, st_uid, st_gid, st_rdev, st_size; the rest are 0. */
#ifndef SANDY_STAT_H
#define SANDY_STAT_H

#include <fcntl.h>
#include <sys/stat.h>

/* path relative to dirfd (AT_FDCWD: the working directory); path NULL:
 * the object dirfd itself (fstat). flags: 0 (follow a final symlink, as
 * stat) or AT_SYMLINK_NOFOLLOW (as lstat). 0, or -1 with errno. */
int sandy_stat(int dirfd, const char *path, int flags, struct stat *out);

#endif

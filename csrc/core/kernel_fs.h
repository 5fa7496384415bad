/* Kernel filesystems (vocabulary.h): what no workspace, writable root or
 * read_write grant may be, since their files are kernel settings and
 * devices, which check the uid, not capabilities. */
#ifndef SANDY_KERNEL_FS_H
#define SANDY_KERNEL_FS_H

#include <stdbool.h>

/* 1 when the canonical path lies on a kernel filesystem, 0 when not (or
 * not on Linux), -1 with errno. On one means any of: its statfs magic is
 * one of SANDY_KERNEL_FS_MAP; it lies within one of the kernel's trees
 * (SANDY_KERNEL_TREE_MAP); it shares the device of a kernel filesystem's
 * mount or of a tmpfs mounted within a tree, as a bind mount of one does
 * anywhere (/proc/self/mountinfo: a tmpfs in /dev or /sys, and devtmpfs
 * itself, show tmpfs's magic). */
int sandy_on_kernel_fs(const char *path);

/* path lies within one of the kernel's trees; with programs false, only
 * within one that holds no file a loader could map. */
bool sandy_kernel_tree(const char *path, bool programs);

#endif

/* Where the launcher's private copies live (docs/launcher-copy.md): a
 * function of the uid alone, written once for both programs. The addon
 * makes the copies in the first of these that works; the launcher keeps
 * every one of its own user's that exists read-only in its sandbox,
 * whoever started it (a root service may spawn the argv as another uid).
 * No home directory: a user-owned chain can be re-pointed by the user's
 * own confined commands, a root-owned one up to the last component
 * cannot. */
#ifndef SANDY_COPY_DIRS_H
#define SANDY_COPY_DIRS_H

#include <stddef.h>

#define SANDY_COPY_DIRS_MAX 3
#define SANDY_COPY_DIR_BYTES 48

/* Fills dirs with uid's candidates, best first; returns how many. */
size_t sandy_copy_dirs(unsigned long uid,
		       char dirs[SANDY_COPY_DIRS_MAX][SANDY_COPY_DIR_BYTES]);

#endif
